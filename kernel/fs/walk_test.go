//go:build !arm64

package fs

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func symlink(t *testing.T, path, target string) {
	t.Helper()
	if e := create(t, path, unix.S_IFLNK|0o777).SetLink([]byte(target)); e != 0 {
		t.Fatalf("symlink %s: %v", path, e)
	}
}

// Paths are walked a component at a time, as Linux walks them
// (path_resolution(7)); each case was checked against Linux on the
// same tree.
func TestResolveWalksLikeLinux(t *testing.T) {
	setup(t, 8, 1)
	create(t, "/tmp/b", unix.S_IFDIR|0o755)
	create(t, "/tmp/b/c", unix.S_IFDIR|0o755)
	create(t, "/tmp/f", unix.S_IFREG|0o644)
	symlink(t, "/tmp/a", "b/c")
	symlink(t, "/tmp/abs", "/tmp/b")
	symlink(t, "/tmp/loop", "loop")
	symlink(t, "/tmp/dangling", "nope")
	symlink(t, "/tmp/tofile", "f")

	const dir, dot, dotdot = TailDir, TailDot, TailDotDot
	for _, c := range []struct {
		base, p string
		follow  bool
		want    string
		tail    Tail
		err     unix.Errno
	}{
		{"/tmp", "a/..", false, "/tmp/b", dir | dotdot, 0}, // .. after a symlink is physical
		{"/tmp", "a", false, "/tmp/a", 0, 0},
		{"/tmp", "a", true, "/tmp/b/c", 0, 0},
		{"/tmp", "a/", false, "/tmp/a", dir, 0}, // left for the caller: a lookup follows, mkdir does not
		{"/tmp", "a/", true, "/tmp/b/c", dir, 0},
		{"/tmp", "a/.", false, "/tmp/b/c", dir | dot, 0},
		{"/tmp", "abs/c/../c", false, "/tmp/b/c", 0, 0},
		{"/tmp", "f/.", false, "", 0, unix.ENOTDIR},
		{"/tmp", "f/", false, "", 0, unix.ENOTDIR},
		{"/tmp", "f/..", false, "", 0, unix.ENOTDIR},
		{"/tmp", "tofile/", true, "", 0, unix.ENOTDIR},
		{"/tmp", "loop/x", false, "", 0, unix.ELOOP},
		{"/tmp", "loop", true, "", 0, unix.ELOOP},
		{"/tmp", "missing/x", false, "", 0, unix.ENOENT},
		{"/tmp", "missing", false, "/tmp/missing", 0, 0}, // to create
		{"/tmp", "new/", false, "/tmp/new", dir, 0},      // mkdir("new/") makes it
		{"/tmp", "dangling", true, "/tmp/nope", 0, 0},    // O_CREAT creates the target
		{"/tmp", "../../../tmp", false, "/tmp", 0, 0},
		{"/tmp/b", "/tmp//b/./c/", false, "/tmp/b/c", dir, 0},
		{"/", ".", false, "/", dot, 0},
		{"/tmp/b/c", "..", false, "/tmp/b", dir | dotdot, 0},
	} {
		var base Walk
		b, e := Lookup(&base, RootPath(), []byte(c.base), 0)
		if e != 0 {
			t.Fatalf("lookup %s: %v", c.base, e)
		}
		var w Walk
		flags := ForCreate
		if c.follow {
			flags = Follow
		}
		e = Resolve(&w, Path{RootMount, b}, []byte(c.p), flags)
		got := ""
		if e == 0 {
			got = walkPath(t, &w)
		}
		if e != c.err || e == 0 && (got != c.want || w.Tail != c.tail) {
			t.Errorf("Resolve(%q, %q, follow=%v) = %q, tail %b, %v; want %q, %b, %v", c.base, c.p, c.follow, got, w.Tail, e, c.want, c.tail, c.err)
		}
	}
}

// walkPath is the absolute path of where a walk ended.
func walkPath(t *testing.T, w *Walk) string {
	t.Helper()
	var buf [PathMax]byte
	if w.nameLen == 0 {
		n, e := PathOf(w.NodePath(), buf[:])
		if e != 0 {
			t.Fatalf("path of %d: %v", w.Node, e)
		}
		return string(buf[:n])
	}
	n, e := PathOf(w.DirPath(), buf[:])
	if e != 0 {
		t.Fatalf("path of %d: %v", w.Dir, e)
	}
	return strings.TrimSuffix(string(buf[:n]), "/") + "/" + string(w.Name())
}
