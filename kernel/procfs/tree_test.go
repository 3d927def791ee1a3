//go:build !arm64

package procfs

import (
	"strings"
	"testing"

	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
)

// setup gives a fresh file system with /proc mounted and PID 1.
func setup(t *testing.T) int32 {
	t.Helper()
	usermem.HostReset(256, 4)
	vfs.Reset()
	if !fs.HostReset(64 * mm.PageSize) {
		t.Fatal("fs init")
	}
	Root = 0
	proc.Procs = [proc.MaxProcs]proc.Process{}
	proc.FDTables = [proc.MaxProcs]proc.FDTable{}
	proc.New(1, proc.NoParent)
	var w fs.Walk
	if e := fs.Resolve(&w, fs.RootPath(), []byte("/proc"), fs.ForCreate); e != 0 {
		t.Fatal(e)
	}
	d, e := fs.Create(&w, 0o40555)
	if e != 0 {
		t.Fatal(e)
	}
	sb, e := Instance()
	if e != 0 {
		t.Fatal(e)
	}
	if _, e := fs.AddMount(fs.Path{Mnt: w.Mnt, Ino: d}, fs.Supers[sb].Root, sb, 0, []byte("proc")); e != 0 {
		t.Fatal(e)
	}
	return d
}

func lookup(path string) (int32, error) {
	var w fs.Walk
	i, e := fs.Lookup(&w, fs.RootPath(), []byte(path), 0)
	if e != 0 {
		return -1, e
	}
	return i, nil
}

// names lists a directory as getdents does.
func names(dir int32) string {
	var out []string
	for pos := int64(0); ; {
		_, nm, next, ok := fs.Entry(dir, pos)
		if !ok {
			break
		}
		out = append(out, string(nm))
		pos = next
	}
	return strings.Join(out, " ")
}

// /proc follows the process table: a directory per process (zombies
// too) with Linux's entries, gone once the process is reaped; the
// mount shows at /proc, ".." leads back to /, and the tree is
// read-only.
func TestProcTreeFollowsProcesses(t *testing.T) {
	setup(t)
	root, err := lookup("/proc")
	if err != nil || root != Root {
		t.Fatalf("/proc: %d %v (root %d)", root, err, Root)
	}
	if got := names(root); !strings.HasPrefix(got, ". .. self meminfo") || !strings.HasSuffix(got, "version sysrq-trigger 1") {
		t.Errorf("/proc lists %q", got)
	}
	c := proc.New(42, proc.Init)
	if _, err := lookup("/proc/42/status"); err != nil {
		t.Errorf("/proc/42/status: %v", err)
	}
	if got := names(must(t, "/proc/42")); got != ". .. stat status cmdline environ comm maps mounts mountinfo exe cwd root fd task" {
		t.Errorf("/proc/42 lists %q", got)
	}
	// A thread of 42 that does not lead it: /proc/43 is found, not listed.
	ProcessOf = func(tid int32) int32 {
		if tid == 42 || tid == 43 {
			return 42
		}
		return 0
	}
	if i, err := lookup("/proc/43/status"); err != nil || fs.Inodes[i].Synth.Arg != 43 {
		t.Errorf("/proc/43/status: %v", err)
	}
	if got := names(root); strings.Contains(got, "43") {
		t.Errorf("a thread's directory is listed: %q", got)
	}
	if _, err := lookup("/proc/44"); err == nil {
		t.Error("/proc/44 found with no such thread")
	}
	var w fs.Walk
	must(t, "/proc/42")
	if i, e := fs.Lookup(&w, fs.RootPath(), []byte("/proc/42/../.."), 0); e != 0 || i != fs.RootIno {
		t.Errorf("/proc/42/../..: %d %v", i, e)
	}
	proc.Exit(c, proc.Exited(0))
	if _, err := lookup("/proc/42/stat"); err != nil {
		t.Errorf("a zombie's directory: %v", err)
	}
	proc.Reap(c)
	if _, err := lookup("/proc/42"); err == nil {
		t.Error("a reaped process's directory is still there")
	}
	var w2 fs.Walk
	fs.Resolve(&w2, fs.RootPath(), []byte("/proc/new"), fs.ForCreate)
	if _, e := fs.Create(&w2, 0o100644); e == 0 {
		t.Error("a file was made in /proc")
	}
	fs.Resolve(&w2, fs.RootPath(), []byte("/proc"), 0)
	if e := fs.Unlink(&w2, true); e == 0 {
		t.Error("rmdir /proc worked")
	}
}

// A process's fd directory has a link per descriptor, and loses it
// when the descriptor closes.
func TestProcFDs(t *testing.T) {
	setup(t)
	ft := &proc.FDTables[proc.Procs[proc.Init].Files]
	ft.Slots[0].File, ft.Slots[7].File = 1, 1
	if got := names(must(t, "/proc/1/fd")); got != ". .. 0 7" {
		t.Errorf("fd lists %q", got)
	}
	ft.Slots[0].File = 0
	ft.Slots[3].File = 1
	if got := names(must(t, "/proc/1/fd")); got != ". .. 7 3" {
		t.Errorf("after close and open: %q", got)
	}
}

func must(t *testing.T, path string) int32 {
	t.Helper()
	i, err := lookup(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return i
}

func TestBufFormats(t *testing.T) {
	var b Buf
	b.Dec(-42).Byte(' ').Udec(0).Byte(' ').Hex(0xbeef, 8).Byte(' ').Hex(0, 1).Byte(' ').Frac(1234).Byte(' ').Frac(5).Byte('|').Pad(42, 8)
	if got := string(b.Bytes()); got != "-42 0 0000beef 0 12.34 0.05|      42" {
		t.Errorf("got %q", got)
	}
}
