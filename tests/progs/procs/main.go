// Procs checks the process layer from inside: process IDs, process
// groups and sessions as Linux gives them to init; fork and vfork made
// with raw clone calls (the child runs only raw system calls: a forked Go
// program has one thread, and a vfork child runs on its parent's stack),
// wait4 and waitid, signals between processes, orphans. Each check
// prints "ok NAME" or "FAIL NAME: why"; the program exits 1 if any
// failed. With arguments it runs only the named parts.
package main

import (
	"errors"
	"fmt"
	"github.com/gometal/gometal/tests/progs/internal/guest"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// check prints "ok NAME" or "FAIL NAME: why".
var check = guest.Checkf

// errnoOf returns the errno of a raw system call's result.
func errnoOf(_, _ uintptr, e syscall.Errno) syscall.Errno { return e }

var parts = map[string]func(){
	"ids":      ids,
	"fork":     forkWait,
	"vfork":    vforkWait,
	"waitopts": waitOptions,
	"kill":     killChild,
	"orphan":   orphan,
	"exec":     execs,
	"hang":     hang,
	"stop":     stopCont,
	"bomb":     forkBomb,
	"pidfd":    pidfds,
	"prctl":    prctls,
	"rusage":   rusage,
	"rtqueue":  rtQueue,
	"clone3":   clone3,
	"sysrq":    sysrqTrigger,
	"memory":   memoryReturns,
	"oom":      oomKill,
	"cow":      cowFork,
	"asid":     asidSpaces,
	"jobctl":   jobctl,
	"intr":     intr,
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		child(os.Args[2:])
		return
	}
	// As Linux's init in a bare initramfs (the reference run), make what
	// os/exec and the checks expect: /tmp, /dev/null, /proc (for
	// os.Executable; gometal answers /proc/self/exe without a /proc, and
	// has no mount yet).
	os.MkdirAll("/tmp", 0o1777)
	if _, err := os.Stat("/proc/self"); err != nil {
		os.MkdirAll("/proc", 0o555)
		syscall.Mount("proc", "/proc", "proc", 0, "")
	}
	if _, err := os.Stat("/dev/null"); err != nil {
		syscall.Mknod("/dev/null", syscall.S_IFCHR|0o666, 1<<8|3)
	}
	if _, err := os.Stat("/dev/tty"); err != nil {
		syscall.Mknod("/dev/tty", syscall.S_IFCHR|0o666, 5<<8|0)
	}
	names := os.Args[1:]
	if len(names) == 0 {
		names = []string{"ids", "fork", "vfork", "waitopts", "kill", "orphan", "exec", "stop", "pidfd", "prctl", "rusage", "rtqueue", "clone3"}
	}
	for _, n := range names {
		f, ok := parts[n]
		if !ok {
			fmt.Println("FAIL usage: no part", n)
			os.Exit(2)
		}
		f()
	}
	if guest.Failed() {
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

// Raw process calls. The child side of each runs nothing but these.
// They are nosplit: a forked child of a Go program has one thread, and
// a function prologue that finds its goroutine asked to yield (sysmon
// poisons the stack bound to preempt it) would enter the scheduler,
// which waits forever for Ms the child does not have.

func rawClone(flags uintptr) (int, syscall.Errno) {
	r, _, e := syscall.RawSyscall6(syscall.SYS_CLONE, flags, 0, 0, 0, 0, 0)
	return int(r), e
}

//go:nosplit
func rawExit(code uintptr) {
	for {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, code, 0, 0)
	}
}

//go:nosplit
func rawWrite(fd int, b []byte) {
	syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
}

// tostopMsg is what jobctl's background writer writes.
var tostopMsg = []byte("jobctl: a background write, SIGTTOU ignored\n")

// marker is changed by a forked child, which must not change the
// parent's copy.
var marker = [8]byte{'p', 'a', 'r', 'e', 'n', 't', '!', '\n'}

func wait(pid int, opts int) (int, syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	got, err := syscall.Wait4(pid, &ws, opts, nil)
	return got, ws, err
}

// fork: the child gets a copy of the memory and the descriptors, its
// own PID with the parent's as its parent, and its exit status reaches
// wait4.
func forkWait() {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		check("fork-pipe", false, "pipe2: %v", err)
		return
	}
	me := uintptr(os.Getpid())
	pid, e := rawClone(uintptr(syscall.SIGCHLD))
	if pid == 0 {
		// The child: its own PID, the parent's, a write through the
		// copied descriptor, a change to its copy of marker.
		mypid, _, _ := syscall.RawSyscall(syscall.SYS_GETPID, 0, 0, 0)
		ppid, _, _ := syscall.RawSyscall(syscall.SYS_GETPPID, 0, 0, 0)
		marker[0] = 'c'
		rawWrite(p[1], marker[:])
		if mypid == me || ppid != me {
			rawExit(99)
		}
		rawExit(42)
	}
	check("fork", e == 0 && pid > 1, "clone(SIGCHLD) = %d, %v", pid, e)
	syscall.Close(p[1])
	buf := make([]byte, 16)
	n, _ := syscall.Read(p[0], buf)
	check("fork-pipe", string(buf[:n]) == "carent!\n", "the child wrote %q through the copied descriptor", buf[:n])
	check("fork-copy", marker[0] == 'p', "the child's store reached the parent's memory")
	got, ws, err := wait(pid, 0)
	check("fork-wait", got == pid && err == nil && ws.Exited() && ws.ExitStatus() == 42,
		"wait4(%d) = %d, %v, status %#x; want exit 42", pid, got, err, uint32(ws))
	_, _, err = wait(pid, 0)
	check("fork-reaped", err == syscall.ECHILD, "second wait4: %v, want ECHILD", err)
	syscall.Close(p[0])
}

// vforkShared is set by a vfork child, in its parent's memory (a global:
// the store must not be optimized away as dead on the child's path).
var vforkShared byte

// vfork: the child runs on the parent's memory while the parent's
// thread waits for it to exit; the parent then gets the child's PID.
func vforkWait() {
	pid, e := rawClone(syscall.CLONE_VM | syscall.CLONE_VFORK | uintptr(syscall.SIGCHLD))
	if pid == 0 {
		vforkShared = 'v' // the parent's own memory
		rawExit(7)
	}
	check("vfork", e == 0 && pid > 1, "clone(CLONE_VM|CLONE_VFORK) = %d, %v", pid, e)
	check("vfork-shared", vforkShared == 'v', "the vfork child's store is not in the parent's memory")
	got, ws, err := wait(pid, 0)
	check("vfork-wait", got == pid && err == nil && ws.Exited() && ws.ExitStatus() == 7,
		"wait4 = %d, %v, status %#x; want exit 7", got, err, uint32(ws))
}

// waitopts: WNOHANG before the child ends, ECHILD for no such child,
// waitid with WNOWAIT leaves the zombie for wait4, and a SIGCHLD comes.
func waitOptions() {
	_, _, err := wait(-1, 0)
	check("wait-echild", err == syscall.ECHILD, "wait4(-1) with no children: %v, want ECHILD", err)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGCHLD)
	defer signal.Stop(sigs)
	var p [2]int
	syscall.Pipe2(p[:], 0)
	pid, _ := rawClone(uintptr(syscall.SIGCHLD))
	if pid == 0 {
		var b [1]byte
		syscall.RawSyscall(syscall.SYS_READ, uintptr(p[0]), uintptr(unsafe.Pointer(&b[0])), 1)
		rawExit(uintptr(b[0]))
	}
	got, _, err := wait(pid, syscall.WNOHANG)
	check("wait-wnohang", got == 0 && err == nil, "WNOHANG on a running child: %d, %v; want 0", got, err)
	_, _, err = wait(pid+1000, 0)
	check("wait-notchild", err == syscall.ECHILD, "wait4 of no child: %v, want ECHILD", err)
	syscall.Write(p[1], []byte{5})
	var info [128]byte
	_, _, e := syscall.Syscall6(syscall.SYS_WAITID, 1 /* P_PID */, uintptr(pid), uintptr(unsafe.Pointer(&info[0])),
		syscall.WEXITED|0x1000000 /* WNOWAIT */, 0, 0)
	signo := *(*int32)(unsafe.Pointer(&info[0]))
	code := *(*int32)(unsafe.Pointer(&info[8]))
	ipid := *(*int32)(unsafe.Pointer(&info[16]))
	status := *(*int32)(unsafe.Pointer(&info[24]))
	check("waitid-wnowait", e == 0 && signo == int32(syscall.SIGCHLD) && code == 1 && ipid == int32(pid) && status == 5,
		"waitid: %v signo %d code %d pid %d status %d; want SIGCHLD CLD_EXITED %d 5", e, signo, code, ipid, pid, status)
	got, ws, err := wait(-1, 0)
	check("wait-after-wnowait", got == pid && ws.ExitStatus() == 5, "wait4(-1) after WNOWAIT: %d %v %#x", got, err, uint32(ws))
	select {
	case <-sigs:
		fmt.Println("ok sigchld")
	case <-time.After(5 * time.Second):
		check("sigchld", false, "no SIGCHLD within 5s")
	}
	syscall.Close(p[0])
	syscall.Close(p[1])
	waitFault()
}

