//go:build !arm64

package fs

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	kcpio "github.com/gometal/gometal/kernel/cpio"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/u-root/u-root/pkg/cpio"

	"golang.org/x/sys/unix"
)

// archive writes recs as the CLI does, with u-root's cpio writer (the
// library the kernel's reader is checked against).
func archive(t *testing.T, recs ...cpio.Record) []byte {
	t.Helper()
	var b bytes.Buffer
	w := cpio.Newc.Writer(&b)
	for i := range recs {
		recs[i].Info.Ino = uint64(i + 2) // distinct, or the writer takes them for hard links
	}
	if err := cpio.WriteRecords(w, recs); err != nil {
		t.Fatal(err)
	}
	if err := cpio.WriteTrailer(w); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func boot(t *testing.T, a []byte) (UnpackError, bool) {
	t.Helper()
	// Enough pages for a full table's names (namesPerPage to a page).
	usermem.HostReset(MaxDentries/namesPerPage+testPages, 1)
	vfs.Reset()
	Archive = a
	resetTables()
	return Init(64 * mm.PageSize)
}

// The initramfs becomes the tree: directories it only implies are made,
// a later entry replaces an earlier one of the same name (as Linux's
// unpacker does), symlinks and device nodes keep what makes them, /tmp
// is made if missing, and each file reads the archive's bytes.
func TestUnpack(t *testing.T) {
	// Two archives one after the other, as a bootloader may concatenate
	// them (the writer itself drops a repeated name).
	a := append(archive(t,
		cpio.StaticFile("init", "old", 0o755),
		cpio.StaticFile("a/b/c.txt", "deep", 0o644),
	), archive(t,
		cpio.StaticFile("init", "new", 0o755),
		cpio.Symlink("a/l", "b/c.txt"),
		cpio.CharDev("dev/null", 0o666, 1, 3),
	)...)
	if ue, ok := boot(t, a); !ok {
		t.Fatalf("unpack: %+v", ue)
	}
	for path, want := range map[string]string{"/init": "new", "/a/b/c.txt": "deep"} {
		var w Walk
		i, e := Lookup(&w, RootPath(), []byte(path), Follow)
		if e != 0 || string(ArchiveData(i)) != want {
			t.Errorf("%s: %q, %v; want %q", path, ArchiveData(i), e, want)
		}
	}
	var w Walk
	if i, e := Lookup(&w, RootPath(), []byte("/a/l"), Follow); e != 0 || string(ArchiveData(i)) != "deep" {
		t.Errorf("through the symlink: %v", e)
	}
	if i, e := Lookup(&w, RootPath(), []byte("/dev/null"), 0); e != 0 || Inodes[i].Rdev != 1<<8|3 || Inodes[i].Mode&unix.S_IFMT != unix.S_IFCHR {
		t.Errorf("/dev/null: %v", e)
	}
	if n, ok := lookup("/tmp"); !ok || n.Mode != unix.S_IFDIR|0o1777 {
		t.Errorf("/tmp missing or mode %o", n.Mode)
	}
	// getdents order: ".", "..", then the entries as the archive made them.
	root, _ := lookup("/")
	var names []string
	for pos := int64(0); ; {
		_, nm, next, ok := Entry(root.Index(), pos)
		if !ok {
			break
		}
		names = append(names, string(nm))
		pos = next
	}
	if got := strings.Join(names, " "); got != ". .. a init dev tmp" {
		t.Errorf("the root lists %q", got)
	}
}

// Writing a file the initramfs brought copies it first: the archive's
// bytes never change, and the file reads the old bytes and the new.
func TestArchiveFileCopyOnWrite(t *testing.T) {
	a := archive(t, cpio.StaticFile("etc/hosts", strings.Repeat("h", 5000), 0o644))
	if ue, ok := boot(t, a); !ok {
		t.Fatalf("unpack: %+v", ue)
	}
	buf := usermem.HostReset(testPages, 2)
	n, _ := lookup("/etc/hosts")
	f := open(t, n)
	f.Pos = 5000
	write(t, f, buf, "tail")
	if got := readAt(t, f, buf, 4998, 8); got != "hhtail" {
		t.Errorf("after the write: %q", got)
	}
	if !bytes.Equal(a, archive(t, cpio.StaticFile("etc/hosts", strings.Repeat("h", 5000), 0o644))) {
		t.Error("the archive changed")
	}
	if e := Truncate(n, 3); e != 0 || readAt(t, f, buf, 0, 10) != "hhh" {
		t.Errorf("truncate: %v", e)
	}
}

// A bad archive is refused with the reason, and what it could not make
// is named.
func TestUnpackErrors(t *testing.T) {
	good := archive(t, cpio.StaticFile("init", "x", 0o755))
	if ue, ok := boot(t, good[:50]); ok || ue.Err != kcpio.ErrTruncated {
		t.Errorf("truncated: %+v", ue)
	}
	if ue, ok := boot(t, []byte(strings.Repeat("x", 200))); ok || ue.Err != kcpio.ErrMagic {
		t.Errorf("not cpio: %+v", ue)
	}
	clash := archive(t, cpio.StaticFile("f", "x", 0o644), cpio.StaticFile("f/g", "y", 0o644))
	if ue, ok := boot(t, clash); ok || ue.Errno != unix.ENOTDIR || string(ue.Entry) != "f/g" {
		t.Errorf("a file below a file: %+v", ue)
	}
	var recs []cpio.Record
	for i := 0; i < MaxInodes; i++ {
		recs = append(recs, cpio.StaticFile("f"+strconv.Itoa(i), "", 0o644))
	}
	if ue, ok := boot(t, archive(t, recs...)); ok || ue.Errno != unix.ENOSPC || ue.Count != MaxInodes-2 /* slot 0 and the root */ {
		t.Errorf("too many files: %v after %d", ue.Errno, ue.Count)
	}
}
