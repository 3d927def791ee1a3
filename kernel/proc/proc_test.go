package proc

import (
	"testing"

	"golang.org/x/sys/unix"
)

func reset() { Procs = [MaxProcs]Process{} }

// fork makes a child of parent with TID pid and SIGCHLD as its exit
// signal, as fork does.
func fork(t *testing.T, parent, pid int32) int32 {
	t.Helper()
	c := New(pid, parent)
	if c < 0 {
		t.Fatalf("no slot for pid %d", pid)
	}
	Procs[c].ExitSignal = sigCHLD
	Procs[c].Threads = 1
	return c
}

func TestInitAndIDs(t *testing.T) {
	reset()
	init := New(1, NoParent)
	if init != Init || PPID(init) != 0 || Procs[init].PGID != 0 || Procs[init].SID != 0 {
		t.Fatalf("init: slot %d ppid %d %+v", init, PPID(init), Procs[init])
	}
	c := fork(t, init, 7)
	if PPID(c) != 1 || ByPID(7) != c || ByPID(8) != -1 || ByPID(0) != -1 {
		t.Errorf("child: ppid %d, ByPID(7) %d", PPID(c), ByPID(7))
	}
	SetComm(init, []byte("/usr/local/bin/a-very-long-program-name"))
	if got := string(Procs[init].Comm[:15]); got != "a-very-long-pro" || Procs[init].Comm[15] != 0 {
		t.Errorf("comm %q", Procs[init].Comm)
	}
	if g := fork(t, init, 8); Procs[g].Comm != Procs[init].Comm {
		t.Errorf("a child starts with its parent's comm")
	}
}

func TestTableFull(t *testing.T) {
	reset()
	New(1, NoParent)
	for i := 1; i < MaxProcs; i++ {
		if New(int32(100+i), Init) < 0 {
			t.Fatalf("table full after %d", i)
		}
	}
	if New(999, Init) != -1 || Count() != MaxProcs {
		t.Errorf("a full table gave a slot (count %d)", Count())
	}
}

// Wait statuses as glibc's macros read them.
func TestStatus(t *testing.T) {
	ws := unix.WaitStatus(Exited(3))
	if !ws.Exited() || ws.ExitStatus() != 3 {
		t.Errorf("Exited(3) = %#x", ws)
	}
	ws = unix.WaitStatus(Signaled(9, false))
	if !ws.Signaled() || ws.Signal() != unix.SIGKILL || ws.CoreDump() {
		t.Errorf("Signaled(9) = %#x", ws)
	}
	if ws = unix.WaitStatus(Signaled(11, true)); !ws.CoreDump() || ws.Signal() != unix.SIGSEGV {
		t.Errorf("Signaled(11, core) = %#x", ws)
	}
	if ws = unix.WaitStatus(Stopped(19)); !ws.Stopped() || ws.StopSignal() != unix.SIGSTOP {
		t.Errorf("Stopped(19) = %#x", ws)
	}
	if ws = unix.WaitStatus(Continued); !ws.Continued() {
		t.Errorf("Continued = %#x", ws)
	}
}