// waitFault: a wait whose status, siginfo or rusage cannot be written
// still collects what it found: the zombie is reaped (or the stop
// report taken) and then the call answers EFAULT, as Linux writes them
// only after do_wait (kernel_wait4, the waitid syscall).
func waitFault() {
	const bad = 8 // an address nothing maps
	for _, c := range []struct {
		name string
		call func(pid int) syscall.Errno
	}{
		{"wait4-status", func(pid int) syscall.Errno {
			return errnoOf(syscall.Syscall6(syscall.SYS_WAIT4, uintptr(pid), bad, 0, 0, 0, 0))
		}},
		{"wait4-rusage", func(pid int) syscall.Errno {
			return errnoOf(syscall.Syscall6(syscall.SYS_WAIT4, uintptr(pid), 0, 0, bad, 0, 0))
		}},
		{"waitid-info", func(pid int) syscall.Errno {
			return errnoOf(syscall.Syscall6(syscall.SYS_WAITID, 1 /* P_PID */, uintptr(pid), bad, syscall.WEXITED, 0, 0))
		}},
		{"waitid-rusage", func(pid int) syscall.Errno {
			var info [128]byte
			return errnoOf(syscall.Syscall6(syscall.SYS_WAITID, 1, uintptr(pid), uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED, bad, 0))
		}},
	} {
		pid, _ := rawClone(uintptr(syscall.SIGCHLD))
		if pid == 0 {
			rawExit(3)
		}
		e := c.call(pid)
		_, _, err := wait(pid, syscall.WNOHANG)
		check(c.name+"-efault-reaps", e == syscall.EFAULT && err == syscall.ECHILD,
			"%s with a bad pointer: %v, then wait4: %v; want EFAULT, then ECHILD (reaped)", c.name, e, err)
	}
	// A stop report is taken too.
	pid, _ := rawClone(uintptr(syscall.SIGCHLD))
	if pid == 0 {
		for {
			syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
		}
	}
	syscall.Kill(pid, syscall.SIGSTOP)
	var e syscall.Errno
	for e = syscall.EAGAIN; e == syscall.EAGAIN; {
		r, _, en := syscall.Syscall6(syscall.SYS_WAIT4, uintptr(pid), 8, syscall.WUNTRACED|syscall.WNOHANG, 0, 0, 0)
		if e = en; r == 0 && en == 0 {
			e = syscall.EAGAIN // not stopped yet
			time.Sleep(time.Millisecond)
		}
	}
	got, _, err := wait(pid, syscall.WUNTRACED|syscall.WNOHANG)
	check("wait4-stop-efault", e == syscall.EFAULT && got == 0 && err == nil,
		"WUNTRACED with a bad status: %v, then %d %v; want EFAULT, then 0 (the report was taken)", e, got, err)
	syscall.Kill(pid, syscall.SIGKILL)
	wait(pid, 0)
}

// kill: SIGTERM's default action and SIGKILL end a child, which its
// wait status says; kill of a PID nobody has is ESRCH.
func killChild() {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		pid, _ := rawClone(uintptr(syscall.SIGCHLD))
		if pid == 0 {
			for {
				syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
			}
		}
		err := syscall.Kill(pid, sig)
		got, ws, werr := wait(pid, 0)
		check("kill-"+sig.String(), err == nil && got == pid && werr == nil && ws.Signaled() && ws.Signal() == sig,
			"kill(%d, %v): %v; wait4 = %d, %v, status %#x", pid, sig, err, got, werr, uint32(ws))
	}
	err := syscall.Kill(4242, syscall.SIGTERM)
	check("kill-esrch", err == syscall.ESRCH, "kill(4242): %v, want ESRCH", err)
	sigqueueOthers()
}

// sigqueueOthers: rt_sigqueueinfo and rt_tgsigqueueinfo may not claim,
// towards another process, that the kernel (si_code >= 0) or tgkill
// (SI_TKILL) sent the signal: EPERM; SI_QUEUE goes.
func sigqueueOthers() {
	pid, _ := rawClone(uintptr(syscall.SIGCHLD))
	if pid == 0 {
		for {
			syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
		}
	}
	var info [128]byte
	setCode := func(code int32) uintptr {
		*(*int32)(unsafe.Pointer(&info[8])) = code
		return uintptr(unsafe.Pointer(&info[0]))
	}
	const siUser, siKernel, siTkill, siQueue = 0, 0x80, -6, -1
	for _, code := range []int32{siUser, siKernel, siTkill} {
		e := errnoOf(syscall.RawSyscall(syscall.SYS_RT_SIGQUEUEINFO, uintptr(pid), uintptr(syscall.SIGKILL), setCode(code)))
		e2 := errnoOf(syscall.RawSyscall6(syscall.SYS_RT_TGSIGQUEUEINFO, uintptr(pid), uintptr(pid), uintptr(syscall.SIGKILL), setCode(code), 0, 0))
		check(fmt.Sprintf("sigqueue-eperm-%d", code), e == syscall.EPERM && e2 == syscall.EPERM,
			"rt_sigqueueinfo and rt_tgsigqueueinfo to a child with si_code %d: %v, %v; want EPERM", code, e, e2)
	}
	e := errnoOf(syscall.RawSyscall(syscall.SYS_RT_SIGQUEUEINFO, 4242, 1000, setCode(siQueue)))
	check("sigqueue-esrch-first", e == syscall.ESRCH, "rt_sigqueueinfo(4242, 1000): %v, want ESRCH", e)
	e = errnoOf(syscall.RawSyscall(syscall.SYS_RT_SIGQUEUEINFO, uintptr(pid), uintptr(syscall.SIGKILL), setCode(siQueue)))
	_, ws, _ := wait(pid, 0)
	check("sigqueue-queue", e == 0 && ws.Signaled() && ws.Signal() == syscall.SIGKILL,
		"rt_sigqueueinfo SI_QUEUE SIGKILL to a child: %v, status %#x", e, uint32(ws))
}

// orphan: a child that exits before its own child leaves that child to
// PID 1 (us), which then reaps it.
func orphan() {
	var p [2]int
	syscall.Pipe2(p[:], 0)
	pid, _ := rawClone(uintptr(syscall.SIGCHLD))
	if pid == 0 {
		g, _ := rawClone(uintptr(syscall.SIGCHLD))
		if g == 0 {
			var b [1]byte
			syscall.RawSyscall(syscall.SYS_READ, uintptr(p[0]), uintptr(unsafe.Pointer(&b[0])), 1)
			ppid, _, _ := syscall.RawSyscall(syscall.SYS_GETPPID, 0, 0, 0)
			rawExit(ppid) // 1 once orphaned
		}
		rawExit(uintptr(g & 0x7f))
	}
	_, ws, _ := wait(pid, 0)
	syscall.Write(p[1], []byte{1})
	got, gws, err := wait(-1, 0)
	check("orphan", ws.Exited() && err == nil && got > pid && gws.Exited() && gws.ExitStatus() == 1,
		"child exit %#x; then wait4(-1) = %d, %v, status %#x; want the grandchild, getppid 1", uint32(ws), got, err, uint32(gws))
	syscall.Close(p[0])
	syscall.Close(p[1])
}

// child is the program run by exec's checks: "args" prints its
// arguments, "exit N" exits with N, "env" prints one variable, "ids"
// prints its PID and parent's, "fds" says whether descriptor 3 is open.
func child(args []string) {
	if len(args) > 0 && strings.HasPrefix(args[0], "/") {
		args = args[1:] // run as a script's interpreter: the script's path
	}
	if len(args) == 0 {
		os.Exit(100)
	}
	switch args[0] {
	case "args":
		fmt.Printf("%q\n", os.Args)
	default: // a nested script's argv (exec)
		fmt.Printf("%q\n", os.Args)
	case "exit":
		var n int
		fmt.Sscan(args[1], &n)
		os.Exit(n)
	case "env":
		fmt.Println(os.Getenv(args[1]))
	case "ids":
		fmt.Println(os.Getpid(), os.Getppid())
	case "burn":
		// Spin for 300 ms of wall time holding 32 MiB (rusage).
		mem := make([]byte, 32<<20)
		for i := range mem {
			mem[i] = 1
		}
		for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
		}
		runtime.KeepAlive(mem)
	case "eat":
		// Allocate and touch memory until killed.
		var keep [][]byte
		for {
			b := make([]byte, 1<<20)
			for i := range b {
				b[i] = 1
			}
			keep = append(keep, b)
		}
	case "exe":
		exe, err := os.Executable()
		fmt.Println(exe, err)
	case "text":
		// The mapping that holds this code, as /proc/self/maps shows
		// it: its rights, offset, whether it maps a file (an inode
		// number, not 0) and its name (show_map_vma's fields 2, 3, 5, 6).
		maps, _ := os.ReadFile("/proc/self/maps")
		pc, _, _, _ := runtime.Caller(0)
		for _, l := range strings.Split(string(maps), "\n") {
			var lo, hi uintptr
			f := strings.Fields(l)
			if len(f) < 6 || len(f[0]) < 3 {
				continue
			}
			fmt.Sscanf(f[0], "%x-%x", &lo, &hi)
			if lo <= pc && pc < hi {
				kind := "file"
				if f[4] == "0" {
					kind = "anonymous"
				}
				fmt.Println(f[1], f[2], kind, f[5])
			}
		}
	case "fds":
		_, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, 3, syscall.F_GETFD, 0)
		fmt.Println("fd3", e == 0)
	case "session", "steal", "takeconsole", "intr":
		switch args[0] {
		case "session":
			session()
		case "steal":
			steal()
		case "takeconsole":
			takeConsole()
		case "intr":
			intrSession()
		}
		if guest.Failed() {
			os.Exit(1)
		}
	}
}

