//go:build !arm64

package ext4fs

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gometal/gometal/kernel/ext4"
)

// TestTxnCrash changes a file's mode through a journaled transaction
// (the inode table block logged, committed, written home) and stops it
// where a crash would at each step: before the commit block is on the
// disk the next mount replays nothing and the old mode stays; from the
// commit on it replays the change; done, the journal is empty. Each
// image, once mounted again (replayed), is clean for e2fsck -fn and has
// the mode the step implies; e2fsck's own replay of the crashed image
// agrees.
func TestTxnCrash(t *testing.T) {
	src := sourceTree(t)
	for _, bs := range []int{4096, 1024} {
		img := mkfs(t, src, bs)
		for upTo := txnLogged; upTo <= txnDone; upTo++ {
			t.Run(fmt.Sprintf("%dk-through-step-%d", bs/1024, upTo), func(t *testing.T) {
				txnCase(t, img, upTo)
			})
		}
	}
}

func txnCase(t *testing.T, img string, upTo int) {
	setup(t)
	major, minor, disk := diskOf(t, img, false)
	s, e := Mount(major, minor, true, false)
	if e != 0 {
		t.Fatalf("mount: %v", e)
	}
	v := volOf(s)
	if e := openJournal(v); e != 0 {
		t.Fatalf("openJournal: %v", e)
	}
	var in ext4.Inode
	if e := v.r.Resolve([]byte("/a/f1"), false, &in); e != ext4.OK {
		t.Fatalf("resolve: %v", e)
	}
	old := in.Mode
	// The inode's block in its group's table.
	g, off, _ := v.r.InodeLocation(in.Ino)
	db, doff := v.r.GroupDescLocation(g)
	b, _ := v.src.Block(db)
	var gd ext4.GroupDesc
	if e := v.r.ParseGroupDesc(g, b[doff:], &gd); e != ext4.OK {
		t.Fatal(e)
	}
	bs := uint64(v.r.BlockSize)
	tx.begin(v, false)
	blk, er := tx.get(gd.InodeTable + off/bs)
	if er != 0 {
		t.Fatal(er)
	}
	raw := blk[off%bs : off%bs+uint64(v.r.InodeSize)]
	binary.LittleEndian.PutUint16(raw, ext4.SIFREG|0o600)
	v.r.SetInodeCsum(in.Ino, raw)
	if e := tx.commit(upTo, 1700000000, 0); e != 0 {
		t.Fatalf("commit: %v", e)
	}
	// The crash: the disk as it is now.
	crashed := filepath.Join(t.TempDir(), "crashed.img")
	os.WriteFile(crashed, *disk, 0o644)
	want := uint16(ext4.SIFREG | 0o600)
	if upTo < txnCommitted {
		want = old
	}
	// e2fsck's replay of a copy.
	ref := filepath.Join(t.TempDir(), "ref.img")
	os.WriteFile(ref, *disk, 0o644)
	exec.Command("e2fsck", "-fy", ref).Run()
	if m := debugfsMode(t, ref); m != want {
		t.Errorf("after e2fsck's replay: mode %o, want %o", m, want)
	}
	// Our mount's replay.
	setup(t)
	major, minor, disk = diskOf(t, crashed, false)
	s, e = Mount(major, minor, true, false)
	if e != 0 {
		t.Fatalf("mount after the crash: %v", e)
	}
	v = volOf(s)
	if e := v.r.Resolve([]byte("/a/f1"), false, &in); e != ext4.OK || in.Mode != want {
		t.Errorf("after the mount's replay: mode %o (%v), want %o", in.Mode, e, want)
	}
	mine := filepath.Join(t.TempDir(), "mine.img")
	os.WriteFile(mine, *disk, 0o644)
	if out, err := exec.Command("e2fsck", "-fn", mine).CombinedOutput(); err != nil {
		t.Errorf("e2fsck -fn after the mount: %v\n%s", err, out)
	}
}

// debugfsMode is a/f1's mode in img, as debugfs reads it.
func debugfsMode(t *testing.T, img string) uint16 {
	t.Helper()
	out, err := exec.Command("debugfs", "-R", "stat /a/f1", img).Output()
	if err != nil {
		t.Fatalf("debugfs stat: %v", err)
	}
	fs := strings.Fields(string(out))
	for i := 0; i+1 < len(fs); i++ {
		var m uint16
		if fs[i] == "Mode:" {
			if _, err := fmt.Sscanf(fs[i+1], "%o", &m); err == nil {
				return m | ext4.SIFREG
			}
		}
	}
	t.Fatalf("debugfs stat printed no mode:\n%s", out)
	return 0
}
