//go:build !arm64

package fs

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// The tmpfs on the host: Go memory plays physical memory (file pages and
// the app's), a real mm.Space plays the app's address space, and the
// initramfs is empty (the root directory only).

const testPages = 256

// setup empties the tmpfs with a limit of limitPages pages and returns an
// app buffer of bufPages pages.
func setup(t *testing.T, limitPages, bufPages int) uintptr {
	t.Helper()
	base := usermem.HostReset(testPages, bufPages)
	Archive = nil
	vfs.Reset()
	InitTmpfs(uint64(limitPages) * mm.PageSize)
	return base
}

func create(t *testing.T, path string, mode uint32) *TmpNode {
	t.Helper()
	i, e := Create([]byte(path), mode)
	if e != 0 {
		t.Fatalf("create %s: %v", path, e)
	}
	return &TmpNodes[i]
}

// open makes a description of n, as openat does.
func open(t *testing.T, n *TmpNode) *vfs.File {
	t.Helper()
	fi := vfs.Alloc(n, unix.O_RDWR)
	if fi < 0 {
		t.Fatal("no free description")
	}
	n.Opens++
	return &vfs.Files[fi]
}

func write(t *testing.T, f *vfs.File, buf uintptr, data string) {
	t.Helper()
	if !usermem.CopyOut(buf, []byte(data)) {
		t.Fatal("copy out")
	}
	if r := f.Impl.Write(f, buf, uint64(len(data)), -1); r != uint64(len(data)) {
		t.Fatalf("write %q = %#x", data, r)
	}
}

func readAt(t *testing.T, f *vfs.File, buf uintptr, off int64, n int) string {
	t.Helper()
	r := f.Impl.Read(f, buf, uint64(n), off)
	if vfs.IsErr(r) {
		t.Fatalf("read at %d: %#x", off, r)
	}
	b := make([]byte, r)
	usermem.CopyIn(b, buf)
	return string(b)
}

func lookup(path string) (*TmpNode, bool) {
	r, ok := LookupAny([]byte(path))
	if !ok || r.Tmp < 0 {
		return nil, false
	}
	return &TmpNodes[r.Tmp], true
}

// rename(2) moves a directory with everything below it; the checks
// Linux makes come first, and a rename that fails changes nothing.
func TestTmpfsRename(t *testing.T) {
	buf := setup(t, 64, 1)
	create(t, "/tmp/a", unix.S_IFDIR|0o755)
	f := open(t, create(t, "/tmp/a/f", unix.S_IFREG|0o644))
	write(t, f, buf, "hello")
	create(t, "/tmp/full", unix.S_IFDIR|0o755)
	create(t, "/tmp/full/x", unix.S_IFREG|0o644)
	create(t, "/tmp/file", unix.S_IFREG|0o644)

	for _, c := range []struct {
		from, to string
		want     unix.Errno
	}{
		{"/tmp/a", "/tmp/a/sub", unix.EINVAL},   // into itself
		{"/tmp/a", "/tmp/full", unix.ENOTEMPTY}, // over a non-empty directory
		{"/tmp/file", "/tmp/full", unix.EISDIR}, // a file over a directory
		{"/tmp/a", "/tmp/file", unix.ENOTDIR},   // a directory over a file
		{"/tmp/none", "/tmp/x", unix.ENOENT},    // no source
		{"/tmp/a", "/tmp/nodir/a", unix.ENOENT}, // no target directory
		{"/", "/tmp/root", unix.EROFS},          // the initramfs is read-only
		{"/tmp/a", "/tmp/" + strings.Repeat("n", PathMax), unix.ENAMETOOLONG},
	} {
		if e := TmpRename([]byte(c.from), []byte(c.to)); e != c.want {
			t.Errorf("rename %s -> %.20s: %v, want %v", c.from, c.to, e, c.want)
		}
	}
	if _, ok := lookup("/tmp/a/f"); !ok {
		t.Fatal("a failed rename moved /tmp/a/f")
	}

	if e := TmpRename([]byte("/tmp/a"), []byte("/tmp/b")); e != 0 {
		t.Fatalf("rename /tmp/a /tmp/b: %v", e)
	}
	if _, ok := lookup("/tmp/a"); ok {
		t.Error("/tmp/a still there")
	}
	if _, ok := lookup("/tmp/a/f"); ok {
		t.Error("/tmp/a/f still there")
	}
	n, ok := lookup("/tmp/b/f")
	if !ok {
		t.Fatal("/tmp/b/f missing")
	}
	if n != f.Impl.(*TmpNode) {
		t.Error("the open description does not follow its file")
	}
	if got := readAt(t, f, buf, 0, 16); got != "hello" {
		t.Errorf("read after rename = %q", got)
	}

	// Over an existing file: the target is replaced, its old node goes.
	create(t, "/tmp/c", unix.S_IFREG|0o644)
	if e := TmpRename([]byte("/tmp/b/f"), []byte("/tmp/c")); e != 0 {
		t.Fatalf("rename over a file: %v", e)
	}
	if n, _ := lookup("/tmp/c"); n != f.Impl.(*TmpNode) {
		t.Error("/tmp/c is not the renamed file")
	}
}