func TestWaitSelection(t *testing.T) {
	reset()
	init := New(1, NoParent)
	a := fork(t, init, 10)
	b := fork(t, init, 11)
	Procs[b].PGID = 11
	cl := New(12, init) // a clone child: exit signal 0
	Procs[cl].Threads = 1

	if z, m := FindZombie(init, WaitAny, 0, NormalChildren); z != -1 || !m {
		t.Errorf("no zombie yet: %d %v", z, m)
	}
	Exit(b, Exited(5))
	if z, m := FindZombie(init, WaitAny, 0, NormalChildren); z != b || !m {
		t.Errorf("any: %d %v", z, m)
	}
	if z, m := FindZombie(init, WaitPID, 10, NormalChildren); z != -1 || !m {
		t.Errorf("pid 10 lives: %d %v", z, m)
	}
	if _, m := FindZombie(init, WaitPID, 99, NormalChildren); m {
		t.Errorf("pid 99 is no child")
	}
	if z, _ := FindZombie(init, WaitPGID, 11, NormalChildren); z != b {
		t.Errorf("group 11: %d", z)
	}
	// wait4(0) in group 0 sees a (group 0), not b (group 11).
	w, id := Select(0, Procs[init].PGID)
	if z, m := FindZombie(init, w, id, NormalChildren); z != -1 || !m {
		t.Errorf("own group: %d %v", z, m)
	}
	// A clone child is seen only with __WCLONE or __WALL.
	Exit(cl, Exited(0))
	if z, _ := FindZombie(init, WaitPID, 12, NormalChildren); z != -1 {
		t.Errorf("clone child without __WCLONE")
	}
	if z, _ := FindZombie(init, WaitPID, 12, CloneChildren); z != cl {
		t.Errorf("__WCLONE")
	}
	if z, _ := FindZombie(init, WaitPID, 12, AllChildren); z != cl {
		t.Errorf("__WALL")
	}
	if z, _ := FindZombie(init, WaitPID, 10, CloneChildren); z != -1 {
		t.Errorf("__WCLONE takes a SIGCHLD child")
	}
	Reap(b)
	if ByPID(11) != -1 {
		t.Errorf("reaped pid still found")
	}
	_ = a
	if w, id := Select(-7, 0); w != WaitPGID || id != 7 {
		t.Errorf("Select(-7) = %d %d", w, id)
	}
	if w, _ := Select(-1, 0); w != WaitAny {
		t.Errorf("Select(-1)")
	}
}

// Orphans go to the nearest live subreaper, else to PID 1.
func TestReparent(t *testing.T) {
	reset()
	init := New(1, NoParent)
	sub := fork(t, init, 2)
	Procs[sub].Subreaper = true
	mid := fork(t, sub, 3)
	leaf := fork(t, mid, 4)
	if r := Exit(mid, Exited(0)); r != sub || Procs[leaf].Parent != sub {
		t.Errorf("to the subreaper: reaper %d, parent %d", r, Procs[leaf].Parent)
	}
	Exit(sub, Exited(0))
	if Procs[leaf].Parent != init {
		t.Errorf("to init: parent %d", Procs[leaf].Parent)
	}
	if Reaper(init) != NoParent {
		t.Errorf("init has no reaper")
	}
}

func TestSetpgidSetsid(t *testing.T) {
	reset()
	init := New(1, NoParent)
	sh := fork(t, init, 2)
	if sid, e := Setsid(sh); e != 0 || sid != 2 || Procs[sh].PGID != 2 {
		t.Fatalf("setsid: %d %v", sid, e)
	}
	if _, e := Setsid(sh); e != unix.EPERM {
		t.Errorf("second setsid: %v", e)
	}
	if e := Setpgid(sh, 0, 0); e != unix.EPERM {
		t.Errorf("a session leader's setpgid: %v", e)
	}
	job := fork(t, sh, 3)
	if e := Setpgid(sh, 3, 0); e != 0 || Procs[job].PGID != 3 {
		t.Errorf("setpgid(child, 0): %v pgid %d", e, Procs[job].PGID)
	}
	job2 := fork(t, sh, 4)
	if e := Setpgid(sh, 4, 3); e != 0 || Procs[job2].PGID != 3 {
		t.Errorf("into an existing group: %v", e)
	}
	if e := Setpgid(sh, 4, 99); e != unix.EPERM {
		t.Errorf("into no group: %v", e)
	}
	if e := Setpgid(sh, 1, 0); e != unix.ESRCH {
		t.Errorf("a non-child: %v", e)
	}
	if e := Setpgid(sh, 4, -1); e != unix.EINVAL {
		t.Errorf("negative pgid: %v", e)
	}
	Procs[job2].Execed = true
	if e := Setpgid(sh, 4, 4); e != unix.EACCES {
		t.Errorf("an exec'd child: %v", e)
	}
	// A child that made its own session is out of reach.
	Setsid(job2)
	Procs[job2].Execed = false
	if e := Setpgid(sh, 4, 3); e != unix.EPERM {
		t.Errorf("a child in another session: %v", e)
	}
	if !GroupExists(3) || GroupExists(77) {
		t.Errorf("GroupExists")
	}
}

