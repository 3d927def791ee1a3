//go:build linux && arm64

package main

// The process kinds: fork and vfork whose children fuzz too, waits with
// every option, signals to the children and their groups, process
// groups, pidfds, prctl, execve that must fail, and the reaping at the
// end. The fuzz never signals itself with anything that could end it,
// nor kill(-1) with a signal that ends or stops, nor execs anything real
// in itself; a child does what it likes to itself and its siblings.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// maxKids bounds the fuzz's children not known to be reaped (the
// kernel's process table holds 64, grandchildren and zombies included).
const maxKids = 16

// kids holds the PIDs of children not known to be reaped: 0 is a free
// slot, -1 one being forked into.
var kids [maxKids]atomic.Int32

// maxChildCalls bounds a child's plan.
const maxChildCalls = 24

// selfPID as an argument in a child's plan is the child's own PID
// (child_arm64.s substitutes it).
const selfPID = 0x5e1f5e1f5e1f5e1f

// childPlan is what a child runs (child_arm64.s reads it; checkPlanLayout
// keeps the offsets there true).
type childPlan struct {
	Flags uintptr    // clone's flags
	N     uintptr    // calls to make
	Code  uintptr    // exit_group's status after them
	TLS   uintptr    // CLONE_SETTLS's value
	Mask  uint64     // the child's signal mask once its handlers are reset
	All   uint64     // every signal: the parent's mask around the clone
	Old   uint64     // the parent's mask before it
	Pidfd int32      // the clone's CLONE_PIDFD (or CLONE_PARENT_SETTID) answer
	Ptid  int32      // a thread's CLONE_PARENT_SETTID answer, in the child
	Ctid  uint64     // CLONE_CHILD_SETTID's and CLONE_CHILD_CLEARTID's word
	Dfl   [4]uintptr // struct sigaction for SIG_DFL
	Ign   [4]uintptr // struct sigaction for SIG_IGN
	Set   uint64     // a signal set for the plan's rt_sigprocmask calls
	_     uint64
	Calls [maxChildCalls][8]uintptr // number, six arguments, padding
}

func forkRun(p *childPlan) uintptr

//go:linkname entersyscall runtime.entersyscall
func entersyscall()

//go:linkname exitsyscall runtime.exitsyscall
func exitsyscall()

// cloneRun is forkRun as the runtime's own system calls make theirs
// (syscall.Syscall): in the syscall state, so that a stop-the-world
// (a GC's) need not wait for this thread, whose signals are blocked
// until the clone returns, and for a vfork until the child is done
// (the runtime cannot preempt it). Nosplit between the two, as theirs.
//
//go:nosplit
func cloneRun(p *childPlan) uintptr {
	entersyscall()
	r := forkRun(p)
	exitsyscall()
	return r
}

func checkPlanLayout() {
	var p childPlan
	offs := []uintptr{unsafe.Offsetof(p.Flags), unsafe.Offsetof(p.N), unsafe.Offsetof(p.Code), unsafe.Offsetof(p.TLS),
		unsafe.Offsetof(p.Mask), unsafe.Offsetof(p.All), unsafe.Offsetof(p.Old), unsafe.Offsetof(p.Pidfd),
		unsafe.Offsetof(p.Ctid), unsafe.Offsetof(p.Dfl), unsafe.Offsetof(p.Calls)}
	want := []uintptr{0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 152}
	for i := range offs {
		if offs[i] != want[i] {
			fail("childPlan layout", nil)
		}
	}
}

// A goroutine's own state for the process kinds: its plan (on the heap,
// where it never moves: a vfork child reads it while the parent waits)
// and buffers the kernel writes into.
type procState struct {
	plan   childPlan
	status int32
	info   [128]byte
	ru     unix.Rusage
	timex  unix.Timex
	argv   [4]uintptr
	strs   [64]byte
	// The exec that runs this program again ("exec-child"): its own
	// strings, which no other call of a plan overwrites.
	childArgv [3]uintptr
	childStrs [32]byte
	// The clock setters' arguments.
	ts unix.Timespec
	tv unix.Timeval
	tz [2]int32
}

// Signal numbers with names the fuzz cares about.
const (
	sigKILL  = 9
	sigSTOP  = 19
	sigTSTP  = 20
	sigTTIN  = 21
	sigTTOU  = 22
	sigCONT  = 18
	sigCHLD  = 17
	sigURG   = 23
	sigWINCH = 28
)

// stops reports whether sig's default action stops a process.
func stops(sig uintptr) bool {
	return sig == sigSTOP || sig == sigTSTP || sig == sigTTIN || sig == sigTTOU
}

// signal picks a signal for a child: any, often those that change its
// state; sometimes a bad number.
func signal(r *rand.Rand) uintptr {
	switch r.IntN(8) {
	case 0:
		return []uintptr{sigSTOP, sigCONT, sigKILL, sigTSTP, sigTTIN, 15, 1, sigCHLD}[r.IntN(8)]
	case 1:
		return []uintptr{65, 1000, ^uintptr(0), 0}[r.IntN(4)]
	}
	return uintptr(r.IntN(65))
}

