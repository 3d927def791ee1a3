package linux

import (
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Processes: clone without CLONE_THREAD (fork, vfork), the end of a
// thread group, zombies, and what a parent hears of it. The reference
// is Linux's kernel/fork.c (copy_process) and kernel/exit.c (do_exit,
// do_group_exit, exit_notify, do_notify_parent); ARCHITECTURE.md, "The
// process layer", says which object is shared and which copied.

// cloneExitSignal is the part of clone's flags that names the signal
// the parent gets when the child exits (CSIGNAL).
const cloneExitSignal = 0xff

// cloneNamespaces are the flags that ask for new namespaces, which
// gometal does not have: such a clone answers EINVAL.
const cloneNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWUSER |
	unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWCGROUP | unix.CLONE_NEWTIME

// cloneProcess is clone without CLONE_THREAD: a new process, whose
// first thread starts as a copy of t returning 0, sharing with t's
// process what the flags say and copying the rest. With CLONE_VFORK t
// waits until the child execs or exits.
func cloneProcess(t *sched.Thread, f *sched.Frame, flags uint64) uint64 {
	switch {
	case flags&cloneNamespaces != 0:
		return errno(unix.EINVAL)
	case flags&unix.CLONE_SIGHAND != 0 && flags&unix.CLONE_VM == 0:
		return errno(unix.EINVAL)
	case flags&unix.CLONE_PARENT != 0 && lx(t).Proc == proc.Init:
		// Init's siblings would have no parent (copy_process).
		return errno(unix.EINVAL)
	case flags&unix.CLONE_PIDFD != 0 && flags&unix.CLONE_PARENT_SETTID != 0:
		// clone(2) takes the pidfd's address where CLONE_PARENT_SETTID
		// takes its own: both at once is EINVAL (kernel_clone).
		return errno(unix.EINVAL)
	}
	if proc.Count() >= proc.MaxProcs {
		return errno(unix.EAGAIN)
	}
	if signalsPending(t) {
		// A signal came for the caller (or its group is ending, or
		// stopping) since it entered: it goes first, and the call runs
		// again afterwards, as Linux's copy_process answers
		// -ERESTARTNOINTR: "Process group and session signals need to
		// be delivered to just the parent before the fork or both the
		// parent and the child after the fork... A fatal signal pending
		// means that current will exit, so the new thread can't slip
		// out of an OOM kill (or normal SIGKILL)." Without it a child
		// forked by a thread of a process being killed outlived it.
		return restartCall(t, f)
	}
	parent := lx(t).Proc
	if flags&unix.CLONE_PARENT != 0 {
		parent = procOf(t).Parent
	}
	n := newThread()
	if n == nil {
		return errno(unix.EAGAIN)
	}
	p := proc.NewFrom(n.TID, parent, lx(t).Proc)
	if p < 0 {
		n.State = sched.Free
		return errno(unix.EAGAIN)
	}
	lprocs[p] = lproc{Start: clock.Monotonic(), ParentTID: t.TID}
	if flags&unix.CLONE_PARENT != 0 {
		lprocs[p].ParentTID = lprocs[lx(t).Proc].ParentTID
	}
	if e := shareOrCopy(t, p, flags); e != 0 {
		undoClone(n, p)
		return errno(e)
	}
	pp := &proc.Procs[p]
	pp.ExitSignal = int32(flags & cloneExitSignal)
	pp.Threads = 1
	inheritExe(p, lx(t).Proc)

	childRegs(n, f, flags)
	n.Space = pp.MM
	n.Affinity = t.Affinity
	l, pl := lx(n), lx(t)
	l.Proc = p
	n.TGID = n.TID
	l.SigMask = pl.SigMask
	l.TimerSlack, l.DefaultSlack = pl.TimerSlack, pl.TimerSlack
	l.KeepCaps = pl.KeepCaps
	l.Comm = pl.Comm
	pp.Comm = pl.Comm // the forking thread's name, not its process's
	// The alternate signal stack is kept unless the child shares the
	// memory without vfork's pause, where it would be the parent's
	// stack in use (copy_process: sas_ss_reset).
	if flags&(unix.CLONE_VM|unix.CLONE_VFORK) != unix.CLONE_VM {
		l.AltSP, l.AltSize, l.AltFlags = pl.AltSP, pl.AltSize, pl.AltFlags
	}
	if flags&unix.CLONE_PARENT_SETTID != 0 {
		usermem.WriteU32(uintptr(f.X[2]), uint32(n.TID))
	}
	if flags&unix.CLONE_CHILD_SETTID != 0 {
		writeU32In(pp.MM, uintptr(f.X[4]), uint32(n.TID))
	}
	if flags&unix.CLONE_CHILD_CLEARTID != 0 {
		l.ClearTID = uintptr(f.X[4])
	}
	if flags&unix.CLONE_PIDFD != 0 {
		// In the parent's table only: the child's was copied before.
		fd := newPidfd(n.TID, 0)
		if int64(fd) < 0 || !usermem.WriteU32(uintptr(f.X[2]), uint32(fd)) {
			if int64(fd) >= 0 {
				closeFD(int(fd))
				fd = errno(unix.EFAULT)
			}
			undoClone(n, p)
			return fd
		}
	}
	procStats.Forks++
	traceProc(n)
	sched.Ready(n)
	if flags&unix.CLONE_VFORK != 0 {
		// The parent's thread waits, past any signal, until the child
		// execs or exits; vforkDone gives it the child's PID then.
		lprocs[p].VforkParent, lprocs[p].VforkTID = sched.Index(t)+1, t.TID
		sched.Block(t, sched.WaitVfork, 0, 0)
	}
	return uint64(n.TID)
}

// restartCall makes t run its system call again once it has taken its
// signals (Linux's -ERESTARTNOINTR): the PC goes back to the SVC, and the
// first argument, which the answer replaces, comes back as the answer.
func restartCall(t *sched.Thread, f *sched.Frame) uint64 {
	f.PC -= sched.SVCSize
	return t.OrigX0
}

// undoClone takes back a child made by cloneProcess that never ran:
// the objects it has (releaseObjects skips those it has not: -1).
func undoClone(n *sched.Thread, p int32) {
	releaseObjects(p)
	dropExe(p)
	proc.Reap(p)
	n.State = sched.Free
}

// shareOrCopy gives process p, cloned by t, its address space,
// descriptor table, file-system context and handler table: t's
// process's own where the flag asks to share, else copies. On failure
// the caller drops what p got (undoClone).
func shareOrCopy(t *sched.Thread, p int32, flags uint64) unix.Errno {
	src := procOf(t)
	pp := &proc.Procs[p]
	pp.MM, pp.Files, pp.FS, pp.SigHand = -1, -1, -1, -1
	if flags&unix.CLONE_VM != 0 {
		mm.Spaces[src.MM].Refs++
		pp.MM = src.MM
	} else if pp.MM = mm.CopySpace(src.MM); pp.MM < 0 {
		return unix.ENOMEM
	} else {
		procStats.Copies++
	}
	if flags&unix.CLONE_FILES != 0 {
		proc.FDTables[src.Files].Refs++
		pp.Files = src.Files
	} else if pp.Files = proc.CopyFDTable(src.Files); pp.Files < 0 {
		return unix.EAGAIN
	}
	if flags&unix.CLONE_FS != 0 {
		proc.FSContexts[src.FS].Refs++
		pp.FS = src.FS
	} else {
		c := proc.FSContexts[src.FS]
		if pp.FS = proc.NewFSContext(c); pp.FS < 0 {
			return unix.EAGAIN
		}
		holdCwd(&c)
	}
	if flags&unix.CLONE_SIGHAND != 0 {
		sigHands[src.SigHand].Refs++
		pp.SigHand = src.SigHand
	} else if pp.SigHand = copySigHand(src.SigHand); pp.SigHand < 0 {
		return unix.EAGAIN
	}
	return 0
}

// releaseObjects drops process p's references to its four objects (those
// it has: -1 is none), each torn down with its last: the descriptors
// close, the working directory is let go, the address space goes back
// once no core holds it.
func releaseObjects(p int32) {
	pp := &proc.Procs[p]
	if pp.Files >= 0 {
		ft := &proc.FDTables[pp.Files]
		if ft.Refs--; ft.Refs == 0 {
			closeAll(ft)
		}
		pp.Files = -1
	}
	if pp.FS >= 0 {
		c := &proc.FSContexts[pp.FS]
		if c.Refs--; c.Refs == 0 {
			dropCwd(c)
		}
		pp.FS = -1
	}
	if pp.SigHand >= 0 {
		putSigHand(pp.SigHand)
		pp.SigHand = -1
	}
	if pp.MM >= 0 {
		mm.Spaces[pp.MM].Put()
		pp.MM = -1
	}
}

// closeAll closes every descriptor of a table nobody uses any more.
func closeAll(ft *proc.FDTable) {
	dropTableLocks(tableIndex(ft))
	for fd := range ft.Slots {
		if fi := ft.Slots[fd].File - 1; fi >= 0 {
			sched.LockObject(&sched.FDLock) // unlockedIO's lookups
			ft.Slots[fd] = proc.FDSlot{}
			sched.FDLock.Unlock()
			vfs.DecRef(fi)
		}
	}
}

// writeU32In writes v at addr in address space s (a fork child's, which
// is not the one this core works in), as the app's own store would.
func writeU32In(s int32, addr uintptr, v uint32) bool {
	core := sched.SelfID()
	was := usermem.Cur()
	usermem.Use(core, &mm.Spaces[s])
	ok := usermem.WriteU32(addr, v)
	usermem.Use(core, was)
	return ok
}

// exitThread ends t, which called exit or was sent to (Dying): its
// clear_child_tid is cleared and woken, and with the last thread of its
// group the process ends with status: code for a plain exit, or what
// ended the group (exit_group, a fatal signal).
func exitThread(t *sched.Thread, code int) {
	if lx(t).ClearTID != 0 {
		usermem.WriteU32(lx(t).ClearTID, 0)
		futexWake(lx(t).ClearTID, 1)
	}
	t.State = sched.Dead
	kernel.I2CAbandon(t) // a transfer it waited for frees the bus when it ends
	p := lx(t).Proc
	pp := &proc.Procs[p]
	parentThreadExited(t, p)
	threadExitTimes(t, p)
	vfs.ReleasePollInstance(&lx(t).PollEp)
	lockSignals()
	dropQueued(sched.Index(t)+1, 0) // its own pending signals go with it
	unlockSignals()

	if pp.Threads--; pp.Threads > 0 {
		if pp.Threads == 1 {
			// An execve waiting for its process's other threads to end
			// runs again.
			lprocs[p].ThreadsGone.Notify(childWaitEvents)
		}
		return
	}
	status := proc.Exited(code)
	if lprocs[p].Exiting {
		status = lprocs[p].Status
	}
	processExited(p, status)
}

// exitGroup ends t's whole thread group with wait status status
// (exit_group, or a signal whose default is to end the process): every
// other thread is sent to exit (Dying), t exits now.
func exitGroup(t *sched.Thread, status int32) {
	endGroup(lx(t).Proc, status, t)
	exitThread(t, 0)
}

// endGroup makes every thread of process p but except leave: a running
// one is kicked into the kernel, a blocked one's wait ends, and each
// exits on its way back to EL0 (deliverSignals sends it to threadExitVA).
// The first reason given is the one the parent hears.
func endGroup(p int32, status int32, except *sched.Thread) {
	lp := &lprocs[p]
	if !lp.Exiting {
		lp.Exiting = true
		lp.Status = status
	}
	endOthers(p, except)
}

// dieWake gets o, which must exit, back to the kernel soon: the end of
// any wait it is blocked in (a vfork parent's too), or an SGI to the core
// it runs on. Decided under StateLock, as signalWake decides.
func dieWake(o *sched.Thread) {
	if o.State == sched.Blocked && lx(o).FIFOWait != 0 {
		sched.Wake(o, interruptResult(o))
		return
	}
	sched.LockState()
	switch o.State {
	case sched.Blocked:
		sched.WakeLocked(o, errno(unix.EINTR))
	case sched.Running:
		if int(o.CPU) != sched.SelfID() {
			sched.Kick(int(o.CPU))
		}
	}
	sched.UnlockState()
}

// processExited is the end of process p, whose last thread has just
// exited with wait status status: its objects go, a vfork parent waiting
// for it goes on, its children go to their reaper, and it becomes a
// zombie its parent hears of (SIGCHLD or its exit signal, and a wake-up
// of its waits) unless the parent does not want zombies (SIGCHLD
// ignored, SA_NOCLDWAIT), when it goes at once. PID 1's end is the end
// of the run.
func processExited(p int32, status int32) {
	procStats.Exits++
	if p == proc.Init {
		initExited(status)
		return
	}
	if mmi := proc.Procs[p].MM; mmi >= 0 {
		lprocs[p].MaxRSS = mm.Spaces[mmi].Peak
	}
	lockSignals()
	dropQueued(0, p+1)
	unlockSignals()
	kernel.LeaveSpace() // its memory comes back with releaseObjects
	releaseObjects(p)
	dropExe(p)
	vforkDone(p)
	pid := proc.Procs[p].PID
	var kids [proc.MaxProcs]bool
	stopped := anyStopped()
	if stopped {
		childrenOf(p, &kids)
	}
	reaper := proc.Exit(p, status)
	// The console and the process groups p's end leaves behind, as
	// Linux's do_exit and exit_notify (ctty_arm64.go).
	consoleExited(p)
	if stopped {
		exitOrphans(p, &kids)
	}
	pidfdExited(pid) // after Exit: readiness asks whether it is a zombie
	if reaper != proc.NoParent && hasZombieChild(reaper) {
		lprocs[reaper].ChildWait.Notify(^uint32(0))
	}
	notifyParent(p)
}

// vforkDone lets the thread of p's parent that vforked p go on, with
// p's PID as its clone's result (p has exec'd or exited).
func vforkDone(p int32) {
	lp := &lprocs[p]
	if lp.VforkParent == 0 {
		return
	}
	w := &sched.Threads[lp.VforkParent-1]
	lp.VforkParent = 0
	// Unless its own group's end took it out of the wait (dieWake).
	if w.TID == lp.VforkTID && w.State == sched.Blocked && w.Wait == sched.WaitVfork {
		sched.Wake(w, uint64(proc.Procs[p].PID))
	}
}

// hasZombieChild says whether a zombie has parent p (orphans adopted
// as zombies are waited for by their new parent).
func hasZombieChild(p int32) bool {
	z, _ := proc.FindZombie(p, proc.WaitAny, 0, proc.AllChildren)
	return z >= 0
}

// CLD_* si_code values for SIGCHLD (include/uapi/asm-generic/siginfo.h).
const (
	cldExited    = 1
	cldKilled    = 2
	cldDumped    = 3
	cldStopped   = 5
	cldContinued = 6
)

// childInfo is the siginfo a zombie's parent gets: si_pid, si_uid (0),
// si_status (the exit code, or the signal), as waitid fills it too.
func childInfo(z int32) (sigInfo, int32) {
	pp := &proc.Procs[z]
	ws := unix.WaitStatus(pp.Status)
	code, st := int32(cldExited), int32(ws.ExitStatus())
	if ws.Signaled() {
		code, st = cldKilled, int32(ws.Signal())
		if ws.CoreDump() {
			code = cldDumped
		}
	}
	// The union's first 16 bytes: si_pid and si_uid, then si_status.
	return sigInfo{Code: code, Fields: [2]uint64{uint64(uint32(pp.PID)), uint64(uint32(st))}}, st
}

// notifyParent tells the parent of the zombie z: its exit signal, and a
// wake-up of its waits; or, if the parent ignores SIGCHLD or set
// SA_NOCLDWAIT, z is reaped at once (do_notify_parent).
func notifyParent(z int32) {
	pp := &proc.Procs[z]
	parent := pp.Parent
	if parent == proc.NoParent {
		return
	}
	info, _ := childInfo(z)
	act := &sigHands[proc.Procs[parent].SigHand].Actions[sigCHLD]
	autoReap := pp.ExitSignal == int32(sigCHLD) && (act.handler == sigIGN || act.flags&saNoCldWait != 0)
	if sig := int(pp.ExitSignal); sig > 0 && sig < nsig {
		postProcessSignal(parent, sig, info, nil)
	}
	if autoReap {
		proc.Reap(z)
	}
	lprocs[parent].ChildWait.Notify(^uint32(0))
}

// procStats counts process events for the stats switch.
var procStats struct{ Forks, Copies, Execs, Exits, Stops, OOMKills uint64 }