// exec: os/exec runs a program (this one, as /init) with arguments and
// environment and gets its output and exit status; execve's errors are
// Linux's; a #! script runs under its interpreter with Linux's argv.
func execs() {
	out, err := exec.Command("/init", "child", "args", "a b", "c").Output()
	check("exec-args", err == nil && strings.TrimSpace(string(out)) == `["/init" "child" "args" "a b" "c"]`,
		"output %q, %v", out, err)
	err = exec.Command("/init", "child", "exit", "3").Run()
	var ee *exec.ExitError
	check("exec-status", errors.As(err, &ee) && ee.ExitCode() == 3, "exit status: %v", err)
	cmd := exec.Command("/init", "child", "env", "GOMETAL_X")
	cmd.Env = []string{"GOMETAL_X=from parent"}
	out, err = cmd.Output()
	check("exec-env", err == nil && strings.TrimSpace(string(out)) == "from parent", "env: %q, %v", out, err)
	out, err = exec.Command("/init", "child", "ids").Output()
	var pid, ppid int
	fmt.Sscan(string(out), &pid, &ppid)
	check("exec-ids", err == nil && pid > 1 && ppid == os.Getpid(), "child's ids %q, %v", out, err)
	// A descriptor without close-on-exec survives; Go opens with it.
	f, _ := os.Open("/init")
	cmd = exec.Command("/init", "child", "fds")
	out, _ = cmd.Output()
	check("exec-cloexec", strings.TrimSpace(string(out)) == "fd3 false", "fd 3 in the child: %q", out)
	f.Close()

	for _, c := range []struct {
		name string
		path string
		want error
	}{
		{"exec-enoent", "/no/such/program", syscall.ENOENT},
		{"exec-eacces-dir", "/tmp", syscall.EACCES},
		{"exec-enotdir", "/init/x", syscall.ENOTDIR},
	} {
		err := syscall.Exec(c.path, []string{c.path}, nil)
		check(c.name, err == c.want, "execve(%s): %v, want %v", c.path, err, c.want)
	}
	os.WriteFile("/tmp/noexec", []byte("#!/init child\n"), 0o644)
	err = syscall.Exec("/tmp/noexec", []string{"x"}, nil)
	check("exec-eacces-mode", err == syscall.EACCES, "execve of a file without x: %v, want EACCES", err)
	os.WriteFile("/tmp/text", []byte("just text\n"), 0o755)
	err = syscall.Exec("/tmp/text", []string{"x"}, nil)
	check("exec-enoexec", err == syscall.ENOEXEC, "execve of text: %v, want ENOEXEC", err)
	os.WriteFile("/tmp/script", []byte("#!/init  child \n"), 0o755)
	out, err = exec.Command("/tmp/script", "args", "x").Output()
	check("exec-script", err == nil && strings.TrimSpace(string(out)) == `["/init" "child" "/tmp/script" "args" "x"]`,
		"script's argv %q, %v", out, err)
	// Scripts whose interpreters are scripts: Linux rewrites argv at
	// each level (binfmt_script) and gives up past its depth.
	for depth := 2; depth <= 6; depth++ {
		for j := 1; j <= depth; j++ {
			line := fmt.Sprintf("#!/tmp/n%d_%d a%d\n", depth, j+1, j)
			if j == depth {
				line = "#!/init child\n"
			}
			os.WriteFile(fmt.Sprintf("/tmp/n%d_%d", depth, j), []byte(line), 0o755)
		}
		out, err := exec.Command(fmt.Sprintf("/tmp/n%d_1", depth), "x").Output()
		want := []string{"/init", "child", fmt.Sprintf("/tmp/n%d_%d", depth, depth)}
		for j := depth - 1; j >= 1; j-- {
			want = append(want, fmt.Sprintf("a%d", j), fmt.Sprintf("/tmp/n%d_%d", depth, j))
		}
		want = append(want, "x")
		name := fmt.Sprintf("exec-nested-%d", depth)
		if depth <= 5 {
			check(name, err == nil && strings.TrimSpace(string(out)) == fmt.Sprintf("%q", want), "argv %s, %v; want %q", out, err, want)
		} else {
			check(name, errors.Is(err, syscall.ELOOP), "six scripts deep: %v, want ELOOP", err)
		}
	}
	// A program the app wrote (its bytes in pages, not the archive).
	self, _ := os.ReadFile("/init")
	os.WriteFile("/tmp/copy", self, 0o755)
	out, err = exec.Command("/tmp/copy", "child", "args").Output()
	check("exec-written", err == nil && strings.TrimSpace(string(out)) == `["/tmp/copy" "child" "args"]`, "%q, %v", out, err)
	os.Symlink("/tmp/copy", "/tmp/link")
	cmd = exec.Command("./link", "child", "exe")
	cmd.Dir = "/tmp"
	out, err = cmd.Output()
	check("exec-executable", err == nil && strings.TrimSpace(string(out)) == "/tmp/copy <nil>", "os.Executable in the child: %q, %v", out, err)
	// Its text is the file's pages mapped (elf_map), not an anonymous
	// copy: /proc/self/maps names the file at offset 0.
	out, err = exec.Command("/tmp/copy", "child", "text").Output()
	check("exec-text-mapped", err == nil && strings.TrimSpace(string(out)) == "r-xp 00000000 file /tmp/copy", "the text's line of /proc/self/maps in the child: %q, %v", out, err)
	err = os.WriteFile("/init", []byte("x"), 0o755)
	check("exec-etxtbsy", errors.Is(err, syscall.ETXTBSY), "writing the running /init: %v, want ETXTBSY", err)
}

// hang blocks reading a pipe nobody writes (the timeout test).
func hang() {
	var p [2]int
	syscall.Pipe(p[:])
	fmt.Println("hanging")
	var b [1]byte
	syscall.Read(p[0], b[:])
}

// stop: SIGSTOP stops a child, which wait4 with WUNTRACED reports
// once; SIGCONT continues it, which WCONTINUED reports; a
// stopped child is still killed by SIGKILL.
func stopCont() {
	pid, _ := rawClone(uintptr(syscall.SIGCHLD))
	if pid == 0 {
		for {
			syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
		}
	}
	for _, sig := range stopSigs {
		syscall.Kill(pid, sig)
		got, ws, err := wait(pid, syscall.WUNTRACED)
		check("stop", got == pid && err == nil && ws.Stopped() && ws.StopSignal() == sig,
			"wait4(WUNTRACED) after %v: %d, %v, status %#x", sig, got, err, uint32(ws))
		got, _, err = wait(pid, syscall.WUNTRACED|syscall.WNOHANG)
		check("stop-once", got == 0 && err == nil, "a stop reported twice: %d, %v", got, err)
		syscall.Kill(pid, syscall.SIGCONT)
		got, ws, err = wait(pid, syscall.WCONTINUED)
		check("cont", got == pid && err == nil && ws.Continued(),
			"wait4(WCONTINUED) after SIGCONT: %d, %v, status %#x", got, err, uint32(ws))
	}
	syscall.Kill(pid, syscall.SIGSTOP)
	wait(pid, syscall.WUNTRACED)
	syscall.Kill(pid, syscall.SIGKILL)
	got, ws, err := wait(pid, 0)
	check("stop-kill", got == pid && err == nil && ws.Signaled() && ws.Signal() == syscall.SIGKILL,
		"SIGKILL to a stopped child: %d, %v, status %#x", got, err, uint32(ws))
}

// stopSigs are the stop rounds: SIGSTOP twice (a stop after a continue
// is reported again). SIGTSTP is left out: the child is in PID 1's
// group, orphaned (its parent is init), where SIGTSTP with its default
// action does nothing, on Linux as on gometal (jobctl checks it).
var stopSigs = []syscall.Signal{syscall.SIGSTOP, syscall.SIGSTOP}

// bomb: fork until the kernel says EAGAIN; the kernel and this process
// live on, and once the children are reaped, fork works again.
func forkBomb() {
	var p [2]int
	syscall.Pipe2(p[:], 0)
	var pids []int
	var last syscall.Errno
	for i := 0; i < 10000; i++ {
		pid, e := rawClone(uintptr(syscall.SIGCHLD))
		if pid == 0 {
			// Wait for the parent's end of the pipe to close.
			syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(p[1]), 0, 0)
			var b [1]byte
			syscall.RawSyscall(syscall.SYS_READ, uintptr(p[0]), uintptr(unsafe.Pointer(&b[0])), 1)
			rawExit(0)
		}
		if e != 0 {
			last = e
			break
		}
		pids = append(pids, pid)
	}
	fmt.Printf("bomb: %d children, then %v\n", len(pids), last)
	check("bomb-eagain", last == syscall.EAGAIN, "fork stopped with %v after %d children, want EAGAIN", last, len(pids))
	syscall.Close(p[1])
	reaped := 0
	for range pids {
		if _, _, err := wait(-1, 0); err == nil {
			reaped++
		}
	}
	check("bomb-reaped", reaped == len(pids), "reaped %d of %d", reaped, len(pids))
	err := exec.Command("/init", "child", "exit", "0").Run()
	check("bomb-after", err == nil, "a program after the bomb: %v", err)
	syscall.Close(p[0])
}

// freePages is sysinfo's free memory in pages.
func freePages() uint64 {
	var si syscall.Sysinfo_t
	syscall.Sysinfo(&si)
	return si.Freeram * uint64(si.Unit) / 4096
}

// memory: spawning, exiting and reaping gives back what it took: the
// free pages after 2N cycles are what they were after N.
func memoryReturns() {
	n := 100
	if v := os.Getenv("PROCS_CYCLES"); v != "" {
		fmt.Sscan(v, &n)
	}
	run := func() {
		if os.Getenv("PROCS_NOEXEC") == "" {
			if err := exec.Command("/init", "child", "exit", "0").Run(); err != nil {
				check("memory-run", false, "run: %v", err)
			}
		}
		pid, _ := rawClone(uintptr(syscall.SIGCHLD))
		if pid == 0 {
			rawExit(0)
		}
		wait(pid, 0)
	}
	// measure counts the free pages once every core has run this
	// process: a core lets go of the last address space it ran only when
	// it runs another (ARCHITECTURE.md).
	measure := func() uint64 {
		pid, _ := rawClone(uintptr(syscall.SIGCHLD))
		if pid == 0 {
			rawExit(0)
		}
		wait(pid, 0)
		runtime.GC()
		guest.EveryCore()
		return freePages() // sysinfo gives back what the cores let go of
	}
	// The first round lets this program's heap and the kernel's tables
	// reach their size; a leak shows in the second.
	for i := 0; i < n; i++ {
		run()
	}
	before := measure()
	for i := 0; i < n; i++ {
		run()
	}
	after := measure()
	fmt.Printf("memory: %d cycles of exec+fork: %d free pages before, %d after\n", n, before, after)
	// This program's own heap and stacks move by up to ~150 pages
	// between rounds whatever their length (measured at 200 and 500
	// cycles): a leak of 3 pages a cycle shows past the slack at 100.
	check("memory-returns", after+memorySlack >= before, "%d pages lost over %d cycles", int64(before)-int64(after), n)
}

// oom: a child that allocates without end is killed by the kernel for
// memory (SIGKILL, which its wait status says); this process lives.
func oomKill() {
	err := exec.Command("/init", "child", "eat").Run()
	var ee *exec.ExitError
	ok := errors.As(err, &ee)
	check("oom-killed", ok && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL, "the eater: %v", err)

	// Again, with wait4's answer on pages never touched: the kernel
	// must find them memory while the eater's is on its way back, and
	// the answer is not lost to EFAULT (Linux's allocator waits the
	// victim out).
	answer, err := syscall.Mmap(-1, 0, 2*syscall.Getpagesize(), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		check("oom-wait-answer", false, "mmap: %v", err)
		return
	}
	cmd := exec.Command("/init", "child", "eat")
	if err := cmd.Start(); err != nil {
		check("oom-wait-answer", false, "start: %v", err)
		return
	}
	ws := (*syscall.WaitStatus)(unsafe.Pointer(&answer[0]))
	ru := (*syscall.Rusage)(unsafe.Pointer(&answer[syscall.Getpagesize()]))
	pid, err := syscall.Wait4(cmd.Process.Pid, ws, 0, ru)
	check("oom-wait-answer", err == nil && pid == cmd.Process.Pid && ws.Signal() == syscall.SIGKILL && ru.Maxrss > 100<<10,
		"wait4 = %d, %v; status %#x, maxrss %d KiB", pid, err, uint32(*ws), ru.Maxrss)
}