// garbagePID is a PID no process has (Linux's pid_max is at most 2^22)
// or a malformed one.
func garbagePID(r *rand.Rand) uintptr {
	switch r.IntN(4) {
	case 0:
		return uintptr(1<<22 + r.IntN(1<<20))
	case 1:
		return uintptr(0x8000_0000) // INT_MIN as a pid_t
	case 2:
		return uintptr(r.Uint64()) | 1<<40 // its low 32 bits are what counts
	}
	return ^uintptr(1<<22 + r.IntN(1<<20)) // -(4M+)
}

// kid returns the PID of one of the fuzz's children (0: none now).
func kid(r *rand.Rand) int32 {
	at := r.IntN(maxKids)
	for i := 0; i < maxKids; i++ {
		if p := kids[(at+i)%maxKids].Load(); p > 0 {
			return p
		}
	}
	return 0
}

// freeKid forgets pid once it is known to be reaped.
func freeKid(pid int32) {
	for i := range kids {
		if kids[i].CompareAndSwap(pid, 0) {
			return
		}
	}
}

// takeSlot reserves a slot for a new child: first a free one, then one
// whose child has gone (reaped by a wait that could not tell the fuzz
// which: a status pointer that was garbage), then one whose child it
// kills and reaps itself. -1: another thread holds every slot.
func takeSlot(r *rand.Rand) int {
	free := func() int {
		for i := range kids {
			if kids[i].CompareAndSwap(0, -1) {
				return i
			}
		}
		for i := range kids {
			if p := kids[i].Load(); p > 0 && unix.Kill(int(p), 0) == unix.ESRCH && kids[i].CompareAndSwap(p, -1) {
				return i
			}
		}
		return -1
	}
	if i := free(); i >= 0 {
		return i
	}
	// Reap what has ended, strays too (grandchildren the fuzz adopted,
	// which only a wait for any child finds), so that the process table
	// does not fill with zombies.
	for j := 0; j < maxKids; j++ {
		var st unix.WaitStatus
		pid, err := unix.Wait4(-1, &st, unix.WNOHANG|unix.WALL, nil)
		if err != nil || pid <= 0 {
			break
		}
		if st.Exited() || st.Signaled() {
			freeKid(int32(pid))
			collected.Add(1)
		}
	}
	if i := free(); i >= 0 {
		return i
	}
	at := r.IntN(maxKids)
	for j := 0; j < maxKids; j++ {
		i := (at + j) % maxKids
		if p := kids[i].Load(); p > 0 && kids[i].CompareAndSwap(p, -1) {
			reap(p)
			return i
		}
	}
	return -1
}

// reap kills child pid and waits for it (it may have been reaped by
// another thread already: ECHILD).
func reap(pid int32) {
	unix.Kill(int(pid), unix.SIGKILL)
	for {
		r, _, e := unix.Syscall6(unix.SYS_WAIT4, uintptr(pid), 0, unix.WALL, 0, 0, 0)
		if e != unix.EINTR {
			if e == 0 && int32(r) == pid {
				collected.Add(1)
			}
			return
		}
	}
}

// fillPlan writes a child's calls: first into a group of its own (so that
// kill(0) never reaches the fuzz), then random ones, then exit_group. A
// vfork child runs on the fuzz's memory while a fuzz thread waits for
// it, so its calls leave the memory's mappings alone and never wait long
// or stop it.
func fillPlan(r *rand.Rand, ts *unix.Timespec, s *procState, vfork bool) {
	p := &s.plan
	p.All = ^uint64(0)
	p.Dfl = [4]uintptr{0, 0, 0, 0}
	p.Ign = [4]uintptr{1, uintptr(r.Uint32()) &^ 0x04000000, 0, uintptr(r.Uint64())} // SA_RESTORER off
	p.Set = r.Uint64()
	p.Mask = 0
	if r.IntN(8) == 0 {
		p.Mask = r.Uint64()
	}
	p.Code = uintptr(r.IntN(256))
	if r.IntN(2) == 0 {
		p.setCall(0, unix.SYS_SETPGID, 0, 0)
	} else {
		p.setCall(0, unix.SYS_SETSID)
	}
	// Its standard output and error go to /dev/null: this program run
	// again (exec-child) may die of a signal with the runtime's report.
	p.setCall(1, unix.SYS_DUP3, uintptr(devNull), 1, 0)
	p.setCall(2, unix.SYS_DUP3, uintptr(devNull), 2, 0)
	const first = 3
	n := first + r.IntN(maxChildCalls-first)
	var forked, threaded bool
	for i := first; i < n; i++ {
		childCall(r, ts, s, i, vfork, &forked, &threaded)
	}
	p.N = uintptr(n)
}

func (p *childPlan) setCall(i int, nr uintptr, a ...uintptr) {
	c := &p.Calls[i]
	*c = [8]uintptr{nr}
	copy(c[1:7], a)
}

// childFD is a descriptor for a child's call: the fuzz's own (copies),
// bad ones, and for a fork child whatever else it may have inherited or
// opened (never 0-2: the console, where a read waits for typing).
func childFD(r *rand.Rand, vfork bool) uintptr {
	switch r.IntN(4) {
	case 0:
		return uintptr(1<<20 + r.IntN(100))
	case 1:
		if !vfork {
			return uintptr(3 + r.IntN(40))
		}
	}
	return uintptr(scratchFD[r.IntN(len(scratchFD))])
}

