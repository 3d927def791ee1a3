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

// setup empties the file system (an empty initramfs: the root and /tmp)
// with a limit of limitPages pages and returns an app buffer of bufPages
// pages.
func setup(t *testing.T, limitPages, bufPages int) uintptr {
	t.Helper()
	base := usermem.HostReset(testPages, bufPages)
	Archive = nil
	vfs.Reset()
	resetTables()
	if ue, ok := Init(uint64(limitPages) * mm.PageSize); !ok {
		t.Fatalf("init: %+v", ue)
	}
	return base
}

// walk resolves path from the root as a create does (no final symlink
// followed).
func walk(t *testing.T, path string) *Walk {
	t.Helper()
	w := new(Walk)
	if e := Resolve(w, RootPath(), []byte(path), ForCreate); e != 0 {
		t.Fatalf("walk %s: %v", path, e)
	}
	return w
}

func create(t *testing.T, path string, mode uint32) *Inode {
	t.Helper()
	i, e := Create(walk(t, path), mode)
	if e != 0 {
		t.Fatalf("create %s: %v", path, e)
	}
	return &Inodes[i]
}

// open makes a description of n, as openat does.
func open(t *testing.T, n *Inode) *vfs.File {
	t.Helper()
	fi := Open(Path{RootMount, n.Index()}, unix.O_RDWR)
	if fi < 0 {
		t.Fatal("no free description")
	}
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

func lookup(path string) (*Inode, bool) {
	var w Walk
	i, e := Lookup(&w, RootPath(), []byte(path), 0)
	if e != 0 {
		return nil, false
	}
	return &Inodes[i], true
}

// rename walks both paths and renames, as renameat does.
func rename(from, to string) unix.Errno {
	var wf, wt Walk
	if e := Resolve(&wf, RootPath(), []byte(from), ForCreate); e != 0 {
		return e
	}
	if e := Resolve(&wt, RootPath(), []byte(to), ForCreate); e != 0 {
		return e
	}
	return Rename(&wf, &wt)
}

// unlink walks path and unlinks, as unlinkat does.
func unlink(path string, rmdir bool) unix.Errno {
	var w Walk
	if e := Resolve(&w, RootPath(), []byte(path), ForCreate); e != 0 {
		return e
	}
	return Unlink(&w, rmdir)
}

// link walks both paths and links, as linkat does.
func link(from, to string) unix.Errno {
	var wf, wt Walk
	i, e := Lookup(&wf, RootPath(), []byte(from), 0)
	if e != 0 {
		return e
	}
	if e := Resolve(&wt, RootPath(), []byte(to), ForCreate); e != 0 {
		return e
	}
	return Link(i, &wt)
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
		{"/", "/tmp/root", unix.EBUSY},          // the root
		{"/tmp/a", "/tmp/" + strings.Repeat("n", NameMax+1), unix.ENAMETOOLONG},
	} {
		if e := rename(c.from, c.to); e != c.want {
			t.Errorf("rename %s -> %.20s: %v, want %v", c.from, c.to, e, c.want)
		}
	}
	if _, ok := lookup("/tmp/a/f"); !ok {
		t.Fatal("a failed rename moved /tmp/a/f")
	}

	if e := rename("/tmp/a", "/tmp/b"); e != 0 {
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
	if n != f.Impl.(*Inode) {
		t.Error("the open description does not follow its file")
	}
	if got := readAt(t, f, buf, 0, 16); got != "hello" {
		t.Errorf("read after rename = %q", got)
	}

	// Over an existing file: the target is replaced, its old node goes.
	create(t, "/tmp/c", unix.S_IFREG|0o644)
	if e := rename("/tmp/b/f", "/tmp/c"); e != 0 {
		t.Fatalf("rename over a file: %v", e)
	}
	if n, _ := lookup("/tmp/c"); n != f.Impl.(*Inode) {
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
	used := dataPages
	if used == 0 {
		t.Fatal("writing took no pages")
	}

	if e := unlink("/tmp/f", false); e != 0 {
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
	if dataPages < used {
		t.Errorf("pages freed while open: %d < %d", dataPages, used)
	}

	vfs.DecRef(f.Index()) // the last close
	if n.Used {
		t.Error("the node outlived its last description")
	}
	if dataPages != 0 {
		t.Errorf("%d pages still held after the last close", dataPages)
	}
}

// A write whose copy from the app faults keeps nothing past the file's
// end: not the pages it took for the chunk that failed (a file of size 0
// then held them after its last close and name: release frees pages
// below the size), nor the bytes the copy put there before it faulted
// (the file, grown, reads zeros there).
func TestTmpfsFailedWrite(t *testing.T) {
	buf := setup(t, 64, 1)
	n := create(t, "/tmp/f", unix.S_IFREG|0o644)
	f := open(t, n)
	// The app's last 10 bytes, then nothing mapped: a copy of 100
	// bytes from there takes 10 and faults.
	bad := buf + mm.PageSize - 10
	usermem.CopyOut(bad, []byte("0123456789"))
	if r := f.Impl.Write(f, bad, 100, 0); r != vfs.Err(unix.EFAULT) {
		t.Fatalf("write from a buffer running off the app's memory = %#x, want EFAULT", r)
	}
	if dataPages != 0 || n.Size != 0 {
		t.Errorf("a failed write into an empty file kept %d pages, size %d", dataPages, n.Size)
	}
	write(t, f, buf, "abc")
	held := dataPages
	for _, off := range []int64{3, 5000, 1 << 20} {
		if r := f.Impl.Write(f, bad, 100, off); r != vfs.Err(unix.EFAULT) {
			t.Fatalf("write at %d = %#x, want EFAULT", off, r)
		}
	}
	if dataPages != held || n.Size != 3 {
		t.Errorf("failed writes past the end: %d pages (want %d), size %d", dataPages, held, n.Size)
	}
	if e := Truncate(n, 20); e != 0 {
		t.Fatal(e)
	}
	if got := readAt(t, f, buf, 0, 20); got != "abc"+strings.Repeat("\x00", 17) {
		t.Errorf("grown after a failed write, the file reads %q", got)
	}
	vfs.DecRef(f.Index())
	if e := unlink("/tmp/f", false); e != 0 {
		t.Fatal(e)
	}
	if dataPages != 0 {
		t.Errorf("%d pages still held after the last close and name", dataPages)
	}
}

// Unlink answers as unlinkat(2) does, also for paths that end in ".",
// ".." or a slash (Linux's do_rmdir and do_unlinkat; each checked on
// Linux).
func TestUnlinkErrors(t *testing.T) {
	setup(t, 8, 1)
	create(t, "/tmp/d", unix.S_IFDIR|0o755)
	create(t, "/tmp/d/f", unix.S_IFREG|0o644)
	for _, c := range []struct {
		path  string
		rmdir bool
		want  unix.Errno
	}{
		{"/tmp/d", false, unix.EISDIR},
		{"/tmp/d", true, unix.ENOTEMPTY},
		{"/tmp/d/f", true, unix.ENOTDIR},
		{"/tmp/none", false, unix.ENOENT},
		{"/", true, unix.EBUSY},
		{"/", false, unix.EISDIR},
		{"/tmp/d/.", true, unix.EINVAL},
		{"/tmp/d/..", true, unix.ENOTEMPTY},
		{"/tmp/d/.", false, unix.EISDIR},
		{"/tmp/d/f/", false, unix.ENOTDIR},
		{"/tmp/d/f", false, 0},
		{"/tmp/d/", true, 0},
	} {
		if e := unlink(c.path, c.rmdir); e != c.want {
			t.Errorf("unlink %s (rmdir %v) = %v, want %v", c.path, c.rmdir, e, c.want)
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
	// An index page (a small file's index is one page) and three data
	// pages fit in four.
	if r != 3*mm.PageSize {
		t.Fatalf("write past the limit = %#x, want %#x", r, 3*mm.PageSize)
	}
	if r := f.Impl.Write(f, buf, 1, -1); r != vfs.Err(unix.ENOSPC) {
		t.Errorf("write when full = %#x, want ENOSPC", r)
	}
	Truncate(f.Impl.(*Inode), 0)
	if dataPages != 0 {
		t.Errorf("truncate to 0 left %d pages", dataPages)
	}
}

// The tree holds names, not paths: a directory may be deeper than
// PATH_MAX (reached a step at a time, as Go's os tests do with chdir),
// getcwd's path for it is ENAMETOOLONG, a symlink may hold a target of
// PATH_MAX-1 bytes, and everything's pages go back with it.
func TestDeepTree(t *testing.T) {
	setup(t, 64, 1)
	used := mm.Pages.Used()
	name := strings.Repeat("d", NameMax)
	dir := create(t, "/tmp/"+name, unix.S_IFDIR|0o755).Index()
	depth := 1
	var w Walk
	for ; depth < 2*PathMax/NameMax; depth++ {
		if e := Resolve(&w, Path{RootMount, dir}, []byte(name), ForCreate); e != 0 {
			t.Fatalf("walk at depth %d: %v", depth, e)
		}
		i, e := Create(&w, unix.S_IFDIR|0o755)
		if e != 0 {
			t.Fatalf("mkdir at depth %d: %v", depth, e)
		}
		dir = i
	}
	var buf [PathMax]byte
	if _, e := PathOf(Path{RootMount, dir}, buf[:]); e != unix.ENAMETOOLONG {
		t.Errorf("the path of a directory %d names deep: %v, want ENAMETOOLONG", depth, e)
	}
	// Up by "..", from the bottom, to where the path fits again.
	up := strings.Repeat("../", depth-PathMax/(NameMax+1)+1)
	i, e := Lookup(&w, Path{RootMount, dir}, []byte(up), 0)
	if e != 0 {
		t.Fatalf("lookup %d x ..: %v", depth-PathMax/(NameMax+1)+1, e)
	}
	n, e := PathOf(Path{RootMount, i}, buf[:])
	if e != 0 || !strings.HasPrefix(string(buf[:n]), "/tmp/"+name+"/"+name) {
		t.Errorf("path of an ancestor: %.40q, %v", buf[:n], e)
	}
	if e := Resolve(&w, RootPath(), []byte("/tmp/"+name+"d"), 0); e != unix.ENAMETOOLONG {
		t.Errorf("a %d-byte name: %v, want ENAMETOOLONG", NameMax+1, e)
	}
	if e := Resolve(&w, RootPath(), make([]byte, PathMax+1), 0); e != unix.ENAMETOOLONG {
		t.Errorf("a %d-byte path: %v, want ENAMETOOLONG", PathMax+1, e)
	}
	target := strings.Repeat("/"+name, PathMax/(NameMax+1)-1)
	link := create(t, "/tmp/l", unix.S_IFLNK|0o777)
	if e := link.SetLink([]byte("/tmp" + target)); e != 0 {
		t.Fatalf("a %d-byte symlink: %v", len(target)+4, e)
	}
	if e := link.SetLink(make([]byte, PathMax)); e != unix.ENAMETOOLONG {
		t.Errorf("a symlink of PATH_MAX bytes: %v", e)
	}
	link.SetLink([]byte("/tmp" + target))
	if i, e := Lookup(&w, RootPath(), []byte("/tmp/l"), Follow); e != 0 || !Inodes[i].IsDir() {
		t.Errorf("following the long symlink: %v", e)
	}
	// rmdir from the bottom up, each by ".." from below.
	for ; depth > 0; depth-- {
		parent := Parent(dir)
		if e := Resolve(&w, Path{RootMount, parent}, []byte(name), ForCreate); e != 0 || w.Node != dir {
			t.Fatalf("walk to rmdir at depth %d: %v", depth, e)
		}
		if e := Unlink(&w, true); e != 0 {
			t.Fatalf("rmdir at depth %d: %v", depth, e)
		}
		dir = parent
	}
	unlink("/tmp/l", false)
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
		if e := link(c.from, c.to); e != c.want {
			t.Errorf("link %s %s = %v, want %v", c.from, c.to, e, c.want)
		}
	}
	if m, ok := lookup("/tmp/d/b"); !ok || m != n {
		t.Fatal("the new name does not lead to the file")
	}
	if st := n.Stat(f); st.Nlink != 2 {
		t.Errorf("st_nlink = %d, want 2", st.Nlink)
	}
	d, _ := lookup("/tmp/d")
	if i, name, _, ok := Entry(d.Index(), firstEntryPos); !ok || string(name) != "b" || &Inodes[i] != n {
		t.Errorf("the directory lists %q", name)
	}
	// rename(2) of one name onto another of the same file does nothing.
	if e := rename("/tmp/a", "/tmp/d/b"); e != 0 {
		t.Errorf("rename onto a name of the same file: %v", e)
	}
	if _, ok := lookup("/tmp/a"); !ok {
		t.Error("rename onto another name of the same file removed the source")
	}
	if e := unlink("/tmp/a", false); e != 0 {
		t.Fatalf("unlink: %v", e)
	}
	if got := readAt(t, f, buf, 0, 16); got != "shared" || !n.Used {
		t.Errorf("after unlinking one name: %q, used %v", got, n.Used)
	}
	if st := n.Stat(f); st.Nlink != 1 {
		t.Errorf("st_nlink = %d after unlinking one name, want 1", st.Nlink)
	}
	unlink("/tmp/d/b", false)
	if !n.Used {
		t.Error("the file went with its last name while open")
	}
	vfs.DecRef(f.Index())
	unlink("/tmp/d", true)
	if n.Used || mm.Pages.Used() != used {
		t.Errorf("after the last name and close: used %v, %d pages in use, want %d", n.Used, mm.Pages.Used(), used)
	}
}

// fallocate takes a file's pages now: the size grows (not with
// KEEP_SIZE, which takes none past it), a range that does not fit is
// ENOSPC with nothing kept past the size, and MapPage and CachedPage
// answer what a mapping's fault finds: SIGBUS at and past the end.
func TestTmpfsFallocateAndMapPage(t *testing.T) {
	setup(t, 8, 1)
	if !mm.Pages.InitRefs() { // counts per frame, as the kernel has them
		t.Fatal("InitRefs")
	}
	n := create(t, "/tmp/f", unix.S_IFREG|0o644)
	if e := Fallocate(n, 0, 3*mm.PageSize, false); e != 0 || n.Size != 3*mm.PageSize || dataPages != 4 {
		t.Fatalf("fallocate: %v, size %d, %d pages (want 3 data and 1 index)", e, n.Size, dataPages)
	}
	if e := Fallocate(n, 0, 5*mm.PageSize, true); e != 0 || n.Size != 3*mm.PageSize || dataPages != 4 {
		t.Fatalf("KEEP_SIZE: %v, size %d, %d pages", e, n.Size, dataPages)
	}
	if e := Fallocate(n, 0, 9*mm.PageSize, false); e != unix.ENOSPC || n.Size != 3*mm.PageSize || dataPages != 4 {
		t.Fatalf("past the limit: %v, size %d, %d pages", e, n.Size, dataPages)
	}
	p, r := MapPage(n.Index(), 2*mm.PageSize)
	if r != mm.FaultOK || p == 0 || CachedPage(n.Index(), 2*mm.PageSize) != p {
		t.Fatalf("MapPage in the file: %#x %d", p, r)
	}
	if MappedPages() != 0 || !mm.Pages.Ref(p) || MappedPages() != 1 {
		t.Fatalf("Mapped: %d pages with a mapping's count on one", MappedPages())
	}
	mm.Pages.Unref(p)
	if _, r := MapPage(n.Index(), 3*mm.PageSize); r != mm.FaultBus || CachedPage(n.Index(), 3*mm.PageSize) != 0 {
		t.Fatalf("MapPage at the end: %d", r)
	}
}

// A directory renamed inside a mounted instance that is not the root
// file system: the check that it does not move into itself climbs to
// the instance's root, whose parent is itself, and stops there (it
// looped forever, a hang the os suite found on a share).
func TestRenameInMountedInstance(t *testing.T) {
	setup(t, 64, 1)
	create(t, "/mnt", unix.S_IFDIR|0o755)
	s, e := NewSuper(TypeTmpfs, 0o755)
	if e != 0 {
		t.Fatal(e)
	}
	mnt, _ := lookup("/mnt")
	if _, e := AddMount(Path{RootMount, mnt.Index()}, Supers[s].Root, s, 0, []byte("tmpfs")); e != 0 {
		t.Fatal(e)
	}
	create(t, "/mnt/a", unix.S_IFDIR|0o755)
	create(t, "/mnt/a/sub", unix.S_IFDIR|0o755)
	if e := rename("/mnt/a/sub", "/mnt/b"); e != 0 {
		t.Fatalf("rename /mnt/a/sub /mnt/b: %v", e)
	}
	if e := rename("/mnt/a", "/mnt/a/in"); e != unix.EINVAL {
		t.Errorf("rename into itself: %v, want EINVAL", e)
	}
	if _, ok := lookup("/mnt/b"); !ok {
		t.Error("/mnt/b missing")
	}
}

// A file's index is as tall as its last page needs: one index page for
// a small file, new roots over the old as it grows (a page at 5 GiB is
// height 3), the same pages found after each growth, and truncation
// giving back every index page it empties.
func TestIndexGrows(t *testing.T) {
	buf := setup(t, 64, 1)
	n := create(t, "/tmp/tall", unix.S_IFREG|0o644)
	f := open(t, n)
	put := func(off int64, b byte) {
		t.Helper()
		usermem.CopyOut(buf, []byte{b})
		if r := f.Impl.Write(f, buf, 1, off); r != 1 {
			t.Fatalf("write at %d: %#x", off, r)
		}
	}
	put(0, 'a')
	if n.height != 1 || dataPages != 2 {
		t.Fatalf("a one-page file: height %d, %d pages, want 1 and 2", n.height, dataPages)
	}
	at := []int64{3 << 20, 5 << 30, 1 << 40}
	for k, off := range at {
		put(off, byte('b'+k))
	}
	if n.height != 4 {
		t.Fatalf("a page at 1 TiB: height %d, want 4", n.height)
	}
	// Every page is found again under the new roots.
	for k, off := range append([]int64{0}, at...) {
		p := page(n, off, false)
		if want := byte('a' + k); p == 0 || mm.PageBytes(p)[off%mm.PageSize] != want {
			t.Fatalf("page at %d after growing: %#x", off, p)
		}
	}
	if page(n, 2<<30, false) != 0 {
		t.Fatal("a hole at 2 GiB has a page")
	}
	if r := f.Impl.Write(f, buf, 1, MaxSize); r != vfs.Err(unix.EFBIG) {
		t.Errorf("a write at MaxSize: %#x, want EFBIG", r)
	}
	held := dataPages
	Truncate(n, 4<<20) // drops the pages at 5 GiB and 1 TiB and their index paths
	if page(n, 3<<20, false) == 0 || page(n, 5<<30, false) != 0 || dataPages >= held-2 {
		t.Fatalf("truncate to 4 MiB: %d pages (were %d)", dataPages, held)
	}
	Truncate(n, 0)
	if dataPages != 0 || n.root != 0 || n.height != 0 {
		t.Fatalf("truncate to 0: %d pages, root %#x, height %d", dataPages, n.root, n.height)
	}
	vfs.DecRef(f.Index())
}