// memorySlack is how far the free pages may move between the rounds
// without a leak (this program's own heap).
const memorySlack = 256

// pidfd: a process descriptor names a child; it becomes readable when
// the child exits, pidfd_send_signal reaches it, waitid(P_PIDFD)
// reports it; our own pidfd's waitid is ECHILD.
func pidfds() {
	const sysPidfdOpen, sysPidfdSendSignal, pPIDFD = 434, 424, 3
	const sysPidfdGetfd = 438
	var p [2]int
	syscall.Pipe2(p[:], 0)
	pid, _ := rawClone(uintptr(syscall.SIGCHLD))
	if pid == 0 {
		syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(p[1]), 0, 0)
		var b [1]byte
		syscall.RawSyscall(syscall.SYS_READ, uintptr(p[0]), uintptr(unsafe.Pointer(&b[0])), 1)
		rawExit(0)
	}
	fd, _, e := syscall.RawSyscall(sysPidfdOpen, uintptr(pid), 0, 0)
	check("pidfd-open", e == 0, "pidfd_open(child): %v", e)
	ep, _ := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, int(fd), &syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)})
	ev := make([]syscall.EpollEvent, 1)
	n, _ := syscall.EpollWait(ep, ev, 0)
	check("pidfd-not-ready", n == 0, "a live child's pidfd is ready: %d", n)
	_, _, e = syscall.RawSyscall6(sysPidfdSendSignal, fd, uintptr(syscall.SIGKILL), 0, 0, 0, 0)
	check("pidfd-send-signal", e == 0, "pidfd_send_signal: %v", e)
	// SIGCHLD may cut the wait short (epoll_wait is never restarted).
	for {
		var err error
		if n, err = syscall.EpollWait(ep, ev, 5000); err != syscall.EINTR {
			break
		}
	}
	check("pidfd-ready", n == 1 && ev[0].Events&syscall.EPOLLIN != 0, "the pidfd after the exit: %d events %#x", n, ev[0].Events)
	var info [128]byte
	_, _, e = syscall.Syscall6(syscall.SYS_WAITID, pPIDFD, fd, uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED, 0, 0)
	code := *(*int32)(unsafe.Pointer(&info[8]))
	status := *(*int32)(unsafe.Pointer(&info[24]))
	check("pidfd-waitid", e == 0 && code == 2 && status == int32(syscall.SIGKILL), "waitid(P_PIDFD): %v code %d status %d; want CLD_KILLED 9", e, code, status)
	self, _, _ := syscall.RawSyscall(sysPidfdOpen, uintptr(os.Getpid()), 0, 0)
	_, _, e = syscall.Syscall6(syscall.SYS_WAITID, pPIDFD, self, uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|syscall.WNOHANG, 0, 0)
	check("pidfd-self-echild", e == syscall.ECHILD, "waitid(P_PIDFD, self): %v, want ECHILD", e)
	_, _, e = syscall.RawSyscall(sysPidfdOpen, 4242, 0, 0)
	check("pidfd-esrch", e == syscall.ESRCH, "pidfd_open(4242): %v, want ESRCH", e)
	_, _, e = syscall.RawSyscall(sysPidfdGetfd, fd, uintptr(p[0]), 0)
	check("pidfd-getfd-esrch", e == syscall.ESRCH, "pidfd_getfd of a reaped child: %v, want ESRCH", e)
	pidfdGetfd()
	for _, c := range []uintptr{fd, self, uintptr(ep), uintptr(p[0]), uintptr(p[1])} {
		syscall.Close(int(c))
	}
}

// pidfdGetfd: pidfd_getfd(2) gives the caller a close-on-exec
// descriptor for the description a child holds, with Linux's errors.
func pidfdGetfd() {
	const sysPidfdOpen, sysPidfdGetfd = 434, 438
	var p, q [2]int
	syscall.Pipe2(p[:], 0)
	syscall.Pipe2(q[:], 0)
	pid, _ := rawClone(uintptr(syscall.SIGCHLD))
	if pid == 0 {
		// A pipe made after the fork is only the child's.
		var r [2]int32
		syscall.RawSyscall(syscall.SYS_PIPE2, uintptr(unsafe.Pointer(&r[0])), 0, 0)
		syscall.RawSyscall(syscall.SYS_WRITE, uintptr(q[1]), uintptr(unsafe.Pointer(&r[1])), 4)
		var b [1]byte
		syscall.RawSyscall(syscall.SYS_READ, uintptr(r[0]), uintptr(unsafe.Pointer(&b[0])), 1)
		if b[0] != 'g' {
			rawExit(1)
		}
		rawExit(0)
	}
	var wfd int32
	syscall.Read(q[0], (*[4]byte)(unsafe.Pointer(&wfd))[:])
	fd, _, _ := syscall.RawSyscall(sysPidfdOpen, uintptr(pid), 0, 0)
	got, _, e := syscall.RawSyscall(sysPidfdGetfd, fd, uintptr(wfd), 0)
	flags, _ := fcntl(int(got), syscall.F_GETFD)
	check("pidfd-getfd", e == 0 && flags == syscall.FD_CLOEXEC, "pidfd_getfd(child, %d): %d %v, flags %d", wfd, got, e, flags)
	if e == 0 {
		syscall.Write(int(got), []byte("g")) // into the child's own pipe
		syscall.Close(int(got))
	}
	_, ws, err := wait(pid, 0)
	check("pidfd-getfd-shared", err == nil && ws.Exited() && ws.ExitStatus() == 0, "the child read through the descriptor we got: %v %#x", err, uint32(ws))
	_, _, e = syscall.RawSyscall(sysPidfdGetfd, fd, 0, 1)
	check("pidfd-getfd-einval", e == syscall.EINVAL, "flags 1: %v, want EINVAL", e)
	_, _, e = syscall.RawSyscall(sysPidfdGetfd, uintptr(p[0]), 0, 0)
	check("pidfd-getfd-ebadf", e == syscall.EBADF, "a pipe as the pidfd: %v, want EBADF", e)
	for _, c := range []int{int(fd), p[0], p[1], q[0], q[1]} {
		syscall.Close(c)
	}
}

func fcntl(fd, cmd int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), uintptr(cmd), 0)
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

// prctl: the options a process sets on itself (prctl(2)): its name
// (comm), whether it is a subreaper, and PR_SET_PDEATHSIG, whose signal
// comes when the parent *thread* exits: the grandchild of a child that
// exits gets it (and is adopted), and so does the child of a thread
// that exits while its process lives on.
func prctls() {
	const prSetName, prGetName, prSetPdeathsig, prGetPdeathsig = 15, 16, 1, 2
	const prSetSubreaper, prGetSubreaper = 36, 37
	// PR_SET_NAME names the calling thread; the process's name is its
	// leader's.
	runtime.LockOSThread()
	name := []byte("renamed-process-long\x00")
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetName, uintptr(unsafe.Pointer(&name[0])), 0)
	var got [16]byte
	syscall.RawSyscall(syscall.SYS_PRCTL, prGetName, uintptr(unsafe.Pointer(&got[0])), 0)
	tcomm, _ := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/comm", syscall.Gettid()))
	comm, _ := os.ReadFile("/proc/self/comm")
	want := "init\n"
	if syscall.Gettid() == os.Getpid() {
		want = "renamed-process\n"
	}
	check("prctl-name", string(got[:]) == "renamed-process\x00" && string(tcomm) == "renamed-process\n" && string(comm) == want,
		"PR_GET_NAME %q, the thread's comm %q, the process's %q", got, tcomm, comm)
	name = []byte("init\x00")
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetName, uintptr(unsafe.Pointer(&name[0])), 0)
	runtime.UnlockOSThread()
	var v int32 = -1
	syscall.RawSyscall(syscall.SYS_PRCTL, prGetSubreaper, uintptr(unsafe.Pointer(&v)), 0)
	check("prctl-subreaper", v == 0, "PR_GET_CHILD_SUBREAPER %d", v)
	_, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetPdeathsig, 99, 0)
	check("prctl-pdeathsig-einval", e == syscall.EINVAL, "PR_SET_PDEATHSIG 99: %v", e)
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetPdeathsig, uintptr(syscall.SIGUSR2), 0)
	syscall.RawSyscall(syscall.SYS_PRCTL, prGetPdeathsig, uintptr(unsafe.Pointer(&v)), 0)
	check("prctl-pdeathsig-get", v == int32(syscall.SIGUSR2), "PR_GET_PDEATHSIG %d", v)
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetPdeathsig, 0, 0)

	var res, ready [2]int
	syscall.Pipe2(res[:], 0)
	syscall.Pipe2(ready[:], 0)
	growStack()
	a, _ := rawClone(uintptr(syscall.SIGCHLD))
	if a == 0 {
		b, _ := rawClone(uintptr(syscall.SIGCHLD))
		if b == 0 {
			waitDeath(ready[1], res[1])
		}
		var one [1]byte
		syscall.RawSyscall(syscall.SYS_READ, uintptr(ready[0]), uintptr(unsafe.Pointer(&one[0])), 1)
		rawExit(0)
	}
	wait(a, 0)
	var out [2]byte
	syscall.Read(res[0], out[:])
	check("pdeathsig-process", out[0] == byte(syscall.SIGUSR1) && out[1] == byte(os.Getpid()),
		"the grandchild got signal %d, parent %d after its parent exited; want %d and %d", out[0], out[1], syscall.SIGUSR1, os.Getpid())
	wait(-1, 0) // the grandchild, adopted

	// A thread that forks and exits while its process lives on. Go
	// ends a thread whose goroutine exits locked to it, but never the
	// main thread: a goroutine that finds itself there tries again.
	var pid int
	for pid == 0 {
		done := make(chan int)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
			if syscall.Gettid() == os.Getpid() {
				runtime.UnlockOSThread()
				done <- 0
				return
			}
			growStack()
			pid, _ := rawClone(uintptr(syscall.SIGCHLD))
			if pid == 0 {
				waitDeath(ready[1], res[1])
			}
			var one [1]byte
			syscall.Read(ready[0], one[:])
			done <- pid
		}()
		pid = <-done
	}
	syscall.Read(res[0], out[:])
	check("pdeathsig-thread", out[0] == byte(syscall.SIGUSR1) && out[1] == byte(os.Getpid()),
		"the child of an exited thread got signal %d, parent %d; want %d and %d", out[0], out[1], syscall.SIGUSR1, os.Getpid())
	wait(pid, 0)
	for _, c := range []int{res[0], res[1], ready[0], ready[1]} {
		syscall.Close(c)
	}
}

