//go:build !arm64

package mount

import (
	"strings"
	"testing"

	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/procfs"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

func reset(t *testing.T) {
	t.Helper()
	usermem.HostReset(256, 4)
	vfs.Reset()
	if !fs.HostReset(64 * mm.PageSize) {
		t.Fatal("fs init")
	}
	devtmpfs = 0
	procfs.Root, procfs.Super = 0, 0
}

// walk looks path up from the root (Follow), failing the test if it
// cannot.
func walk(t *testing.T, path string) fs.Path {
	t.Helper()
	var w fs.Walk
	if _, e := fs.Lookup(&w, fs.RootPath(), []byte(path), fs.Follow); e != 0 {
		t.Fatalf("%s: %v", path, e)
	}
	return w.NodePath()
}

func create(path string, mode uint32) unix.Errno {
	var w fs.Walk
	if e := fs.Resolve(&w, fs.RootPath(), []byte(path), fs.ForCreate); e != 0 {
		return e
	}
	_, e := fs.Create(&w, mode)
	return e
}

func table() string {
	var o procfs.Buf
	WriteMounts(&o)
	return string(o.Bytes())
}

// A tmpfs bounded by nr_inodes, its line in /proc/mounts, its files
// gone with its last mount, and the slot free again.
func TestTmpfsLifecycle(t *testing.T) {
	reset(t)
	if e := create("/mnt", unix.S_IFDIR|0o755); e != 0 {
		t.Fatal(e)
	}
	if e := Mount([]byte("tmpfs"), fs.Path{}, walk(t, "/mnt"), []byte("tmpfs"), 0, []byte("nr_inodes=3,mode=750")); e != 0 {
		t.Fatal(e)
	}
	if got := table(); !strings.Contains(got, "tmpfs /mnt tmpfs rw,relatime,nr_inodes=3,mode=750,inode64 0 0\n") {
		t.Errorf("mounts: %q", got)
	}
	s := fs.Inodes[walk(t, "/mnt").Ino].Super
	if s == 0 {
		t.Fatal("the mount shows the root's instance")
	}
	for _, f := range []string{"/mnt/a", "/mnt/b"} { // the root is the first inode
		if e := create(f, unix.S_IFREG|0o644); e != 0 {
			t.Fatalf("%s: %v", f, e)
		}
	}
	if e := create("/mnt/c", unix.S_IFREG|0o644); e != unix.ENOSPC {
		t.Errorf("past nr_inodes: %v, want ENOSPC", e)
	}
	if e := Umount(walk(t, "/mnt"), 0); e != 0 {
		t.Fatal(e)
	}
	if fs.Supers[s].Used {
		t.Error("the instance outlived its last mount")
	}
	var w fs.Walk
	if _, e := fs.Lookup(&w, fs.RootPath(), []byte("/mnt/a"), 0); e != unix.ENOENT {
		t.Errorf("/mnt/a after umount: %v", e)
	}
	if e := Umount(walk(t, "/mnt"), 0); e != unix.EINVAL {
		t.Errorf("umount of no mount: %v", e)
	}
}

// A bind mount: ".." from its root leaves it; a detached mount with a
// user lives until the user goes.
func TestBindAndDetach(t *testing.T) {
	reset(t)
	for _, d := range []string{"/src", "/src/sub", "/dst"} {
		if e := create(d, unix.S_IFDIR|0o755); e != 0 {
			t.Fatal(e)
		}
	}
	if e := Mount(nil, walk(t, "/src"), walk(t, "/dst"), nil, unix.MS_BIND, nil); e != 0 {
		t.Fatal(e)
	}
	sub := walk(t, "/dst/sub")
	var buf [64]byte
	if n, e := fs.PathOf(sub, buf[:]); e != 0 || string(buf[:n]) != "/dst/sub" {
		t.Errorf("path of /dst/sub: %q %v", buf[:n], e)
	}
	if up := fs.DotDot(fs.DotDot(sub)); up != fs.RootPath() {
		t.Errorf("/dst/sub/../..: %+v", up)
	}
	m := sub.Mnt
	fs.UseMount(m) // a working directory in it
	if e := Umount(walk(t, "/dst"), 0); e != unix.EBUSY {
		t.Errorf("umount with a user: %v, want EBUSY", e)
	}
	if e := Umount(walk(t, "/dst"), unix.MNT_DETACH); e != 0 {
		t.Fatal(e)
	}
	if walk(t, "/dst").Mnt != fs.RootMount || !fs.Mounts[m].Used {
		t.Error("detached: the path should be uncovered and the mount alive while used")
	}
	fs.UnuseMount(m)
	if fs.Mounts[m].Used {
		t.Error("a detached mount outlived its last user")
	}
}

func TestOptions(t *testing.T) {
	SetMemory(1000)
	for _, c := range []struct {
		in     string
		pages  uintptr
		inodes int32
		mode   uint32
		err    unix.Errno
	}{
		{"size=1m", 256, 0, 0o1777, 0},
		{"size=10%,nr_inodes=2k,mode=0700", 100, 2048, 0o700, 0},
		{"size=4097", 2, 0, 0o1777, 0},
		{"uid=0,gid=0,inode64", 0, 0, 0o1777, 0},
		{"size=", 0, 0, 0, unix.EINVAL},
		{"nr_inodes=3%", 0, 0, 0, unix.EINVAL},
		{"mode=8", 0, 0, 0, unix.EINVAL},
		{"bogus", 0, 0, 0, unix.EINVAL},
	} {
		var o options
		e := o.parse([]byte(c.in), true)
		if e != c.err || e == 0 && (o.pages != c.pages || o.inodes != c.inodes || o.mode(0o1777) != c.mode) {
			t.Errorf("%q: %+v %v", c.in, o, e)
		}
	}
}