// A file unlinked while open stays readable and writable through its
// description, nameless; its pages go back with the last close.
func TestTmpfsUnlinkWhileOpen(t *testing.T) {
	buf := setup(t, 64, 2)
	n := create(t, "/tmp/f", unix.S_IFREG|0o644)
	f := open(t, n)
	data := strings.Repeat("x", 5000) // two pages
	write(t, f, buf, data)
	used := tmpPages
	if used == 0 {
		t.Fatal("writing took no pages")
	}

	if e := Unlink([]byte("/tmp/f"), 0, false); e != 0 {
		t.Fatalf("unlink: %v", e)
	}
	if _, ok := lookup("/tmp/f"); ok {
		t.Error("unlinked name still found")
	}
	// A new file may take the name; the open one is not it.
	m := create(t, "/tmp/f", unix.S_IFREG|0o644)
	if m == n {
		t.Fatal("the new file reuses the open node")
	}
	if got := readAt(t, f, buf, 4998, 10); got != "xx" {
		t.Errorf("read of the unlinked file = %q", got)
	}
	write(t, f, buf, "tail")
	if st := n.Stat(f); st.Size != 5004 {
		t.Errorf("size = %d, want 5004", st.Size)
	}
	if tmpPages < used {
		t.Errorf("pages freed while open: %d < %d", tmpPages, used)
	}

	vfs.DecRef(f.Index()) // the last close
	if n.Used {
		t.Error("the node outlived its last description")
	}
	if tmpPages != 0 {
		t.Errorf("%d pages still held after the last close", tmpPages)
	}
}

// Unlink answers as unlinkat(2) does, also for paths that end in ".",
// ".." or a slash (Linux's do_rmdir and do_unlinkat).
func TestTmpfsUnlinkErrors(t *testing.T) {
	setup(t, 8, 1)
	create(t, "/tmp/d", unix.S_IFDIR|0o755)
	create(t, "/tmp/d/f", unix.S_IFREG|0o644)
	for _, c := range []struct {
		path  string
		tail  Tail
		rmdir bool
		want  unix.Errno
	}{
		{"/tmp/d", 0, false, unix.EISDIR},
		{"/tmp/d", 0, true, unix.ENOTEMPTY},
		{"/tmp/d/f", 0, true, unix.ENOTDIR},
		{"/tmp/none", 0, false, unix.ENOENT},
		{"/", 0, true, unix.EROFS},
		{"/tmp/d", TailDir | TailDot, true, unix.EINVAL},     // rmdir d/.
		{"/tmp", TailDir | TailDotDot, true, unix.ENOTEMPTY}, // rmdir d/..
		{"/tmp/d", TailDir | TailDot, false, unix.EISDIR},    // unlink d/.
		{"/tmp/d/f", TailDir, false, unix.ENOTDIR},           // unlink f/
		{"/tmp/d/f", 0, false, 0},
		{"/tmp/d", TailDir, true, 0}, // rmdir d/
	} {
		if e := Unlink([]byte(c.path), c.tail, c.rmdir); e != c.want {
			t.Errorf("unlink %s (tail %b, rmdir %v) = %v, want %v", c.path, c.tail, c.rmdir, e, c.want)
		}
	}
}

// Past the size limit a write is short, then ENOSPC; truncating gives
// the pages back.
func TestTmpfsLimit(t *testing.T) {
	buf := setup(t, 4, 8)
	f := open(t, create(t, "/tmp/big", unix.S_IFREG|0o644))
	big := bytes.Repeat([]byte{'y'}, 8*mm.PageSize)
	usermem.CopyOut(buf, big)
	r := f.Impl.Write(f, buf, uint64(len(big)), -1)
	// Two index pages (root and leaf) and two data pages fit in four.
	if r != 2*mm.PageSize {
		t.Fatalf("write past the limit = %#x, want %#x", r, 2*mm.PageSize)
	}
	if r := f.Impl.Write(f, buf, 1, -1); r != vfs.Err(unix.ENOSPC) {
		t.Errorf("write when full = %#x, want ENOSPC", r)
	}
	TmpTruncate(f.Impl.(*TmpNode), 0)
	if tmpPages != 0 {
		t.Errorf("truncate to 0 left %d pages", tmpPages)
	}
}