// rusage: CPU time is counted. A child that spins for 300 ms holding
// 32 MiB reports about that much time and memory to wait4, and it adds
// to getrusage(RUSAGE_CHILDREN) and times(2); the CPU-time clocks move
// with work and not with sleep.
func rusage() {
	cmd := exec.Command("/init", "child", "burn")
	err := cmd.Run()
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	ut := time.Duration(ru.Utime.Nano())
	check("rusage-wait", err == nil && ut >= 150*time.Millisecond && ut < 5*time.Second,
		"the child's user time %v for 300 ms of spinning (%v)", ut, err)
	check("rusage-maxrss", ru.Maxrss >= 32<<10, "the child's ru_maxrss %d KiB, want at least 32 MiB", ru.Maxrss)
	var ch syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ch)
	check("rusage-children", time.Duration(ch.Utime.Nano()) >= ut, "RUSAGE_CHILDREN %v, less than the child's %v", time.Duration(ch.Utime.Nano()), ut)
	var tms syscall.Tms
	syscall.Times(&tms)
	check("times-cutime", tms.Cutime >= 15, "times: cutime %d ticks", tms.Cutime)
	cpu := func(id int) time.Duration {
		var ts syscall.Timespec
		syscall.Syscall(syscall.SYS_CLOCK_GETTIME, uintptr(id), uintptr(unsafe.Pointer(&ts)), 0)
		return time.Duration(ts.Nano())
	}
	const processCPU, threadCPU = 2, 3
	runtime.LockOSThread()
	p0, t0 := cpu(processCPU), cpu(threadCPU)
	for end := time.Now().Add(200 * time.Millisecond); time.Now().Before(end); {
	}
	p1, t1 := cpu(processCPU), cpu(threadCPU)
	time.Sleep(300 * time.Millisecond)
	t2 := cpu(threadCPU)
	runtime.UnlockOSThread()
	check("cputime-clocks", t1-t0 >= 100*time.Millisecond && p1-p0 >= t1-t0,
		"200 ms of spinning: thread clock +%v, process clock +%v", t1-t0, p1-p0)
	check("cputime-sleep", t2-t1 < 100*time.Millisecond, "300 ms asleep: thread clock +%v", t2-t1)
	var self syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	check("rusage-self", time.Duration(self.Utime.Nano()) >= t1-t0, "RUSAGE_SELF %v", time.Duration(self.Utime.Nano()))
}

// rtQueue: real-time signals queue, standard ones merge (signal(7)). A
// one-threaded child blocks SIGUSR1, SIGRTMIN+2 and SIGRTMIN+3, queues
// them to itself with sigqueue values, and takes them with
// rt_sigtimedwait: SIGUSR1 once however often it was sent, then
// SIGRTMIN+2, then each SIGRTMIN+3 in the order sent, then none.
func rtQueue() {
	const sigA, sigB = 34, 35 // SIGRTMIN+2, SIGRTMIN+3 (glibc's SIGRTMIN is 34)
	var res [2]int
	syscall.Pipe2(res[:], 0)
	pid, _ := rawClone(uintptr(syscall.SIGCHLD))
	if pid == 0 {
		rtQueueChild(res[1])
	}
	syscall.Close(res[1])
	b, _ := io.ReadAll(os.NewFile(uintptr(res[0]), "res"))
	wait(pid, 0)
	check("rt-queue", string(b) == string([]byte{10, 7, sigA, 9, sigB, 1, sigB, 2, sigB, 3}),
		"taken (signal, value): %v; want [10 7 34 9 35 1 35 2 35 3]", b)
}

// cloneArgs is struct clone_args (Linux 5.7).
type cloneArgs struct {
	Flags, Pidfd, ChildTID, ParentTID, ExitSignal, Stack, StackSize, TLS, SetTID, SetTIDSize, Cgroup uint64
}

// clone3: clone's arguments in a struct, with clone3_args_valid's
// errors, and Go's use of it (a cgroup to start in) failing as on a
// kernel given a descriptor that is no cgroup.
func clone3() {
	const sysClone3, pPIDFD = 435, 3
	call := func(a *cloneArgs, size uintptr) (int, syscall.Errno) {
		r, _, e := syscall.RawSyscall(sysClone3, uintptr(unsafe.Pointer(a)), size, 0)
		return int(r), e
	}
	var pidfd int32
	a := cloneArgs{Flags: syscall.CLONE_PIDFD, ExitSignal: uint64(syscall.SIGCHLD), Pidfd: uint64(uintptr(unsafe.Pointer(&pidfd)))}
	pid, e := call(&a, unsafe.Sizeof(a))
	if pid == 0 {
		rawExit(5)
	}
	var info [128]byte
	_, _, we := syscall.Syscall6(syscall.SYS_WAITID, pPIDFD, uintptr(pidfd), uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED, 0, 0)
	status := *(*int32)(unsafe.Pointer(&info[24]))
	check("clone3", e == 0 && pid > 0 && pidfd > 2 && we == 0 && status == 5, "clone3 = %d %v, pidfd %d, waitid %v status %d", pid, e, pidfd, we, status)
	syscall.Close(int(pidfd))
	// CLONE_VFORK without CLONE_VM: the parent waits while the child
	// runs on a copy of its memory (a child sharing it would run on
	// the parent's stack, which a Go function returning from the call
	// would overwrite).
	a = cloneArgs{Flags: syscall.CLONE_VFORK, ExitSignal: uint64(syscall.SIGCHLD)}
	pid, e = call(&a, 64)
	if pid == 0 {
		vforkShared = 'w'
		rawExit(6)
	}
	_, ws, err := wait(pid, 0)
	check("clone3-vfork", e == 0 && vforkShared != 'w' && err == nil && ws.ExitStatus() == 6, "clone3(CLONE_VFORK): %v, shared %q, exit %d %v", e, vforkShared, ws.ExitStatus(), err)
	f, _ := os.Open("/init")
	for _, c := range []struct {
		name string
		a    cloneArgs
		size uintptr
		want syscall.Errno
	}{
		{"clone3-small", cloneArgs{ExitSignal: uint64(syscall.SIGCHLD)}, 32, syscall.EINVAL},
		{"clone3-csignal", cloneArgs{Flags: uint64(syscall.SIGCHLD)}, 88, syscall.EINVAL},
		{"clone3-badsignal", cloneArgs{ExitSignal: 99}, 88, syscall.EINVAL},
		{"clone3-stacksize", cloneArgs{Stack: 0x1000}, 88, syscall.EINVAL},
		{"clone3-huge", cloneArgs{}, 8192, syscall.E2BIG},
		{"clone3-cgroup", cloneArgs{Flags: 0x200000000, ExitSignal: uint64(syscall.SIGCHLD), Cgroup: uint64(f.Fd())}, 88, syscall.EBADF},
	} {
		_, e := call(&c.a, c.size)
		check(c.name, e == c.want, "clone3: %v, want %v", e, c.want)
	}
	// A newer struct than the kernel knows: its extra bytes must be 0.
	var big struct {
		a     cloneArgs
		extra uint64
	}
	big.a.ExitSignal, big.extra = uint64(syscall.SIGCHLD), 1
	_, e = call(&big.a, unsafe.Sizeof(big))
	check("clone3-e2big", e == syscall.E2BIG, "clone3 with a nonzero byte past the struct: %v, want E2BIG", e)
	cmd := exec.Command("/init", "child", "exit", "0")
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(f.Fd())}
	err = cmd.Run()
	check("clone3-go-cgroup", errors.Is(err, syscall.EBADF), "os/exec into a cgroup that is a file: %v, want EBADF", err)
	f.Close()
}

// sysrq: writing a SysRq command's key to /proc/sysrq-trigger has the
// kernel print what it shows (gometal: every process and thread).
func sysrqTrigger() {
	err := os.WriteFile("/proc/sysrq-trigger", []byte("t"), 0)
	check("sysrq-trigger", err == nil, "writing /proc/sysrq-trigger: %v", err)
	err = os.WriteFile("/proc/sysrq-trigger", []byte("m"), 0)
	check("sysrq-memory", err == nil, "writing /proc/sysrq-trigger: %v", err)
}

// waitDeath is the child's part of the prctl checks: SIGUSR1 blocked
// and asked for at the parent thread's death, ready said on fd ready,
// then the signal awaited; it writes the signal and its parent then to
// fd res and exits.
//
//go:nosplit
func waitDeath(ready, res int) {
	const prSetPdeathsig = 1
	set := uint64(1) << (syscall.SIGUSR1 - 1)
	syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, 0 /* SIG_BLOCK */, uintptr(unsafe.Pointer(&set)), 0, 8, 0, 0)
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetPdeathsig, uintptr(syscall.SIGUSR1), 0)
	one := [1]byte{1}
	syscall.RawSyscall(syscall.SYS_WRITE, uintptr(ready), uintptr(unsafe.Pointer(&one[0])), 1)
	ts := syscall.Timespec{Sec: 20}
	var info [128]byte
	sig, _, _ := syscall.RawSyscall6(syscall.SYS_RT_SIGTIMEDWAIT, uintptr(unsafe.Pointer(&set)), uintptr(unsafe.Pointer(&info[0])), uintptr(unsafe.Pointer(&ts)), 8, 0, 0)
	ppid, _, _ := syscall.RawSyscall(syscall.SYS_GETPPID, 0, 0, 0)
	out := [2]byte{byte(sig), byte(ppid)}
	syscall.RawSyscall(syscall.SYS_WRITE, uintptr(res), uintptr(unsafe.Pointer(&out[0])), 2)
	rawExit(0)
}

// growStack makes the calling goroutine's stack big enough for what a
// forked child then runs on it: the child has one thread, and a stack
// growth there (morestack) would need the runtime's locks, which
// another thread may have held at the fork.
//
//go:noinline
func growStack() {
	var pad [32 << 10]byte
	pad[len(pad)-1] = 1
	sink = pad[len(pad)-1]
}

var sink byte