// The controlling terminal follows the process: fork passes it on,
// setsid drops it, and the console leaving a session takes it from
// every process of that session.
func TestControllingTerminalFlag(t *testing.T) {
	reset()
	init := New(1, NoParent)
	sh := fork(t, init, 2)
	Setsid(sh)
	Procs[sh].CTTY = true
	job := fork(t, sh, 3)
	if !Procs[job].CTTY || !Leader(sh) || Leader(job) || Leader(init) {
		t.Fatalf("fork: ctty %v; leaders %v %v %v", Procs[job].CTTY, Leader(sh), Leader(job), Leader(init))
	}
	other := fork(t, sh, 4)
	Setsid(other)
	if Procs[other].CTTY {
		t.Errorf("setsid kept the controlling terminal")
	}
	Procs[other].CTTY = true // pretend it took another one
	ClearCTTY(2)
	if Procs[sh].CTTY || Procs[job].CTTY || !Procs[other].CTTY {
		t.Errorf("ClearCTTY(2): %v %v %v", Procs[sh].CTTY, Procs[job].CTTY, Procs[other].CTTY)
	}
}

// TIOCSPGRP's lookup: a group's session, else a process's, else a
// session's ID that names neither (no session), else nothing.
func TestSessionOfGroup(t *testing.T) {
	reset()
	init := New(1, NoParent) // group 0, session 0
	sh := fork(t, init, 2)
	Setsid(sh)
	fork(t, sh, 3)
	Setpgid(sh, 3, 0)
	fork(t, sh, 4)
	Setpgid(sh, 4, 3)
	for _, c := range []struct {
		id, sid int32
		ok      bool
	}{
		{3, 2, true},  // a group
		{4, 2, true},  // a member's PID
		{1, 0, true},  // PID 1, which leads no group: its session
		{0, 0, false}, // no ID
		{9, 0, false},
	} {
		if sid, ok := SessionOfGroup(c.id); sid != c.sid || ok != c.ok {
			t.Errorf("SessionOfGroup(%d) = %d, %v; want %d, %v", c.id, sid, ok, c.sid, c.ok)
		}
	}
	// The leader gone (reaped) and its group empty, its session's ID
	// names no session.
	Exit(sh, Exited(0))
	Reap(sh)
	if sid, ok := SessionOfGroup(2); !ok || sid == 2 {
		t.Errorf("a session's ID with no group or process: %d, %v; want found, no session", sid, ok)
	}
}

// A group is orphaned when no live member's parent is in another group
// of its session; PID 1 as the parent connects nothing.
func TestOrphanedGroup(t *testing.T) {
	reset()
	init := New(1, NoParent)
	sh := fork(t, init, 2)
	Setsid(sh)
	job := fork(t, sh, 3)
	Setpgid(sh, 3, 0)
	if OrphanedGroup(3, -1) {
		t.Errorf("a job whose parent is its shell is orphaned")
	}
	if !OrphanedGroup(2, -1) {
		t.Errorf("the shell's group (its parent PID 1) is not orphaned")
	}
	if !OrphanedGroup(3, job) {
		t.Errorf("ignoring its only member, a group is not orphaned")
	}
	// The shell exits: the job goes to PID 1 and is orphaned.
	Exit(sh, Exited(0))
	if !OrphanedGroup(3, -1) {
		t.Errorf("a job adopted by PID 1 is not orphaned")
	}
	// A parent in another session does not connect either.
	reset()
	init = New(1, NoParent)
	a := fork(t, init, 2)
	Setsid(a)
	b := fork(t, a, 3)
	Setsid(b)
	if !OrphanedGroup(3, -1) {
		t.Errorf("a leader whose parent is in another session: not orphaned")
	}
}

// CLONE_PARENT: the child's parent is the caller's parent, but its
// group, session and credentials are the caller's (copy_process).
func TestNewFromCaller(t *testing.T) {
	reset()
	init := New(1, NoParent)
	caller := fork(t, init, 2)
	Setsid(caller)
	Procs[caller].Cred.User.E = 1000
	c := NewFrom(3, init, caller)
	if p := &Procs[c]; p.Parent != init || p.PGID != 2 || p.SID != 2 || p.Cred.User.E != 1000 {
		t.Errorf("parent %d, group %d, session %d, euid %d; want init's child in the caller's group 2, session 2, euid 1000",
			p.Parent, p.PGID, p.SID, p.Cred.User.E)
	}
}