// childSignal is a signal a child sends itself or its group: a vfork
// child never stops itself (its parent's thread would wait for as long).
func childSignal(r *rand.Rand, vfork bool) uintptr {
	sig := signal(r)
	for vfork && stops(sig) {
		sig = signal(r)
	}
	return sig
}

// badPtr is a pointer no call can use (kernel, non-canonical, a guard
// page): unlike addr it never points at memory with contents.
func badPtr(r *rand.Rand) uintptr {
	switch r.IntN(3) {
	case 0:
		return 0xffff_0000_0000_0000 + uintptr(r.Uint64N(1<<30))
	case 1:
		return 0x0001_0000_0000_0000 + uintptr(r.Uint64N(1<<40))
	}
	return guardLo + uintptr(r.IntN(page))
}

// childCall writes call i of a child's plan.
func childCall(r *rand.Rand, ts *unix.Timespec, s *procState, i int, vfork bool, forked, threaded *bool) {
	p := &s.plan
	set := func(nr uintptr, a ...uintptr) { p.setCall(i, nr, a...) }
	switch r.IntN(18) {
	case 17:
		// A second thread, once: it runs the rest of the plan too (no
		// stack: child_arm64.s uses none), and whichever thread ends
		// the plan first ends both (exit_group), wherever the other
		// is; an exit before then ends only its thread, an exec the
		// other one first. Not in a vfork child: Linux lets the parent
		// go on once the vforked thread exits (mm_release), and the
		// other would run on in the fuzz's memory.
		if *threaded || vfork {
			set(unix.SYS_GETTID)
			break
		}
		*threaded = true
		const thread = unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_THREAD | unix.CLONE_SYSVSEM
		fl := []uintptr{thread, thread | unix.CLONE_SETTLS | unix.CLONE_PARENT_SETTID | unix.CLONE_CHILD_CLEARTID,
			thread | unix.CLONE_CHILD_SETTID, thread &^ unix.CLONE_SIGHAND}[r.IntN(4)]
		set(unix.SYS_CLONE, fl, 0, uintptr(unsafe.Pointer(&p.Ptid)), uintptr(r.Uint64()), uintptr(unsafe.Pointer(&p.Ctid)))
	case 0:
		switch r.IntN(5) {
		case 0:
			set(unix.SYS_READ, childFD(r, vfork), addr(r), length(r))
		case 1:
			set(unix.SYS_WRITE, childFD(r, vfork), addr(r), length(r))
		case 2:
			set(unix.SYS_PREAD64, childFD(r, vfork), addr(r), length(r), uintptr(r.Uint64()))
		case 3:
			set(unix.SYS_LSEEK, childFD(r, vfork), uintptr(r.Uint64()), uintptr(r.IntN(6)))
		case 4:
			set(unix.SYS_FSTAT, childFD(r, vfork), addr(r))
		}
	case 1:
		// Its own descriptor table (a copy): close and dup freely.
		if r.IntN(2) == 0 {
			set(unix.SYS_CLOSE, childFD(r, vfork))
		} else {
			set(unix.SYS_DUP3, childFD(r, vfork), uintptr(r.IntN(64)), []uintptr{0, unix.O_CLOEXEC, uintptr(r.Uint32())}[r.IntN(3)])
		}
	case 2:
		switch r.IntN(4) {
		case 0:
			set(unix.SYS_OPENAT, atCWD, path(r), flags(r)|unix.O_NONBLOCK, uintptr(r.IntN(0o7777)))
		case 1:
			set(unix.SYS_MKDIRAT, atCWD, path(r), uintptr(r.IntN(0o7777)))
		case 2:
			set(unix.SYS_UNLINKAT, atCWD, path(r), flags(r))
		case 3:
			set(unix.SYS_RENAMEAT, atCWD, path(r), atCWD, path(r))
		}
	case 3:
		// Signals to itself, its group, a sibling or its group, or no
		// one; never the fuzz (its group is the child's no longer).
		sig := childSignal(r, vfork)
		switch r.IntN(6) {
		case 0:
			set(unix.SYS_KILL, selfPID, sig)
		case 1:
			set(unix.SYS_KILL, 0, sig)
		case 2:
			set(unix.SYS_KILL, selfPID, 0)
		case 3:
			if k := kid(r); k > 0 {
				set(unix.SYS_KILL, uintptr(k), signal(r))
			} else {
				set(unix.SYS_KILL, garbagePID(r), sig)
			}
		case 4:
			if k := kid(r); k > 0 {
				set(unix.SYS_KILL, uintptr(-k), signal(r))
			} else {
				set(unix.SYS_GETPID)
			}
		case 5:
			set(unix.SYS_KILL, garbagePID(r), sig)
		}
	case 4:
		sig := childSignal(r, vfork)
		switch r.IntN(3) {
		case 0:
			set(unix.SYS_TGKILL, selfPID, selfPID, sig)
		case 1:
			set(unix.SYS_TKILL, selfPID, sig)
		case 2:
			set(unix.SYS_RT_SIGQUEUEINFO, selfPID, sig, addr(r))
		}
	case 5:
		a := prctlArgs(r, childSignal(r, vfork))
		set(unix.SYS_PRCTL, a[:]...)
	case 6:
		set(unix.SYS_RT_SIGPROCMASK, uintptr(r.IntN(4)), []uintptr{uintptr(unsafe.Pointer(&p.Set)), 0, badPtr(r)}[r.IntN(3)],
			[]uintptr{0, addr(r)}[r.IntN(2)], []uintptr{8, uintptr(r.IntN(16))}[r.IntN(2)])
	case 7:
		// SIG_DFL or SIG_IGN, never a handler: there is no code to run.
		act := []uintptr{uintptr(unsafe.Pointer(&p.Dfl)), uintptr(unsafe.Pointer(&p.Ign)), 0, badPtr(r)}[r.IntN(4)]
		set(unix.SYS_RT_SIGACTION, uintptr(r.IntN(70)), act, []uintptr{0, addr(r)}[r.IntN(2)], []uintptr{8, uintptr(r.IntN(16))}[r.IntN(2)])
	case 8:
		switch r.IntN(8) {
		case 0:
			set(unix.SYS_GETPPID)
		case 1:
			set(unix.SYS_GETPGID, []uintptr{0, selfPID, garbagePID(r)}[r.IntN(3)])
		case 2:
			set(unix.SYS_GETSID, []uintptr{0, selfPID, garbagePID(r)}[r.IntN(3)])
		case 3:
			set(unix.SYS_SETSID)
		case 4:
			// Into a sibling's group (a fork child: a vfork child
			// stays out of groups the others signal).
			if k := kid(r); k > 0 && !vfork {
				set(unix.SYS_SETPGID, 0, uintptr(k))
			} else {
				set(unix.SYS_SETPGID, 0, 0)
			}
		case 5:
			set(unix.SYS_SCHED_YIELD)
		case 6:
			set(unix.SYS_GETRANDOM, addr(r), length(r)&0xffff, flags(r)&7)
		case 7:
			set(unix.SYS_WAIT4, []uintptr{^uintptr(0), 0, selfPID}[r.IntN(3)], addr(r), unix.WNOHANG|flags(r)&(unix.WALL|unix.WUNTRACED|unix.WCONTINUED), addr(r))
		}
	case 9:
		// Every wait is short, as fuzzOne's.
		if r.IntN(2) == 0 {
			a := futexArgs(r, ts)
			set(unix.SYS_FUTEX, a[:]...)
		} else {
			set(unix.SYS_NANOSLEEP, nanosleepReq(r, ts), addr(r))
		}
	case 10:
		// An exec that fails, or now and then one that runs this
		// program again, which exits at once (main's "exec-child"),
		// from a name of its own (setupExec).
		if r.IntN(3) == 0 {
			copy(s.childStrs[:], "/fuzz-exec/child\x00\x00\x00\x00exec-child\x00")
			s.childArgv = [3]uintptr{uintptr(unsafe.Pointer(&s.childStrs[0])), uintptr(unsafe.Pointer(&s.childStrs[20])), 0}
			set(unix.SYS_EXECVE, uintptr(unsafe.Pointer(&s.childStrs[0])), uintptr(unsafe.Pointer(&s.childArgv[0])), 0)
		} else {
			nr, a := badExec(r, s)
			set(nr, a[:]...)
		}
	case 11:
		nr, a := clockCall(r, s)
		set(nr, a[:]...)
	case 12:
		set(unix.SYS_CLOCK_GETTIME, uintptr(r.IntN(16)-4), addr(r))
	case 13:
		// Its own memory: a fork child's is its own copy, so anything
		// goes (unmapping its plan ends it with SIGSEGV, as it should).
		// A vfork child's is the fuzz's.
		if vfork {
			set(unix.SYS_GETTID)
			break
		}
		a := uintptr(r.Uint64N(1<<47)) &^ (page - 1)
		switch r.IntN(3) {
		case 0:
			a = scratch &^ (page - 1)
		case 1:
			a = uintptr(unsafe.Pointer(p)) &^ (page - 1)
		}
		n := []uintptr{page, length(r) &^ (page - 1), 1 << 30}[r.IntN(3)]
		switch r.IntN(4) {
		case 0:
			set(unix.SYS_MUNMAP, a, n)
		case 1:
			set(unix.SYS_MPROTECT, a, n, flags(r)&7)
		case 2:
			set(unix.SYS_MADVISE, a, n, uintptr(r.IntN(30)))
		case 3:
			set(unix.SYS_MMAP, a, n, flags(r)&7, flags(r)&^(unix.MAP_POPULATE|unix.MAP_LOCKED), fd(r), 0)
		}
	case 14:
		// A grandchild, once: it runs the rest of the plan too. Fork
		// children only (a vfork child's would share the fuzz's memory
		// without a parent waiting).
		if vfork || *forked || r.IntN(4) != 0 {
			set(unix.SYS_GETPID)
			break
		}
		*forked = true
		fl := []uintptr{sigCHLD, 0, 10, unix.CLONE_VM | unix.CLONE_VFORK | sigCHLD}[r.IntN(4)]
		set(unix.SYS_CLONE, fl, 0, 0, 0, 0)
	case 15:
		set(unix.SYS_EXIT, uintptr(r.IntN(256)))
	case 16:
		switch r.IntN(3) {
		case 0:
			set(unix.SYS_PIDFD_OPEN, []uintptr{selfPID, uintptr(max(kid(r), 0)), garbagePID(r)}[r.IntN(3)], []uintptr{0, unix.O_NONBLOCK, flags(r)}[r.IntN(3)])
		case 1:
			// A descriptor it may have: signal 0 only (one inherited
			// from the fuzz may name the fuzz).
			set(unix.SYS_PIDFD_SEND_SIGNAL, uintptr(3+r.IntN(40)), 0, 0, 0)
		case 2:
			set(unix.SYS_PIDFD_GETFD, uintptr(3+r.IntN(40)), uintptr(r.IntN(64)), []uintptr{0, flags(r)}[r.IntN(2)])
		}
	}
}

