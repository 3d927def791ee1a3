//go:build linux && arm64

package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gometal/gometal/tests/progs/internal/guest"
)

// write changes the writable share at dir as a program on Linux would,
// printing each answer for tests/share_test.go, which then looks at the
// host's directory: a file written across pages and read back, bytes
// written into the middle of a file the host made (the rest of its pages
// kept), append, truncate both ways, fsync; mkdir, rename (into a
// directory, over a file), symlink, link, unlink, rmdir (a full
// directory refused), chmod, utimes; a shared writable mapping refused
// and a private one allowed.
func write(dir string) {
	if _, err := os.Stat(dir); err != nil {
		// Booted as init on Linux (tests/testdata/share-write-linux.txt
		// was made so): load v9fs's modules and mount the share as
		// gometal's boot did.
		guest.LoadModules("/modules")
		os.MkdirAll(dir, 0o755)
		if err := unix.Mount("gmshare0", dir, "9p", 0, "trans=virtio,version=9p2000.L"); err != nil {
			fmt.Println("share: mount:", err)
		}
		defer unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	say := func(what string, err error) { fmt.Printf("share: %s: %s\n", what, guest.Result(err)) }

	big := make([]byte, 1<<20+123)
	for i := range big {
		big[i] = byte(i*7 + i>>13)
	}
	f, err := os.Create(p("big"))
	if err == nil {
		// Odd sizes, so that writes start and end inside pages.
		for off := 0; off < len(big) && err == nil; off += 10007 {
			_, err = f.Write(big[off:min(off+10007, len(big))])
		}
		if err == nil {
			err = f.Sync()
		}
		f.Close()
	}
	say("write big and fsync", err)
	back, err := os.ReadFile(p("big"))
	fmt.Println("share: big reads back:", err == nil && bytes.Equal(back, big), len(back))
	fmt.Printf("share: big sha256 %x\n", sha256.Sum256(big))

	// The host made "hostfile" (10,000 bytes of 'h'): 5 bytes written at
	// 4094 straddle its first two pages, whose other bytes stay.
	f, err = os.OpenFile(p("hostfile"), os.O_RDWR, 0)
	if err == nil {
		_, err = f.WriteAt([]byte("GUEST"), 4094)
		f.Close()
	}
	say("write into the host's file", err)
	f, err = os.OpenFile(p("hostfile"), os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		_, err = f.Write([]byte("+tail"))
		f.Close()
	}
	say("append", err)
	f, err = os.Open(p("hostfile"))
	if err == nil {
		err = f.Sync() // the host fsyncs its file through a fid of its own
		f.Close()
	}
	say("fsync read-only", err)

	say("create short", os.WriteFile(p("short"), []byte("0123456789"), 0o640))
	say("truncate down", os.Truncate(p("short"), 4))
	say("truncate up", os.Truncate(p("short"), 6))
	b, _ := os.ReadFile(p("short"))
	fmt.Printf("share: short now %q\n", b)

	say("mkdir", os.Mkdir(p("d"), 0o750))
	say("rename into d", os.Rename(p("short"), p("d/moved")))
	b, err = os.ReadFile(p("d/moved"))
	fmt.Printf("share: moved reads %q %s\n", b, guest.Result(err))
	say("create victim", os.WriteFile(p("victim"), []byte("old"), 0o644))
	say("create winner", os.WriteFile(p("winner"), []byte("new"), 0o644))
	say("rename over", os.Rename(p("winner"), p("victim")))
	b, _ = os.ReadFile(p("victim"))
	fmt.Printf("share: victim now %q\n", b)
	say("symlink", os.Symlink("d/moved", p("link")))
	t, err := os.Readlink(p("link"))
	fmt.Printf("share: readlink %q %s\n", t, guest.Result(err))
	say("hard link", os.Link(p("victim"), p("d/second")))
	var st unix.Stat_t
	unix.Stat(p("victim"), &st)
	fmt.Println("share: victim links:", st.Nlink)
	// The name the file was made under goes; the other name still
	// reaches it on the host.
	say("unlink victim", os.Remove(p("victim")))
	say("write through the other name", os.WriteFile(p("d/second"), []byte("relinked"), 0o644))
	say("rmdir a full directory", unix.Rmdir(p("d")))
	say("mkdir gone", os.Mkdir(p("gone"), 0o755))
	say("rmdir", os.Remove(p("gone")))
	say("create doomed", os.WriteFile(p("doomed"), []byte("x"), 0o644))
	say("unlink", os.Remove(p("doomed")))
	_, err = os.Stat(p("doomed"))
	say("stat unlinked", err)
	say("chmod", os.Chmod(p("hostfile"), 0o600))
	when := time.Unix(1500000000, 123456789)
	say("chtimes", os.Chtimes(p("hostfile"), when, when))
	say("mkfifo", unix.Mkfifo(p("fifo"), 0o644))

	f, err = os.OpenFile(p("hostfile"), os.O_RDWR, 0)
	if err == nil {
		_, err = unix.Mmap(int(f.Fd()), 0, 8192, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		say("mmap shared writable", err)
		m, err := unix.Mmap(int(f.Fd()), 0, 8192, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
		if err == nil {
			m[0] = 'P' // the mapping's own copy
			fmt.Println("share: mmap private sees:", string(m[4094:4099]))
		}
		say("mmap private", err)
		f.Close()
	}
	_, err = os.Create(p("nodir/x"))
	say("create in no directory", err)
	fmt.Println("share: write done")
}
