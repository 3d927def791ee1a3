// Procs checks the process layer from inside: process IDs, process
// groups and sessions as Linux gives them to init. Each check prints
// "ok NAME" or "FAIL NAME: why"; the program exits 1 if any failed.
package main

import (
	"fmt"
	"os"
	"syscall"
)

var failed bool

func check(name string, ok bool, format string, args ...any) {
	if ok {
		fmt.Println("ok", name)
		return
	}
	failed = true
	fmt.Printf("FAIL %s: %s\n", name, fmt.Sprintf(format, args...))
}

// errnoOf returns the errno of a raw system call's result.
func errnoOf(_, _ uintptr, e syscall.Errno) syscall.Errno { return e }

func main() {
	ids()
	if failed {
		os.Exit(1)
	}
	fmt.Println("procs ok")
}

// ids: Linux starts init as PID 1 with parent 0, in process group 0
// and session 0 (it inherits them from the kernel's first task); setsid
// makes it the leader of session 1 and group 1, after which setsid
// fails and setpgid may not move a session leader.
func ids() {
	pid, ppid := os.Getpid(), os.Getppid()
	check("pid", pid == 1 && ppid == 0, "pid %d ppid %d, want 1 and 0", pid, ppid)
	pgid, err := syscall.Getpgid(0)
	check("pgid", pgid == 0 && err == nil, "getpgid(0) = %d, %v; want 0", pgid, err)
	pgrp := syscall.Getpgrp()
	check("pgrp", pgrp == 0, "getpgrp() = %d, want 0", pgrp)
	sid, _, e := syscall.RawSyscall(syscall.SYS_GETSID, 0, 0, 0)
	check("sid", sid == 0 && e == 0, "getsid(0) = %d, %v; want 0", sid, e)
	_, err = syscall.Getpgid(4242)
	check("pgid-esrch", err == syscall.ESRCH, "getpgid(4242): %v, want ESRCH", err)
	e = errnoOf(syscall.RawSyscall(syscall.SYS_GETSID, 4242, 0, 0))
	check("sid-esrch", e == syscall.ESRCH, "getsid(4242): %v, want ESRCH", e)
	err = syscall.Setpgid(0, -1)
	check("setpgid-einval", err == syscall.EINVAL, "setpgid(0, -1): %v, want EINVAL", err)
	err = syscall.Setpgid(4242, 0)
	check("setpgid-esrch", err == syscall.ESRCH, "setpgid(4242, 0): %v, want ESRCH", err)
	err = syscall.Setpgid(0, 4242)
	check("setpgid-eperm", err == syscall.EPERM, "setpgid(0, 4242) into no group: %v, want EPERM", err)

	s, err := syscall.Setsid()
	check("setsid", s == 1 && err == nil, "setsid() = %d, %v; want 1", s, err)
	pgid, _ = syscall.Getpgid(0)
	sid, _, _ = syscall.RawSyscall(syscall.SYS_GETSID, 0, 0, 0)
	check("leader", pgid == 1 && sid == 1, "after setsid: pgid %d sid %d, want 1 and 1", pgid, sid)
	_, err = syscall.Setsid()
	check("setsid-eperm", err == syscall.EPERM, "second setsid: %v, want EPERM", err)
	err = syscall.Setpgid(0, 0)
	check("setpgid-leader", err == syscall.EPERM, "setpgid of a session leader: %v, want EPERM", err)
}