// forkKind is fuzzOne's fork (vfork false) and vfork: a child that runs
// a plan, whose PID goes into kids, sometimes with CLONE_PIDFD (used
// and closed) and other flags, or with flags the kernel refuses.
func forkKind(r *rand.Rand, ts *unix.Timespec, s *procState, vfork bool) {
	slot := takeSlot(r)
	if slot < 0 {
		return
	}
	fillPlan(r, ts, s, vfork)
	p := &s.plan
	p.Flags = sigCHLD
	if vfork {
		p.Flags |= unix.CLONE_VM | unix.CLONE_VFORK
	}
	switch r.IntN(16) {
	case 0:
		p.Flags &^= 0xff // no exit signal: a clone child, for __WALL or __WCLONE
	case 1:
		p.Flags = p.Flags&^0xff | 10 // SIGUSR1: a clone child too
	case 2, 3:
		p.Flags |= unix.CLONE_PIDFD
	case 4:
		p.Flags |= unix.CLONE_FS
	case 5:
		p.Flags |= unix.CLONE_CHILD_SETTID | unix.CLONE_CHILD_CLEARTID | unix.CLONE_PARENT_SETTID
	case 6:
		p.Flags |= unix.CLONE_SETTLS
		p.TLS = uintptr(r.Uint64())
	case 7:
		// Refused, as Linux refuses them: the fuzz is init (no
		// CLONE_PARENT), handlers without memory, a pidfd and a TID
		// in one word, CLONE_THREAD without CLONE_SIGHAND, CLONE_NEWNS
		// with CLONE_FS.
		// (CLONE_SIGHAND with CLONE_VM is allowed: a vfork child
		// would then reset the fuzz's own handlers.)
		bad := []uintptr{unix.CLONE_PARENT, unix.CLONE_PIDFD | unix.CLONE_PARENT_SETTID,
			unix.CLONE_THREAD, unix.CLONE_NEWNS | unix.CLONE_FS, unix.CLONE_SIGHAND}
		if vfork {
			bad = bad[:4]
		}
		p.Flags |= bad[r.IntN(len(bad))]
	}
	p.Pidfd = -1
	ret := cloneRun(p)
	pid := int32(ret)
	if int64(ret) < 0 || pid <= 0 {
		kids[slot].Store(0)
		refused.Add(1)
		return
	}
	kids[slot].Store(pid)
	if vfork {
		made[1].Add(1)
	} else {
		made[0].Add(1)
	}
	if p.Flags&unix.CLONE_PIDFD != 0 && p.Pidfd >= 0 {
		pidfdUse(r, uintptr(p.Pidfd), true)
		unix.Close(int(p.Pidfd))
	}
}