// rtQueueChild is rtQueue's child (nosplit, as the raw calls are).
//
//go:nosplit
func rtQueueChild(res int) {
	const sigA, sigB = 34, 35
	set := uint64(1)<<(syscall.SIGUSR1-1) | 1<<(sigA-1) | 1<<(sigB-1)
	syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, 0, uintptr(unsafe.Pointer(&set)), 0, 8, 0, 0)
	me, _, _ := syscall.RawSyscall(syscall.SYS_GETPID, 0, 0, 0)
	sigqueueSelf(me, sigB, 1)
	sigqueueSelf(me, int(syscall.SIGUSR1), 7)
	sigqueueSelf(me, sigB, 2)
	sigqueueSelf(me, sigA, 9)
	sigqueueSelf(me, int(syscall.SIGUSR1), 8)
	sigqueueSelf(me, sigB, 3)
	var out [16]byte
	n := 0
	for n < len(out)-1 {
		var info [128]byte
		ts := syscall.Timespec{}
		sig, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGTIMEDWAIT, uintptr(unsafe.Pointer(&set)), uintptr(unsafe.Pointer(&info[0])), uintptr(unsafe.Pointer(&ts)), 8, 0, 0)
		if e != 0 {
			break
		}
		out[n], out[n+1] = byte(sig), byte(*(*int32)(unsafe.Pointer(&info[24])))
		n += 2
	}
	syscall.RawSyscall(syscall.SYS_WRITE, uintptr(res), uintptr(unsafe.Pointer(&out[0])), uintptr(n))
	rawExit(0)
}

// sigqueueSelf sends sig with value v to process me (SI_QUEUE).
//
//go:nosplit
func sigqueueSelf(me uintptr, sig int, v int32) {
	var info [128]byte
	*(*int32)(unsafe.Pointer(&info[0])) = int32(sig)
	*(*int32)(unsafe.Pointer(&info[8])) = -1 // SI_QUEUE
	*(*int32)(unsafe.Pointer(&info[24])) = v
	syscall.RawSyscall(syscall.SYS_RT_SIGQUEUEINFO, me, uintptr(sig), uintptr(unsafe.Pointer(&info[0])))
}

// cowSize is the memory a cow check's parent holds when it forks.
const cowSize = 64 << 20

// same reports whether b holds s, comparing byte by byte: a forked
// child of a Go program runs on one thread, so it calls nothing that
// may need the runtime.
//
//go:nosplit
func same(b []byte, s string) bool {
	for i := 0; i < len(s); i++ {
		if b[i] != s[i] {
			return false
		}
	}
	return true
}

// cow: fork shares memory copy-on-write, as xv6's cowtest checks it. A
// parent holding 64 MiB forks without the free memory dropping by
// more than its page tables; the child sees every page as it was and
// its writes stay its own; the kernel writes into a shared page through
// read(2), in the child and in the parent, and only the reader sees it;
// forking in a loop gives every page back.
func cowFork() {
	buf := make([]byte, cowSize)
	for i := 0; i < cowSize; i += 4096 {
		buf[i] = byte(i >> 12)
	}
	var in, own, res, hold [2]int
	for _, p := range []*[2]int{&in, &own, &res, &hold} {
		if err := syscall.Pipe2(p[:], 0); err != nil {
			check("cow-pipe", false, "pipe2: %v", err)
			return
		}
	}
	const at = 5*4096 + 100 // a page both sides share
	free := freePages()
	pid, e := rawClone(uintptr(syscall.SIGCHLD))
	if pid == 0 {
		// The kernel writes into a page shared with the parent (this
		// read waits until the parent has counted its free memory).
		ok := byte('y')
		syscall.RawSyscall(syscall.SYS_READ, uintptr(in[0]), uintptr(unsafe.Pointer(&buf[at])), 8)
		if !same(buf[at:], "kernel!!") {
			ok = 'r'
		}
		for i := 0; i < cowSize; i += 4096 {
			if buf[i] != byte(i>>12) {
				ok = 'n'
			}
		}
		for i := 0; i < cowSize; i += 16 * 4096 {
			buf[i] = 0xee
		}
		var b [1]byte
		syscall.RawSyscall(syscall.SYS_READ, uintptr(hold[0]), uintptr(unsafe.Pointer(&b[0])), 1)
		// The parent's read(2) into its own copy did not reach this one.
		if !same(buf[at+8:], "\x00\x00\x00\x00") {
			ok = 'p'
		}
		rawWrite(res[1], []byte{ok})
		rawExit(0)
	}
	check("cow-fork", e == 0 && pid > 0, "clone: %v", e)
	// While the child lives, sharing: 64 MiB forked for its page tables.
	took := int64(free) - int64(freePages())
	check("cow-shared", took < 1024, "fork of %d MiB took %d pages; with copy-on-write only page tables are due", cowSize>>20, took)
	syscall.Write(in[1], []byte("kernel!!"))
	syscall.Write(own[1], []byte("parent"))
	var got [6]byte
	// This read(2) fills a page the child may still share.
	syscall.Read(own[0], buf[at+8:at+14])
	copy(got[:], buf[at+8:at+14])
	syscall.Write(hold[1], []byte{1})
	var b [1]byte
	syscall.Read(res[0], b[:])
	check("cow-child", b[0] == 'y', "the child saw %q (y: all well; n: a page differed; r: its read(2) was lost; p: the parent's read(2) reached it)", b[0])
	_, ws, err := wait(pid, 0)
	check("cow-wait", err == nil && ws.Exited() && ws.ExitStatus() == 0, "wait4: %v, %#x", err, uint32(ws))
	bad := 0
	for i := 0; i < cowSize; i += 4096 {
		if buf[i] != byte(i>>12) {
			bad++
		}
	}
	check("cow-parent", bad == 0 && string(got[:]) == "parent" && string(buf[at:at+8]) != "kernel!!",
		"the parent's copy: %d pages changed by the child, its own read(2) gave %q", bad, got[:])
	// Fork in a loop, each child writing 16 pages: the pages come back.
	before := freePages()
	for round := 0; round < 100; round++ {
		pid, _ := rawClone(uintptr(syscall.SIGCHLD))
		if pid == 0 {
			for i := 0; i < 16; i++ {
				buf[i*4096*64] = 1
			}
			rawExit(0)
		}
		wait(pid, 0)
	}
	lost := int64(before) - int64(freePages())
	check("cow-loop", lost < 512, "100 forks of %d MiB kept %d pages", cowSize>>20, lost)
	runtime.KeepAlive(buf)
}

// asidCell is a word each process of the asid check writes its PID
// into and reads back, its own after fork (copy-on-write).
var asidCell [1]uintptr

// asid: 256 processes, 8 alive at a time, each writing its PID into a
// word of its own memory and reading it back across 100 yields, so
// that the cores switch between their address spaces all along. Run
// with gometal.asidbits=4 (15 ASIDs), the ASID generation rolls over
// many times; a stale translation would show a process another's word.
func asidSpaces() {
	const total, alive = 256, 8
	started, bad, running := 0, 0, 0
	for started < total || running > 0 {
		for running < alive && started < total {
			pid, e := rawClone(uintptr(syscall.SIGCHLD))
			if pid == 0 {
				me, _, _ := syscall.RawSyscall(syscall.SYS_GETPID, 0, 0, 0)
				for i := 0; i < 100; i++ {
					asidCell[0] = me
					syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
					if asidCell[0] != me {
						rawExit(3)
					}
				}
				rawExit(0)
			}
			if e != 0 {
				check("asid-fork", false, "clone: %v", e)
				return
			}
			started++
			running++
		}
		asidCell[0] = 1
		_, ws, err := wait(-1, 0)
		if err != nil {
			check("asid-wait", false, "wait4: %v", err)
			return
		}
		running--
		if !ws.Exited() || ws.ExitStatus() != 0 {
			bad++
		}
	}
	check("asid-own-memory", bad == 0 && asidCell[0] == 1, "%d of %d processes saw another's memory or died", bad, total)
}

// Job control on the console (Linux's drivers/tty/tty_jobctrl.c and
// n_tty.c's job_control; credentials(7), tty_ioctl(4)). PID 1 has no
// controlling terminal, as Linux starts init; a child that makes a
// session of its own ("child session") asks for the console and runs
// the checks of a session with a terminal, printing its own lines; when
// it exits, holding the console, its foreground group is hung up and
// its stopped background group, orphaned, gets SIGHUP and SIGCONT.
func jobctl() {
	_, err := syscall.Open("/dev/tty", syscall.O_RDWR, 0)
	check("jobctl-devtty-enxio", err == syscall.ENXIO, "PID 1 opened /dev/tty: %v, want ENXIO (no controlling terminal)", err)
	con, err := syscall.Open("/dev/console", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		check("jobctl-console", false, "open /dev/console: %v", err)
		return
	}
	_, e := tcGet(con, syscall.TIOCGPGRP)
	check("jobctl-init-enotty", e == syscall.ENOTTY, "TIOCGPGRP in PID 1: %v, want ENOTTY", e)
	syscall.Close(con)

	os.Remove(jobctlPids)
	cmd := exec.Command("/init", "child", "session")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err = cmd.Run()
	check("jobctl-session", err == nil, "the session's leader: %v", err)
	var fg, bg int
	b, _ := os.ReadFile(jobctlPids)
	if n, _ := fmt.Sscan(string(b), &fg, &bg); n != 2 {
		check("jobctl-exit", false, "the leader left no PIDs in %s: %q", jobctlPids, b)
		return
	}
	ws, ok := waitGone(fg)
	check("jobctl-exit-hangup", ok && ws.Signaled() && ws.Signal() == syscall.SIGHUP,
		"the foreground group after its leader's exit: reaped %v, status %#x; want killed by SIGHUP", ok, uint32(ws))
	ws, ok = waitGone(bg)
	check("jobctl-exit-orphaned", ok && ws.Signaled() && ws.Signal() == syscall.SIGHUP,
		"a stopped background group orphaned by the leader's exit: reaped %v, status %#x; want killed by SIGHUP (then SIGCONT)", ok, uint32(ws))
	err = exec.Command("/init", "child", "takeconsole").Run()
	check("jobctl-exit-released", err == nil, "a new session could not take the console after the leader's exit: %v", err)
}

// jobctlPids is where the session's leader leaves the PIDs of the two
// groups its exit signals.
const jobctlPids = "/tmp/jobctl-pids"

// waitGone reaps child pid, giving it 10 seconds to end.
func waitGone(pid int) (syscall.WaitStatus, bool) {
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		got, ws, err := wait(pid, syscall.WNOHANG)
		if got == pid && err == nil {
			return ws, true
		}
		if err != nil {
			return 0, false
		}
	}
	return 0, false
}

