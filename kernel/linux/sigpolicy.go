package linux

import "golang.org/x/sys/unix"

// Signal policy with no hardware in it, so host tests cover it: which
// pending signal goes first, what a signal does by default, and which
// interrupted syscalls a handler's SA_RESTART restarts.

const nsig = 65 // signals 1..64

func sigBit(sig int) uint64 { return 1 << uint(sig-1) }

// nextSignal picks the signal to deliver from a non-empty set, as Linux's
// next_signal does: a synchronous (fault) signal first, so that the handler
// sees the fault that happened, then the lowest number.
func nextSignal(set uint64) int {
	if s := set & sigSynchronous; s != 0 {
		set = s
	}
	sig := 1
	for set&1 == 0 {
		set >>= 1
		sig++
	}
	return sig
}

// Default actions (signal(7)): the few ignored by default; everything
// else ends the process, which gometal reports and turns into status
// 128+sig. Stop signals (SIGSTOP, SIGTSTP, ...) have no job control to
// stop for, so they too end the app.
func defaultIgnored(sig int) bool { return sigDefaultIgnore&sigBit(sig) != 0 }

// ignored says whether posting sig can be dropped at once: its action is
// to ignore it (explicitly, or by default). Linux drops such a signal
// when it is sent (sig_ignored) unless the target blocks it, since the
// action may change before it is unblocked.
func ignored(sig int, handler uint64) bool {
	return handler == sigIGN || handler == sigDFL && defaultIgnored(sig)
}

// restartsAfterHandler says whether a syscall cut short by a signal is
// run again when that signal's handler returns. Linux
// (arch/arm64/kernel/signal.c, handle_signal and do_signal) restarts the
// calls that fail with -ERESTARTSYS when the handler has SA_RESTART, by
// rewinding the PC to the SVC and putting back the first argument:
// reads and writes of pipes, the console and sockets, accept, connect,
// an open of a FIFO waiting for its partner (fifo_open), wait4 and
// waitid (do_wait), the console's ioctls from the background
// (tty_check_change: TIOCSPGRP, TCSETS), and a futex wait without a
// timeout. Sleeps, futex waits with a timeout
// (-ERESTART_RESTARTBLOCK), epoll waits and rt_sigsuspend (-ERESTARTNOHAND)
// and rt_sigtimedwait return EINTR whatever the flags say.
func restartsAfterHandler(nr uint64, args *[6]uint64, saFlags uint64) bool {
	if saFlags&saRestart == 0 {
		return false
	}
	switch nr {
	case unix.SYS_READ, unix.SYS_READV, unix.SYS_PREAD64,
		unix.SYS_WRITE, unix.SYS_WRITEV, unix.SYS_PWRITE64,
		unix.SYS_ACCEPT, unix.SYS_ACCEPT4, unix.SYS_CONNECT,
		unix.SYS_RECVFROM, unix.SYS_SENDTO, unix.SYS_OPENAT,
		unix.SYS_WAIT4, unix.SYS_WAITID, // do_wait's -ERESTARTSYS
		unix.SYS_IOCTL:
		return true
	case unix.SYS_FUTEX:
		op := args[1] & futexCmdMask
		return (op == futexWait || op == futexWaitBitset) && args[3] == 0
	}
	return false
}