// waitOptions are wait4's and waitid's options, one in eight times with
// a bit neither knows.
func waitOptions(r *rand.Rand, waitid bool) uintptr {
	bits := []uintptr{unix.WNOHANG, unix.WUNTRACED, unix.WCONTINUED, unix.WALL, unix.WCLONE, 0x20000000}
	if waitid {
		bits = []uintptr{unix.WNOHANG, unix.WEXITED, unix.WSTOPPED, unix.WCONTINUED, unix.WNOWAIT, unix.WALL, unix.WCLONE, 0x20000000}
	}
	var o uintptr
	for _, b := range bits {
		if r.IntN(2) == 0 {
			o |= b
		}
	}
	if r.IntN(8) == 0 {
		o |= uintptr(1) << r.IntN(32)
	}
	return o
}

// wait4Kind: any pid (-1, 0, a child, its group, garbage) with any
// options, the status and rusage anywhere. Only a wait for a child it
// has just killed may block (anything else could wait for ever: a child
// may stop, and live).
func wait4Kind(r *rand.Rand, s *procState) {
	pid := ^uintptr(0) // -1: any child, the strays too (grandchildren the fuzz adopted)
	k := kid(r)
	block := false
	switch r.IntN(8) {
	case 5:
		pid = 0
	case 0, 1:
		if k > 0 {
			pid = uintptr(k)
		}
	case 2:
		if k > 0 {
			pid = uintptr(-k)
		}
	case 3:
		pid = garbagePID(r)
	case 4:
		if k > 0 && r.IntN(2) == 0 {
			unix.Kill(int(k), unix.SIGKILL)
			pid, block = uintptr(k), true
		}
	}
	opts := waitOptions(r, false)
	if !block {
		opts |= unix.WNOHANG
	}
	st := []uintptr{uintptr(unsafe.Pointer(&s.status)), 0, addr(r)}[r.IntN(3)]
	ru := []uintptr{0, uintptr(unsafe.Pointer(&s.ru)), addr(r)}[r.IntN(3)]
	s.status = 0
	for {
		ret, _, e := unix.Syscall6(unix.SYS_WAIT4, pid, st, opts, ru, 0, 0)
		if e == unix.EINTR {
			continue
		}
		ws := unix.WaitStatus(s.status)
		if e == 0 && int32(ret) > 0 && st == uintptr(unsafe.Pointer(&s.status)) && (ws.Exited() || ws.Signaled()) {
			freeKid(int32(ret))
			collected.Add(1)
		}
		return
	}
}