// Terminal ioctls, raw (the children of the checks run nothing else).

func tcIoctl(fd int, req, arg uintptr) syscall.Errno {
	_, _, e := syscall.RawSyscall(syscall.SYS_IOCTL, uintptr(fd), req, arg)
	return e
}

// tcGet is an ioctl that reads a pid_t: TIOCGPGRP, TIOCGSID.
func tcGet(fd int, req uintptr) (int, syscall.Errno) {
	var v [1]int32
	e := tcIoctl(fd, req, uintptr(unsafe.Pointer(&v[0])))
	return int(v[0]), e
}

// tcSetPgrp is TIOCSPGRP.
func tcSetPgrp(fd, pgrp int) syscall.Errno {
	v := [1]int32{int32(pgrp)}
	return tcIoctl(fd, syscall.TIOCSPGRP, uintptr(unsafe.Pointer(&v[0])))
}

// rawSignal sets sig's action to SIG_DFL (0) or SIG_IGN (1): struct
// sigaction as arm64 Linux reads it (handler, flags, restorer, mask).
func rawSignal(sig syscall.Signal, handler uintptr) {
	act := [4]uintptr{handler}
	syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act[0])), 0, 8, 0, 0)
}

// rawBlock adds sig to the calling thread's blocked set.
func rawBlock(sig syscall.Signal) {
	set := [1]uint64{1 << (sig - 1)}
	syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, 0 /* SIG_BLOCK */, uintptr(unsafe.Pointer(&set[0])), 0, 8, 0, 0)
}

// rawPending is the calling thread's pending set.
func rawPending() uint64 {
	var set [1]uint64
	syscall.RawSyscall(syscall.SYS_RT_SIGPENDING, uintptr(unsafe.Pointer(&set[0])), 8, 0)
	return set[0]
}

// rawRead reads one byte of fd and gives its errno.
func rawRead(fd int) syscall.Errno {
	var b [1]byte
	_, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), 1)
	return e
}

// rawOwnGroup puts the calling process in a process group of its own.
func rawOwnGroup() {
	syscall.RawSyscall(syscall.SYS_SETPGID, 0, 0, 0)
}

// groupChild forks a child that has put itself in a group of its own
// (the parent does too, so that the group exists when fork returns, as a
// shell makes a job); the child gets 0.
func groupChild() int {
	pid, e := rawClone(uintptr(syscall.SIGCHLD))
	if pid == 0 {
		rawOwnGroup()
		return 0
	}
	if e != 0 {
		check("jobctl-fork", false, "clone: %v", e)
		return -1
	}
	syscall.Setpgid(pid, pid)
	return pid
}

// reap kills child pid and collects it.
func reap(pid int) {
	syscall.Kill(pid, syscall.SIGKILL)
	wait(pid, 0)
}

// stoppedBy says whether wait4(pid, WUNTRACED) reports pid stopped by
// sig, and describes what it got otherwise.
func stoppedBy(pid int, sig syscall.Signal) (bool, string) {
	got, ws, err := wait(pid, syscall.WUNTRACED)
	return got == pid && err == nil && ws.Stopped() && ws.StopSignal() == sig,
		fmt.Sprintf("wait4(WUNTRACED) = %d, %v, status %#x; want stopped by %v", got, err, uint32(ws), sig)
}

// exitedWith says whether child pid exited with code, and describes
// what it got otherwise; a child that stopped instead is killed.
func exitedWith(pid int, code int) (bool, string) {
	got, ws, err := wait(pid, syscall.WUNTRACED)
	if err == nil && ws.Stopped() {
		reap(pid)
	}
	return got == pid && err == nil && ws.Exited() && ws.ExitStatus() == code,
		fmt.Sprintf("wait4 = %d, %v, status %#x; want exit %d", got, err, uint32(ws), code)
}

