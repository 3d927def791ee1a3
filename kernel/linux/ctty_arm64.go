package linux

import (
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/tty"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// A terminal (the console, or a pty's slave: kernel/tty/pty.go) as a
// controlling terminal: job control, as Linux does it
// (drivers/tty/tty_jobctrl.c, n_tty.c's job_control, the hangup in
// tty_io.c, kernel/exit.c's orphaned process groups; credentials(7),
// tty_ioctl(4)). A terminal keeps its session and foreground group as
// IDs (Terminal.Session, Terminal.Pgrp); a process knows whether it has
// a controlling terminal (proc.Process.CTTY, inherited by fork and
// dropped by setsid), and which it is by its session (cttyOf).
// Everything here runs under the kernel lock.
//
// A session leader with no terminal takes the console with TIOCSCTTY.
// Opening a node never gives it: Linux's tty_open never makes
// /dev/console (5:1) a controlling terminal, /dev/tty (5:0) is one
// already, and the initramfs has no other node of the console (Linux's
// /dev/ttyAMA0, which an open would give). A process of the session
// outside the foreground group is in the background: its reads through
// /dev/tty (not through /dev/console, which Linux never stops) and its
// TIOCSPGRP and TCSETS stop its group with SIGTTIN or SIGTTOU
// (tty_check_change). Writes are left alone: TOSTOP needs termios, which
// the console does not keep yet.
//
// A pty's slave opened without O_NOCTTY by a session leader with no
// terminal becomes its own (tty_open_proc_set_tty); its master's close
// hangs it up (ptyHangup).

// ttyCheckChange is Linux's __tty_check_change for t, about to read
// (sigTTIN) or change terminal tm (sigTTOU): 0 when it may, that is
// when tm is not its controlling terminal or its group is in
// the foreground. Otherwise, with sig ignored or blocked, a read is EIO
// and a change goes ahead; in an orphaned group (no one left to
// continue it) both are EIO; else sig goes to its whole group and the
// call is cut short to run again once the group goes on (Linux's
// -ERESTARTSYS: restarted after a stop, or after a handler with
// SA_RESTART; sigpolicy.go).
func ttyCheckChange(t *sched.Thread, tm *tty.Terminal, sig int) uint64 {
	pp := procOf(t)
	if tm == nil || cttyOf(pp) != tm || tm.Pgrp == 0 || pp.PGID == tm.Pgrp {
		return 0
	}
	switch {
	case lx(t).SigMask&sigBit(sig) != 0 || actionsOf(t)[sig].handler == sigIGN:
		if sig == sigTTIN {
			return errno(unix.EIO)
		}
		return 0
	case proc.OrphanedGroup(pp.PGID, -1):
		return errno(unix.EIO)
	}
	killGroup(pp.PGID, sig, sigInfo{Code: siKERNEL}, t)
	markInterrupted(t)
	return errno(unix.EINTR)
}

// ttyJobControl is tty.JobControl: a read through /dev/tty by the
// current thread (n_tty_read's job_control), or a write with TOSTOP
// (n_tty_write's tty_check_change).
func ttyJobControl(write bool) uint64 {
	if write {
		return ttyCheckChange(current(), cttyOf(procOf(current())), sigTTOU)
	}
	return ttyCheckChange(current(), cttyOf(procOf(current())), sigTTIN)
}

// ttyWait is tty.Wait: the current thread waits on terminal tm's
// queue for input, until deadline (0: none), with done bytes of the read
// already given to the app; a signal then ends the read with them
// (interruptResult), the deadline with timeoutResult, and input runs the
// read again (ttyResumed).
func ttyWait(tm *tty.Terminal, deadline, done, timeoutResult uint64) {
	t := current()
	t.Progress = done
	sched.BlockOn(t, &tm.W.Q, sched.WaitFile, unix.EPOLLIN|unix.EPOLLERR|unix.EPOLLHUP, deadline, timeoutResult)
}

// ttyResumed is tty.Resumed: the deadline and bytes of the wait that
// this run of the read follows, if it is a re-run.
func ttyResumed() (deadline, done uint64) {
	t := current()
	if !t.Retried {
		return 0, 0
	}
	return t.RetryDeadline, t.Progress
}

// ttySignal is tty.Signal: Ctrl-C or Ctrl-\ typed on the console goes
// to its foreground process group (n_tty's isig: kill_pgrp, si_code
// SI_KERNEL). With none (the console in no session) it goes to PID 1:
// gometal's choice, so that Ctrl-C still stops what `gometal run`
// runs. Linux would signal nobody: its init has no controlling terminal.
func ttySignal(pgrp int32, sig int) {
	info := sigInfo{Code: siKERNEL}
	if pgrp == 0 {
		postProcessSignal(proc.Init, sig, info, nil)
		return
	}
	killGroup(pgrp, sig, info, nil)
}

// cttyOf is process pp's controlling terminal, nil with none: the
// console or a pty's slave, whichever belongs to pp's session (a
// session has one controlling terminal and a terminal one session, so
// the session names it: Linux's signal->tty).
func cttyOf(pp *proc.Process) *tty.Terminal {
	if !pp.CTTY {
		return nil
	}
	if tty.Console.Session == pp.SID {
		return &tty.Console
	}
	for n := range tty.Ptys {
		if tm := &tty.Ptys[n].Slave; tty.Used(int32(n)) && tm.Session == pp.SID {
			return tm
		}
	}
	return nil
}

// takeConsole makes terminal tm process p's controlling terminal, with
// p's session and group as its own (__proc_set_tty).
func takeConsole(tm *tty.Terminal, p int32) {
	pp := &proc.Procs[p]
	tm.Session, tm.Pgrp = pp.SID, pp.PGID
	pp.CTTY = true
}

// releaseConsole takes terminal tm from its session: no process of it
// has it any more (session_clear_tty), and it has no foreground group.
func releaseConsole(tm *tty.Terminal) {
	if tm.Session != 0 {
		proc.ClearCTTY(tm.Session)
	}
	tm.Session, tm.Pgrp = 0, 0
}

// ptyHangup is tty.Hangup: a pty's master closed while its slave is a
// session's controlling terminal (tty_vhangup's __tty_hangup): the
// session leader gets SIGHUP and SIGCONT (tty_signal_session_leader),
// and the session loses the terminal.
func ptyHangup(tm *tty.Terminal) {
	sid := tm.Session
	releaseConsole(tm)
	if p := proc.ByPID(sid); p >= 0 && proc.Procs[p].State == proc.Live {
		info := sigInfo{Code: siKERNEL}
		postProcessSignal(p, sigHUP, info, nil)
		postProcessSignal(p, sigCONT, info, nil)
	}
}

// openedConsole is told of every open of a terminal; through /dev/tty
// (5:0) the description's reads are job-controlled. Any open ends a
// hangup (tty_open clears TTY_HUPPED).
func openedConsole(tm *tty.Terminal, fl *vfs.File, viaTTY bool) {
	tm.HungUp = false
	tm.Reopened()
	if viaTTY {
		tty.OpenedAsTTY(fl)
	}
}

// consoleIoctl answers the job-control requests on the console (Linux's
// tty_jobctrl_ioctl) and checks a change of its modes from the
// background (set_termios's tty_check_change); handled is false for the
// requests the console itself answers.
func consoleIoctl(t *sched.Thread, fl *vfs.File, req uint64, arg uintptr) (r uint64, handled bool) {
	pp := procOf(t)
	tm, ok := fl.Impl.(*tty.Terminal)
	if !ok {
		return 0, false // a pty's master: its own requests (tty.Pty.Ioctl)
	}
	switch req {
	case unix.TIOCSCTTY:
		return tiocsctty(t, tm, fl, int32(arg)), true // Linux's int argument
	case unix.TIOCNOTTY:
		if !pp.CTTY {
			return errno(unix.ENOTTY), true
		}
		noTTY(t)
		return 0, true
	case unix.TIOCGPGRP:
		// tiocgpgrp: ENOTTY unless tm is the caller's terminal.
		if cttyOf(pp) != tm {
			return errno(unix.ENOTTY), true
		}
		return putPID(arg, tm.Pgrp), true
	case unix.TIOCGSID:
		if cttyOf(pp) != tm || tm.Session == 0 {
			return errno(unix.ENOTTY), true
		}
		return putPID(arg, tm.Session), true
	case unix.TIOCSPGRP:
		return tiocspgrp(t, tm, arg), true
	case unix.TCSETS, unix.TCSETSW, unix.TCSETSF:
		if r := ttyCheckChange(t, tm, sigTTOU); r != 0 {
			return r, true
		}
	}
	return 0, false
}

// putPID writes a pid_t to the app.
func putPID(addr uintptr, id int32) uint64 {
	if !usermem.WriteU32(addr, uint32(id)) {
		return errno(unix.EFAULT)
	}
	return 0
}

// tiocsctty is TIOCSCTTY: a session leader with no controlling terminal
// takes the console, unless another session has it; with arg 1 and
// CAP_SYS_ADMIN (root: gometal keeps no capabilities apart) it takes it
// from that session. A leader asking for its own terminal succeeds.
func tiocsctty(t *sched.Thread, tm *tty.Terminal, fl *vfs.File, arg int32) uint64 {
	p := lx(t).Proc
	pp := &proc.Procs[p]
	leader := proc.Leader(p)
	if leader && tm.Session == pp.SID {
		return 0
	}
	if !leader || pp.CTTY {
		return errno(unix.EPERM)
	}
	root := pp.Cred.Privileged()
	if tm.Session != 0 {
		if arg != 1 || !root {
			return errno(unix.EPERM)
		}
		releaseConsole(tm)
	}
	if !fl.Readable() && !root {
		return errno(unix.EPERM) // write access alone gives no terminal (tty_open_proc_set_tty)
	}
	takeConsole(tm, p)
	return 0
}

// noTTY is TIOCNOTTY by the thread t, whose controlling terminal the
// console is (no_tty). A session leader gives it up for the session
// (disassociate_ctty(0)): the foreground group gets SIGHUP and SIGCONT,
// sent by the caller (kill_pgrp without priv: SI_USER), and no process
// of the session has it any more. Anyone else only forgets it.
func noTTY(t *sched.Thread) {
	p := lx(t).Proc
	if tm := cttyOf(&proc.Procs[p]); tm != nil && proc.Leader(p) {
		if fg := tm.Pgrp; fg != 0 {
			killGroup(fg, sigHUP, userInfo(t, siUSER), t)
			killGroup(fg, sigCONT, userInfo(t, siUSER), t)
		}
		releaseConsole(tm)
	}
	proc.Procs[p].CTTY = false
}

// tiocspgrp is TIOCSPGRP: the caller makes a process group of its
// session the console's foreground group. From the background it must
// pass tty_check_change first, whose EIO (an orphaned group) Linux
// answers as ENOTTY.
func tiocspgrp(t *sched.Thread, tm *tty.Terminal, arg uintptr) uint64 {
	switch r := ttyCheckChange(t, tm, sigTTOU); r {
	case 0:
	case errno(unix.EIO):
		return errno(unix.ENOTTY)
	default:
		return r
	}
	v, ok := usermem.ReadU32(arg)
	if !ok {
		return errno(unix.EFAULT)
	}
	pgrp := int32(v)
	if pgrp < 0 {
		return errno(unix.EINVAL)
	}
	pp := procOf(t)
	if cttyOf(pp) != tm {
		return errno(unix.ENOTTY)
	}
	sid, ok := proc.SessionOfGroup(pgrp)
	switch {
	case !ok:
		return errno(unix.ESRCH)
	case sid != pp.SID:
		return errno(unix.EPERM)
	}
	tm.Pgrp = pgrp
	return 0
}

// consoleExited is the console's part of process p's end, once p is a
// zombie (Linux's disassociate_ctty(1) from do_exit). A session leader
// holding the console hangs it up (tty_vhangup_session): no process of
// the session has it any more, the console is free, and its foreground
// group gets SIGHUP; the leader itself would get SIGHUP and SIGCONT,
// but it is gone. A console hung up stays so until it is opened again,
// and a second hangup before then signals nobody, as on Linux.
func consoleExited(p int32) {
	tm := cttyOf(&proc.Procs[p])
	if !proc.Leader(p) || tm == nil {
		return
	}
	fg := tm.Pgrp
	releaseConsole(tm)
	if tm.HungUp {
		return
	}
	tm.HungUp = true
	if fg != 0 {
		killGroup(fg, sigHUP, sigInfo{Code: siKERNEL}, nil)
	}
}

// childrenOf marks in kids the processes whose parent is p, before p's
// exit gives them to their reaper: exitOrphans looks at their groups.
func childrenOf(p int32, kids *[proc.MaxProcs]bool) {
	for i := range proc.Procs {
		if proc.Procs[i].State != proc.Free && proc.Procs[i].Parent == p {
			kids[i] = true
		}
	}
}

// anyStopped says whether some process is stopped: only then may an
// exit orphan a group that needs waking.
func anyStopped() bool {
	for i := range proc.Procs {
		if proc.Procs[i].State == proc.Live && lprocs[i].Stopped {
			return true
		}
	}
	return false
}

// exitOrphans wakes the process groups p's exit has orphaned that have
// a stopped member, with SIGHUP and then SIGCONT (POSIX; Linux's
// exit_notify: kill_orphaned_pgrp of each child it hands on, with p as
// the parent, and of p's own group): nobody would continue them
// otherwise. kids are p's children before its exit, p a zombie now.
func exitOrphans(p int32, kids *[proc.MaxProcs]bool) {
	for c := range kids {
		if kids[c] {
			wakeOrphaned(int32(c), p)
		}
	}
	if par := proc.Procs[p].Parent; par != proc.NoParent {
		wakeOrphaned(p, par)
	}
}

// wakeOrphaned is kill_orphaned_pgrp: c's group, which parent linked to
// its session from another group, gets SIGHUP and SIGCONT if it is now
// orphaned and has a stopped member.
func wakeOrphaned(c, parent int32) {
	cp, pp := &proc.Procs[c], &proc.Procs[parent]
	pgrp := cp.PGID
	if pp.PGID == pgrp || pp.SID != cp.SID || !stoppedIn(pgrp) || !proc.OrphanedGroup(pgrp, -1) {
		return
	}
	info := sigInfo{Code: siKERNEL}
	killGroup(pgrp, sigHUP, info, nil)
	killGroup(pgrp, sigCONT, info, nil)
}

// stoppedIn says whether a live process of group pgrp is stopped
// (has_stopped_jobs).
func stoppedIn(pgrp int32) bool {
	for i := range proc.Procs {
		if proc.Procs[i].State == proc.Live && proc.Procs[i].PGID == pgrp && lprocs[i].Stopped {
			return true
		}
	}
	return false
}