// waitidKind: waitid by every idtype with any options; blocking only
// for a child just killed, and then waiting for exits.
func waitidKind(r *rand.Rand, s *procState) {
	idtype, id := uintptr(unix.P_ALL), uintptr(r.Uint32())
	k := kid(r)
	block := false
	pidfd := -1
	switch r.IntN(7) {
	case 0, 1:
		idtype = unix.P_PID
		id = uintptr(max(k, 0))
	case 2:
		idtype = unix.P_PGID
		id = []uintptr{0, uintptr(max(k, 0)), garbagePID(r)}[r.IntN(3)]
	case 3:
		idtype = unix.P_PIDFD
		if k > 0 {
			if fd, err := unix.PidfdOpen(int(k), 0); err == nil {
				pidfd = fd
				id = uintptr(fd)
			}
		}
	case 4:
		idtype = []uintptr{4, 100, ^uintptr(0)}[r.IntN(3)]
	case 5:
		if k > 0 && r.IntN(2) == 0 {
			unix.Kill(int(k), unix.SIGKILL)
			idtype, id, block = unix.P_PID, uintptr(k), true
		}
	}
	opts := waitOptions(r, true)
	if block {
		opts = opts&^unix.WNOHANG | unix.WEXITED
	} else {
		opts |= unix.WNOHANG
	}
	infop := []uintptr{uintptr(unsafe.Pointer(&s.info[0])), 0, addr(r)}[r.IntN(3)]
	ru := []uintptr{0, uintptr(unsafe.Pointer(&s.ru)), addr(r)}[r.IntN(3)]
	s.info = [128]byte{}
	for {
		_, _, e := unix.Syscall6(unix.SYS_WAITID, idtype, id, infop, opts, ru, 0)
		if e == unix.EINTR {
			continue
		}
		code := *(*int32)(unsafe.Pointer(&s.info[8]))
		pid := *(*int32)(unsafe.Pointer(&s.info[16]))
		if e == 0 && infop == uintptr(unsafe.Pointer(&s.info[0])) && pid > 0 && code >= 1 && code <= 3 && opts&unix.WNOWAIT == 0 {
			freeKid(pid)
			collected.Add(1)
		}
		break
	}
	if pidfd >= 0 {
		unix.Close(pidfd)
	}
}

// signalKind sends signals to the children and their groups, and to
// PIDs nobody has; kill(-1) only with signals that neither end nor stop
// (every child gets it, never the fuzz, as on Linux).
func signalKind(r *rand.Rand, s *procState) {
	k := kid(r)
	sig := signal(r)
	if k <= 0 {
		k = int32(garbagePID(r))
	}
	switch r.IntN(9) {
	case 0, 1:
		raw(unix.SYS_KILL, uintptr(k), sig)
	case 2:
		raw(unix.SYS_KILL, uintptr(-k), sig)
	case 3:
		raw(unix.SYS_TGKILL, uintptr(k), uintptr(k), sig)
	case 4:
		raw(unix.SYS_TKILL, uintptr(k), sig)
	case 5:
		// si_code from wherever addr points: one claiming the kernel's
		// codes is refused for another process.
		if r.IntN(2) == 0 {
			raw(unix.SYS_RT_SIGQUEUEINFO, uintptr(k), sig, addr(r))
		} else {
			raw(unix.SYS_RT_TGSIGQUEUEINFO, uintptr(k), uintptr(k), sig, addr(r))
		}
	case 6:
		raw(unix.SYS_KILL, ^uintptr(0), []uintptr{0, sigCONT, sigCHLD, sigURG, sigWINCH}[r.IntN(5)])
	case 7:
		raw(unix.SYS_KILL, garbagePID(r), sig)
	case 8:
		// The fuzz's own group and itself: only the check.
		raw(unix.SYS_KILL, uintptr(r.IntN(2)), 0)
	}
}