// session is the leader of a session of its own, run by jobctl as
// "child session".
func session() {
	me := os.Getpid()
	sid, err := syscall.Setsid()
	check("jobctl-setsid", err == nil && sid == me, "setsid() = %d, %v; want %d", sid, err, me)
	con, err := syscall.Open("/dev/console", syscall.O_RDWR, 0)
	if err != nil {
		check("jobctl-console", false, "open /dev/console: %v", err)
		return
	}
	// Opening /dev/console never makes it the controlling terminal
	// (Linux's tty_open: noctty for 5:1); TIOCSCTTY does.
	_, e := tcGet(con, syscall.TIOCGPGRP)
	check("jobctl-console-noctty", e == syscall.ENOTTY, "TIOCGPGRP after opening /dev/console: %v, want ENOTTY", e)
	_, err = syscall.Open("/dev/tty", syscall.O_RDWR, 0)
	check("jobctl-devtty-none", err == syscall.ENXIO, "open /dev/tty before TIOCSCTTY: %v, want ENXIO", err)
	e = tcIoctl(con, syscall.TIOCSCTTY, 0)
	check("jobctl-tiocsctty", e == 0, "TIOCSCTTY by a session leader: %v", e)
	pg, e := tcGet(con, syscall.TIOCGPGRP)
	check("jobctl-tiocgpgrp", e == 0 && pg == me, "TIOCGPGRP = %d, %v; want %d", pg, e, me)
	s, e := tcGet(con, syscall.TIOCGSID)
	check("jobctl-tiocgsid", e == 0 && s == me, "TIOCGSID = %d, %v; want %d", s, e, me)
	tty, err := syscall.Open("/dev/tty", syscall.O_RDWR, 0)
	pg, e = tcGet(tty, syscall.TIOCGPGRP)
	check("jobctl-devtty", err == nil && e == 0 && pg == me, "open /dev/tty: %v; TIOCGPGRP on it = %d, %v", err, pg, e)
	e = tcIoctl(con, syscall.TIOCSCTTY, 0)
	check("jobctl-tiocsctty-again", e == 0, "TIOCSCTTY of our own terminal: %v, want success", e)
	e = tcSetPgrp(con, -1)
	check("jobctl-tiocspgrp-einval", e == syscall.EINVAL, "TIOCSPGRP(-1): %v, want EINVAL", e)
	e = tcSetPgrp(con, 0x3fffffff)
	check("jobctl-tiocspgrp-esrch", e == syscall.ESRCH, "TIOCSPGRP of no group: %v, want ESRCH", e)
	e = tcSetPgrp(con, 0)
	check("jobctl-tiocspgrp-zero", e == syscall.ESRCH, "TIOCSPGRP(0): %v, want ESRCH", e)
	e = tcSetPgrp(con, 1)
	check("jobctl-tiocspgrp-eperm", e == syscall.EPERM, "TIOCSPGRP of PID 1's session: %v, want EPERM", e)

	// A job in the foreground: a child in a group of its own, waiting
	// on a pipe.
	var p [2]int
	syscall.Pipe(p[:])
	g := groupChild()
	if g == 0 {
		rawRead(p[0])
		rawExit(0)
	}
	e = tcSetPgrp(con, g)
	pg, _ = tcGet(con, syscall.TIOCGPGRP)
	check("jobctl-tiocspgrp", e == 0 && pg == g, "TIOCSPGRP(%d): %v; TIOCGPGRP = %d", g, e, pg)

	// We are in the background now, in a group its only member's parent
	// (PID 1, init) does not connect to the session: orphaned, so a read
	// is EIO and TIOCSPGRP ENOTTY rather than SIGTTIN or SIGTTOU.
	e = rawRead(tty)
	check("jobctl-read-orphaned", e == syscall.EIO, "a background read in an orphaned group: %v, want EIO", e)
	e = tcSetPgrp(con, me)
	check("jobctl-tiocspgrp-orphaned", e == syscall.ENOTTY, "TIOCSPGRP from the background in an orphaned group: %v, want ENOTTY", e)

	// A background job that reads is stopped by SIGTTIN, and its read
	// runs again when it goes on: stopped again.
	b := groupChild()
	if b == 0 {
		rawSignal(syscall.SIGTTIN, 0)
		rawRead(tty)
		rawExit(99)
	}
	ok, why := stoppedBy(b, syscall.SIGTTIN)
	check("jobctl-sigttin", ok, "a background read: %s", why)
	syscall.Kill(b, syscall.SIGCONT)
	ok, why = stoppedBy(b, syscall.SIGTTIN)
	check("jobctl-sigttin-restart", ok, "the read after SIGCONT: %s", why)
	reap(b)
	// Ignoring or blocking SIGTTIN makes the read EIO.
	for _, ignore := range []bool{true, false} {
		b = groupChild()
		if b == 0 {
			if ignore {
				rawSignal(syscall.SIGTTIN, 1)
			} else {
				rawSignal(syscall.SIGTTIN, 0)
				rawBlock(syscall.SIGTTIN)
			}
			rawExit(uintptr(rawRead(tty)))
		}
		name, how := "jobctl-read-ignored", "ignored"
		if !ignore {
			name, how = "jobctl-read-blocked", "blocked"
		}
		ok, why = exitedWith(b, int(syscall.EIO))
		check(name, ok, "a background read with SIGTTIN %s (exit: its errno): %s", how, why)
	}
	// Reads through /dev/console are never stopped (n_tty's job_control:
	// "don't stop on /dev/console"): not checked, the read would wait.

	// SIGTSTP stops a job, but does nothing in an orphaned group, which
	// nobody would continue: a child left in our group (its parent us,
	// our parent init) stops itself in vain and exits 7.
	for _, own := range []bool{true, false} {
		var z int
		if own {
			z = groupChild()
		} else {
			z, _ = rawClone(uintptr(syscall.SIGCHLD))
		}
		if z == 0 {
			syscall.RawSyscall(syscall.SYS_KILL, uintptr(syscall.Getpid()), uintptr(syscall.SIGTSTP), 0)
			rawExit(7)
		}
		if own {
			ok, why = stoppedBy(z, syscall.SIGTSTP)
			check("jobctl-sigtstp", ok, "SIGTSTP to a job: %s", why)
			reap(z)
		} else {
			ok, why = exitedWith(z, 7)
			check("jobctl-sigtstp-orphaned", ok, "SIGTSTP in an orphaned group: %s", why)
		}
	}

	// A background job that sets the foreground group, or the terminal's
	// modes, is stopped by SIGTTOU.
	for _, sets := range []struct {
		name string
		req  uintptr
	}{{"jobctl-sigttou", syscall.TIOCSPGRP}, {"jobctl-sigttou-tcsets", syscall.TCSETS}} {
		c := groupChild()
		if c == 0 {
			rawSignal(syscall.SIGTTOU, 0)
			var arg [64]byte // TIOCSPGRP: our group; TCSETS: the modes as they are
			if sets.req == syscall.TIOCSPGRP {
				*(*int32)(unsafe.Pointer(&arg[0])) = int32(syscall.Getpid())
			} else {
				tcIoctl(con, syscall.TCGETS, uintptr(unsafe.Pointer(&arg[0])))
			}
			tcIoctl(con, sets.req, uintptr(unsafe.Pointer(&arg[0])))
			rawExit(99)
		}
		ok, why = stoppedBy(c, syscall.SIGTTOU)
		check(sets.name, ok, "ioctl %#x from the background: %s", sets.req, why)
		reap(c)
	}
	// With SIGTTOU ignored it may (tty_check_change).
	c := groupChild()
	if c == 0 {
		rawSignal(syscall.SIGTTOU, 1)
		mine := [1]int32{int32(syscall.Getpid())}
		rawExit(uintptr(tcIoctl(con, syscall.TIOCSPGRP, uintptr(unsafe.Pointer(&mine[0])))))
	}
	ok, why = exitedWith(c, 0)
	pg, _ = tcGet(con, syscall.TIOCGPGRP)
	check("jobctl-sigttou-ignored", ok && pg == c, "TIOCSPGRP from the background with SIGTTOU ignored: %s; TIOCGPGRP = %d, want %d", why, pg, c)
	signal.Ignore(syscall.SIGTTOU)
	e = tcSetPgrp(con, g)
	check("jobctl-tiocspgrp-back", e == 0, "TIOCSPGRP back to the first job, SIGTTOU ignored: %v", e)
	// With TOSTOP a background job's write is stopped by SIGTTOU too,
	// and goes ahead with SIGTTOU ignored (n_tty_write's
	// tty_check_change). We may set it from the background: we ignore
	// SIGTTOU now.
	var tio syscall.Termios
	tcIoctl(con, syscall.TCGETS, uintptr(unsafe.Pointer(&tio)))
	tio.Lflag |= syscall.TOSTOP
	e = tcIoctl(con, syscall.TCSETS, uintptr(unsafe.Pointer(&tio)))
	for _, ignore := range []bool{false, true} {
		handler := uintptr(0) // SIG_DFL, or SIG_IGN: the child allocates nothing
		if ignore {
			handler = 1
		}
		w := groupChild()
		if w == 0 {
			rawSignal(syscall.SIGTTOU, handler)
			_, _, we := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(tty), uintptr(unsafe.Pointer(&tostopMsg[0])), uintptr(len(tostopMsg)))
			rawExit(uintptr(we))
		}
		if !ignore {
			ok, why = stoppedBy(w, syscall.SIGTTOU)
			check("jobctl-tostop", e == 0 && ok, "TCSETS with TOSTOP: %v; a background write: %s", e, why)
			reap(w)
		} else {
			ok, why = exitedWith(w, 0)
			check("jobctl-tostop-ignored", ok, "a background write with TOSTOP and SIGTTOU ignored (exit: its errno): %s", why)
		}
	}
	tio.Lflag &^= syscall.TOSTOP
	tcIoctl(con, syscall.TCSETS, uintptr(unsafe.Pointer(&tio)))
	syscall.Write(p[1], []byte{1})
	ok, why = exitedWith(g, 0)
	check("jobctl-job-done", ok, "the first job: %s", why)

	// TIOCNOTTY by the leader: the foreground group gets SIGHUP and
	// SIGCONT, and the session loses its terminal. The job stopped
	// itself with SIGHUP blocked: SIGCONT lets it look for SIGHUP.
	h := groupChild()
	if h == 0 {
		rawSignal(syscall.SIGHUP, 0)
		rawBlock(syscall.SIGHUP)
		syscall.RawSyscall(syscall.SYS_KILL, uintptr(syscall.Getpid()), uintptr(syscall.SIGSTOP), 0)
		if rawPending()&(1<<(syscall.SIGHUP-1)) == 0 {
			rawExit(1)
		}
		rawExit(0)
	}
	ok, why = stoppedBy(h, syscall.SIGSTOP)
	e = tcSetPgrp(con, h)
	check("jobctl-tiocnotty-job", ok && e == 0, "the job to hang up: %s; TIOCSPGRP: %v", why, e)
	e = tcIoctl(con, syscall.TIOCNOTTY, 0)
	ok, why = exitedWith(h, 0)
	check("jobctl-tiocnotty", e == 0 && ok, "TIOCNOTTY: %v; the foreground job (exit 0: SIGHUP pending after SIGCONT): %s", e, why)
	_, e = tcGet(con, syscall.TIOCGPGRP)
	_, err = syscall.Open("/dev/tty", syscall.O_RDWR, 0)
	check("jobctl-tiocnotty-gone", e == syscall.ENOTTY && err == syscall.ENXIO, "after TIOCNOTTY: TIOCGPGRP %v, open /dev/tty %v; want ENOTTY, ENXIO", e, err)

	// Another session may take the terminal only by force (TIOCSCTTY 1,
	// as root), and then it is no longer ours.
	e = tcIoctl(con, syscall.TIOCSCTTY, 0)
	check("jobctl-tiocsctty-reacquire", e == 0, "TIOCSCTTY after TIOCNOTTY: %v", e)
	cmd := exec.Command("/init", "child", "steal")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err = cmd.Run()
	check("jobctl-steal", err == nil, "the thief: %v", err)
	_, e = tcGet(con, syscall.TIOCGPGRP)
	check("jobctl-stolen", e == syscall.ENOTTY, "TIOCGPGRP after the terminal was taken: %v, want ENOTTY", e)

	// The thief's exit let the terminal go: ours again. Then we exit
	// holding it, with a job in the foreground and a stopped one in the
	// background (jobctl sees what they get). The thief's exit hung the
	// terminal up, and Linux hangs a terminal up once until it is opened
	// again (TTY_HUPPED): we open it.
	e = tcIoctl(con, syscall.TIOCSCTTY, 0)
	check("jobctl-thief-exit", e == 0, "TIOCSCTTY after the thief's exit: %v", e)
	_, err = syscall.Open("/dev/tty", syscall.O_RDWR, 0)
	check("jobctl-devtty-reopen", err == nil, "open /dev/tty: %v", err)
	fg := groupChild()
	if fg == 0 {
		rawSignal(syscall.SIGHUP, 0)
		rawRead(p[0]) // p[1] is open here too: only a signal ends it
		rawExit(0)
	}
	bg := groupChild()
	if bg == 0 {
		rawSignal(syscall.SIGHUP, 0)
		syscall.RawSyscall(syscall.SYS_KILL, uintptr(syscall.Getpid()), uintptr(syscall.SIGSTOP), 0)
		rawExit(0)
	}
	ok, why = stoppedBy(bg, syscall.SIGSTOP)
	e = tcSetPgrp(con, fg)
	check("jobctl-exit-jobs", ok && e == 0, "the stopped job: %s; TIOCSPGRP: %v", why, e)
	os.WriteFile(jobctlPids, []byte(fmt.Sprintln(fg, bg)), 0o644)
}

// steal is a child of the session's leader that takes its terminal:
// "child steal".
func steal() {
	con, err := syscall.Open("/dev/console", syscall.O_RDWR, 0)
	if err != nil {
		check("jobctl-console", false, "open /dev/console: %v", err)
		return
	}
	e := tcIoctl(con, syscall.TIOCSCTTY, 0)
	check("jobctl-tiocsctty-notleader", e == syscall.EPERM, "TIOCSCTTY by a process that leads no session: %v, want EPERM", e)
	syscall.Setsid()
	e = tcIoctl(con, syscall.TIOCSCTTY, 0)
	check("jobctl-tiocsctty-taken", e == syscall.EPERM, "TIOCSCTTY of another session's terminal: %v, want EPERM", e)
	e = tcIoctl(con, syscall.TIOCSCTTY, 1)
	s, e2 := tcGet(con, syscall.TIOCGSID)
	check("jobctl-tiocsctty-steal", e == 0 && e2 == 0 && s == os.Getpid(), "TIOCSCTTY(1) as root: %v; TIOCGSID = %d, %v", e, s, e2)
}

// takeConsole makes a session and takes the console: "child
// takeconsole".
func takeConsole() {
	syscall.Setsid()
	con, err := syscall.Open("/dev/console", syscall.O_RDWR, 0)
	if err != nil {
		guest.Check("takeconsole: open", false, err)
		return
	}
	if e := tcIoctl(con, syscall.TIOCSCTTY, 0); e != 0 {
		guest.Check("takeconsole: TIOCSCTTY", false, e)
	}
}

// intr: Ctrl-C typed on the console (a terminal's ISIG: gometal run
// from a terminal, gometal.echo=1) goes to the console's foreground
// process group: a session that took the console gets SIGINT, and PID 1
// does not (it would end the run). With the console in no session it
// goes to PID 1: gometal's choice, so that Ctrl-C stops what gometal
// run runs (Linux's init has no controlling terminal, and Linux signals
// nobody; this half is gometal's alone). TestConsoleInterrupt types ^C
// at each "type ^C" line.
func intr() {
	cmd := exec.Command("/init", "child", "intr")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err := cmd.Run()
	check("intr-session", err == nil, "the session: %v", err)
	awaitInterrupt("intr-init", "intr: type ^C for PID 1")
}

// awaitInterrupt prints prompt and waits a minute for SIGINT, which the
// check name reports.
func awaitInterrupt(name, prompt string) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	fmt.Println(prompt)
	select {
	case <-sigs:
		fmt.Println("ok", name)
	case <-time.After(60 * time.Second):
		check(name, false, "no SIGINT within 60s")
	}
}

// intrSession takes the console, so that its group is the foreground
// one, and waits for Ctrl-C: "child intr".
func intrSession() {
	syscall.Setsid()
	con, err := syscall.Open("/dev/console", syscall.O_RDWR, 0)
	if err == nil {
		err = tcIoctlErr(tcIoctl(con, syscall.TIOCSCTTY, 0))
	}
	if err != nil {
		check("intr-ctty", false, "taking the console: %v", err)
		return
	}
	awaitInterrupt("intr-foreground", "intr: type ^C for the foreground group")
}

// tcIoctlErr is an ioctl's errno as an error (nil for none).
func tcIoctlErr(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}