// Paths and symlink targets may be as long as Linux allows (PATH_MAX,
// names up to NAME_MAX), and a node's name pages go back with it.
func TestTmpfsLongPaths(t *testing.T) {
	setup(t, 8, 1)
	used := mm.Pages.Used()
	name := strings.Repeat("d", NameMax)
	path := "/tmp"
	for len(path)+1+NameMax < 3500 {
		path += "/" + name
		create(t, path, unix.S_IFDIR|0o755)
	}
	var dst [PathMax]byte
	n, _, e := Resolve(&dst, nil, []byte(path+"/../"+name), false)
	if e != 0 || string(dst[:n]) != path {
		t.Fatalf("resolve a %d-byte path: %v", len(path), e)
	}
	if _, _, e := Resolve(&dst, nil, []byte("/tmp/"+name+"d"), false); e != unix.ENAMETOOLONG {
		t.Errorf("a %d-byte name: %v, want ENAMETOOLONG", NameMax+1, e)
	}
	link := create(t, "/tmp/l", unix.S_IFLNK|0o777)
	if e := link.SetLink([]byte(path)); e != 0 {
		t.Fatalf("a %d-byte symlink: %v", len(path), e)
	}
	if e := link.SetLink(make([]byte, PathMax)); e != unix.ENAMETOOLONG {
		t.Errorf("a symlink of PATH_MAX bytes: %v", e)
	}
	if r, _, _, e := LookupFollow([]byte("/tmp/l"), true, &dst); e != 0 || !r.IsDir() {
		t.Errorf("following the long symlink: %v", e)
	}
	for p := path; p != "/tmp"; p = string(ParentOf([]byte(p))) {
		if e := Unlink([]byte(p), 0, true); e != 0 {
			t.Fatalf("rmdir %d bytes: %v", len(p), e)
		}
	}
	Unlink([]byte("/tmp/l"), 0, false)
	if got := mm.Pages.Used(); got != used {
		t.Errorf("pages in use %d after removing everything, want %d", got, used)
	}
}

// link(2): a file with two names is one file; it goes with its last name
// (and its last open description), as on Linux.
func TestTmpfsHardLinks(t *testing.T) {
	buf := setup(t, 16, 1)
	usermem.CopyOut(buf, []byte{0}) // fault the app's page in first
	used := mm.Pages.Used()
	n := create(t, "/tmp/a", unix.S_IFREG|0o644)
	f := open(t, n)
	write(t, f, buf, "shared")
	create(t, "/tmp/d", unix.S_IFDIR|0o755)

	for _, c := range []struct {
		from, to string
		want     unix.Errno
	}{
		{"/tmp/d", "/tmp/d2", unix.EPERM},    // a directory
		{"/tmp/none", "/tmp/x", unix.ENOENT}, // no source
		{"/tmp/a", "/tmp/d", unix.EEXIST},    // the new name exists
		{"/tmp/a", "/tmp/no/b", unix.ENOENT}, // no directory for it
		{"/tmp/a", "/tmp/d/b", 0},
	} {
		if e := Link([]byte(c.from), []byte(c.to)); e != c.want {
			t.Errorf("link %s %s = %v, want %v", c.from, c.to, e, c.want)
		}
	}
	if m, ok := lookup("/tmp/d/b"); !ok || m != n {
		t.Fatal("the new name does not lead to the file")
	}
	if st := n.Stat(f); st.Nlink != 2 {
		t.Errorf("st_nlink = %d, want 2", st.Nlink)
	}
	if k, name, m := TmpChild([]byte("/tmp/d"), 0); k < 0 || string(name) != "b" || m != n {
		t.Errorf("the directory lists %q", name)
	}
	// rename(2) of one name onto another of the same file does nothing.
	if e := TmpRename([]byte("/tmp/a"), []byte("/tmp/d/b")); e != 0 {
		t.Errorf("rename onto a name of the same file: %v", e)
	}
	if _, ok := lookup("/tmp/a"); !ok {
		t.Error("rename onto another name of the same file removed the source")
	}
	if e := Unlink([]byte("/tmp/a"), 0, false); e != 0 {
		t.Fatalf("unlink: %v", e)
	}
	if got := readAt(t, f, buf, 0, 16); got != "shared" || !n.Used {
		t.Errorf("after unlinking one name: %q, used %v", got, n.Used)
	}
	if st := n.Stat(f); st.Nlink != 1 {
		t.Errorf("st_nlink = %d after unlinking one name, want 1", st.Nlink)
	}
	Unlink([]byte("/tmp/d/b"), 0, false)
	if !n.Used {
		t.Error("the file went with its last name while open")
	}
	vfs.DecRef(f.Index())
	Unlink([]byte("/tmp/d"), 0, true)
	if n.Used || mm.Pages.Used() != used {
		t.Errorf("after the last name and close: used %v, %d pages in use, want %d", n.Used, mm.Pages.Used(), used)
	}
}