// pidfdUse does something with a process descriptor: signals (only 0
// when it may be the fuzz's own), waits, fetches a descriptor, reads it.
func pidfdUse(r *rand.Rand, fd uintptr, child bool) {
	switch r.IntN(5) {
	case 0:
		sig := uintptr(0)
		if child {
			sig = signal(r)
		}
		raw(unix.SYS_PIDFD_SEND_SIGNAL, fd, sig, []uintptr{0, addr(r)}[r.IntN(2)], []uintptr{0, 0, flags(r)}[r.IntN(3)])
	case 1:
		var info [128]byte
		raw(unix.SYS_WAITID, unix.P_PIDFD, fd, uintptr(unsafe.Pointer(&info[0])), waitOptions(r, true)|unix.WNOHANG, 0)
	case 2:
		target := []uintptr{uintptr(r.IntN(64)), uintptr(scratchFD[r.IntN(len(scratchFD))]), ^uintptr(0)}[r.IntN(3)]
		ret, _, e := unix.Syscall(unix.SYS_PIDFD_GETFD, fd, target, []uintptr{0, 0, flags(r)}[r.IntN(3)])
		if e == 0 {
			unix.Close(int(ret))
		}
	case 3:
		raw(unix.SYS_READ, fd, addr(r), length(r))
	case 4:
		raw(unix.SYS_FSTAT, fd, addr(r))
	}
}

// pidfdKind opens a process descriptor for a child, the fuzz itself, one
// of its threads (EINVAL), nobody, with any flags, and uses it.
func pidfdKind(r *rand.Rand) {
	pid := uintptr(os.Getpid())
	child := false
	switch r.IntN(6) {
	case 0, 1, 2:
		if k := kid(r); k > 0 {
			pid, child = uintptr(k), true
		}
	case 3:
		pid = uintptr(unix.Gettid())
	case 4:
		pid = garbagePID(r)
	}
	fl := []uintptr{0, unix.O_NONBLOCK, flags(r)}[r.IntN(3)]
	ret, _, e := unix.Syscall(unix.SYS_PIDFD_OPEN, pid, fl, 0)
	if e != 0 {
		return
	}
	pidfdUse(r, ret, child)
	unix.Close(int(ret))
}

// groupKind moves children between groups and asks after groups and
// sessions; the fuzz's own group and session never change.
func groupKind(r *rand.Rand) {
	k := uintptr(max(kid(r), 0))
	other := uintptr(max(kid(r), 0))
	switch r.IntN(4) {
	case 0, 1:
		pgid := []uintptr{0, k, other, 1, garbagePID(r)}[r.IntN(5)]
		if k == 0 {
			k = garbagePID(r) // never 0: the fuzz itself
		}
		raw(unix.SYS_SETPGID, k, pgid)
	case 2:
		raw(unix.SYS_GETPGID, []uintptr{0, k, garbagePID(r)}[r.IntN(3)])
	case 3:
		raw(unix.SYS_GETSID, []uintptr{0, k, garbagePID(r)}[r.IntN(3)])
	}
}

// prctlArgs are a prctl call's: the process options (the death signal
// sig, the name, the subreaper flag), set and read, or an option that is
// none. They touch the fuzz only in ways that cannot harm it: it has no
// parent to lose, and is every orphan's reaper already.
func prctlArgs(r *rand.Rand, sig uintptr) [3]uintptr {
	switch r.IntN(7) {
	case 0:
		return [3]uintptr{unix.PR_SET_PDEATHSIG, sig}
	case 1:
		return [3]uintptr{unix.PR_GET_PDEATHSIG, addr(r)}
	case 2:
		return [3]uintptr{unix.PR_SET_NAME, addr(r)}
	case 3:
		return [3]uintptr{unix.PR_GET_NAME, addr(r)}
	case 4:
		return [3]uintptr{unix.PR_SET_CHILD_SUBREAPER, uintptr(r.IntN(3))}
	case 5:
		return [3]uintptr{unix.PR_GET_CHILD_SUBREAPER, addr(r)}
	}
	return [3]uintptr{uintptr(1000 + r.IntN(1000)), addr(r), addr(r)}
}

func prctlKind(r *rand.Rand) {
	a := prctlArgs(r, uintptr(r.IntN(70)))
	raw(unix.SYS_PRCTL, a[:]...)
}

// execPaths are files an exec must refuse (setup makes them in
// /fuzz-exec, which no other kind names): a directory, no execute bit,
// not a program, a script whose interpreter is missing, is a directory,
// is itself, and nothing at all.
var execPaths = []string{"/fuzz-exec", "/fuzz-exec/noexec", "/fuzz-exec/junk", "/fuzz-exec/script",
	"/fuzz-exec/dirscript", "/fuzz-exec/loop", "/fuzz-exec/missing", "/fuzz-exec/junk/x", ""}

var execDirFD int

func setupExec() {
	unix.Mkdir("/fuzz-exec", 0o755)
	os.WriteFile("/fuzz-exec/noexec", []byte("#!/fuzz-exec/missing\n"), 0o644)
	os.WriteFile("/fuzz-exec/junk", []byte("\x7fELF but not one"), 0o755)
	os.WriteFile("/fuzz-exec/script", []byte("#!/fuzz-exec/missing arg\n"), 0o755)
	os.WriteFile("/fuzz-exec/dirscript", []byte("#!/fuzz-exec\n"), 0o755)
	os.WriteFile("/fuzz-exec/loop", []byte("#!/fuzz-exec/loop\n"), 0o755)
	// A name for this program that no other kind can rename or replace
	// (they may do anything to /init): the children's exec that works.
	if err := os.Link("/init", "/fuzz-exec/child"); err != nil {
		fail("link /init", err)
	}
	execDirFD, _ = unix.Open("/fuzz-exec", unix.O_RDONLY|unix.O_DIRECTORY, 0)
}

// badExec is an execve or execveat that must fail: one of execPaths (or
// a name relative to /fuzz-exec) or a bad pointer, argv and envp
// anything; execveat from a descriptor that is not a program.
func badExec(r *rand.Rand, s *procState) (uintptr, [6]uintptr) {
	var name uintptr
	switch r.IntN(4) {
	case 0:
		name = badPtr(r)
	default:
		p := execPaths[r.IntN(len(execPaths))]
		n := copy(s.strs[:len(s.strs)-1], p)
		s.strs[n] = 0
		name = uintptr(unsafe.Pointer(&s.strs[0]))
	}
	s.argv = [4]uintptr{name, addr(r), 0, 0}
	argv := []uintptr{uintptr(unsafe.Pointer(&s.argv[0])), 0, addr(r)}[r.IntN(3)]
	envp := []uintptr{uintptr(unsafe.Pointer(&s.argv[1])), 0, addr(r)}[r.IntN(3)]
	if r.IntN(2) == 0 {
		return unix.SYS_EXECVE, [6]uintptr{name, argv, envp}
	}
	// execveat: relative to /fuzz-exec's descriptor, or from one of the
	// fuzz's own (AT_EMPTY_PATH: none is a program), or a bad one.
	dirfd := []uintptr{uintptr(execDirFD), atCWD, uintptr(scratchFD[r.IntN(len(scratchFD))]), uintptr(1<<20 + r.IntN(100))}[r.IntN(4)]
	fl := []uintptr{0, unix.AT_EMPTY_PATH, unix.AT_SYMLINK_NOFOLLOW, flags(r)}[r.IntN(4)]
	if dirfd == uintptr(execDirFD) && r.IntN(2) == 0 {
		// "junk", "loop", ...: relative to /fuzz-exec.
		copy(s.strs[:], []string{"junk\x00", "loop\x00", "noexec\x00", "..\x00", "missing\x00"}[r.IntN(5)])
		name = uintptr(unsafe.Pointer(&s.strs[0]))
	}
	if dirfd == atCWD && name == uintptr(unsafe.Pointer(&s.strs[0])) && s.strs[0] != '/' {
		// A relative name from / could name /init.
		dirfd = uintptr(execDirFD)
	}
	return unix.SYS_EXECVEAT, [6]uintptr{dirfd, name, argv, envp, fl}
}

func execKind(r *rand.Rand, s *procState) {
	nr, a := badExec(r, s)
	ret, _, e := unix.Syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
	if e == 0 {
		fail("an exec that must fail ran", unix.Errno(ret))
	}
}

// reapAll ends the fuzz's children and every other process (kill(-1,
// SIGKILL) spares the caller, PID 1), then reaps until none is left, and
// checks that none is: wait4 answers ECHILD, and on gometal the process
// table holds the fuzz alone.
func reapAll() {
	for i := range kids {
		if p := kids[i].Load(); p > 0 {
			unix.Kill(int(p), unix.SIGKILL)
		}
	}
	reaped := 0
	for {
		unix.Kill(-1, unix.SIGKILL) // grandchildren, and a child forked meanwhile
		var st unix.WaitStatus
		pid, err := unix.Wait4(-1, &st, unix.WALL, nil)
		if err == unix.ECHILD {
			break
		}
		if err == nil && pid > 0 {
			reaped++
		}
	}
	for i := range kids {
		kids[i].Store(0)
	}
	if _, err := unix.Wait4(-1, nil, unix.WALL|unix.WNOHANG, nil); err != unix.ECHILD {
		ps()
		fail("a child is left after reaping every one", err)
	}
	var si unix.Sysinfo_t
	unix.Sysinfo(&si)
	if onGometal() && si.Procs != 1 {
		ps()
		fmt.Printf("FAIL: %d processes left in the kernel's table after reaping every child\n", si.Procs)
		os.Exit(1)
	}
	fmt.Printf("processes: %d forks and %d vforks (%d refused), %d collected by the fuzz's waits, %d reaped at the end, none left\n",
		made[0].Load(), made[1].Load(), refused.Load(), collected.Load(), reaped)
}

// What the fuzz's children came to: made by fork ([0]) and vfork ([1]),
// clones refused (EINVAL for flags the kernel refuses, EAGAIN for a full
// table), and children a wait of the fuzz's reported collected.
var (
	made               [2]atomic.Int64
	refused, collected atomic.Int64
)

func onGometal() bool {
	var u unix.Utsname
	unix.Uname(&u)
	return bytesHas(u.Release[:], "gometal")
}

func bytesHas(b []byte, s string) bool {
	for i := 0; i+len(s) <= len(b); i++ {
		if string(b[i:i+len(s)]) == s {
			return true
		}
	}
	return false
}

// ps prints every other process: PID, state, parent, group, name.
func ps() {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' || e.Name() == "1" {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		fmt.Printf("ps: %s", b)
	}
}
