package linux

import (
	"testing"

	"golang.org/x/sys/unix"
)

func TestNextSignalFaultsFirstThenLowest(t *testing.T) {
	cases := []struct {
		set  uint64
		want int
	}{
		{sigBit(sigUSR1), sigUSR1},
		{sigBit(sigURG) | sigBit(sigINT), sigINT},
		{sigBit(sigHUP) | sigBit(sigSEGV), sigSEGV}, // the fault before a lower async signal
		{sigBit(sigINT) | sigBit(sigBUS) | sigBit(sigSEGV), sigBUS},
		{sigBit(64), 64},
	}
	for _, c := range cases {
		if got := nextSignal(c.set); got != c.want {
			t.Errorf("nextSignal(%#x) = %d, want %d", c.set, got, c.want)
		}
	}
}

func TestIgnoredAtSend(t *testing.T) {
	for _, sig := range []int{sigURG, sigCHLD, sigWINCH, sigCONT} {
		if !ignored(sig, sigDFL) {
			t.Errorf("signal %d with SIG_DFL should be ignored (signal(7))", sig)
		}
	}
	for _, sig := range []int{sigINT, sigTERM, sigUSR1, sigHUP, sigALRM, sigPIPE} {
		if ignored(sig, sigDFL) {
			t.Errorf("signal %d with SIG_DFL terminates, not ignored", sig)
		}
		if !ignored(sig, sigIGN) {
			t.Errorf("signal %d with SIG_IGN should be ignored", sig)
		}
	}
	if ignored(sigURG, 0x1234) {
		t.Errorf("a signal with a handler is never ignored")
	}
}

// What arm64 Linux does with each interrupted call (-ERESTARTSYS restarts
// under SA_RESTART; -ERESTART_RESTARTBLOCK and -ERESTARTNOHAND, and plain
// -EINTR, never do once a handler ran).
func TestRestartsAfterHandler(t *testing.T) {
	noTimeout := [6]uint64{0x1000, futexWait | 128, 0, 0}
	withTimeout := [6]uint64{0x1000, futexWait, 0, 0x2000}
	bitsetNoTimeout := [6]uint64{0x1000, futexWaitBitset, 0, 0}
	var none [6]uint64
	cases := []struct {
		nr      uint64
		args    *[6]uint64
		restart bool
	}{
		{unix.SYS_READ, &none, true},
		{unix.SYS_WRITE, &none, true},
		{unix.SYS_READV, &none, true},
		{unix.SYS_ACCEPT4, &none, true},
		{unix.SYS_RECVFROM, &none, true},
		{unix.SYS_OPENAT, &none, true}, // a FIFO open waiting for its partner
		{unix.SYS_FUTEX, &noTimeout, true},
		{unix.SYS_FUTEX, &bitsetNoTimeout, true},
		{unix.SYS_FUTEX, &withTimeout, false},
		{unix.SYS_NANOSLEEP, &none, false},
		{unix.SYS_CLOCK_NANOSLEEP, &none, false},
		{unix.SYS_EPOLL_PWAIT, &none, false},
		{unix.SYS_RT_SIGSUSPEND, &none, false},
		{unix.SYS_RT_SIGTIMEDWAIT, &none, false},
	}
	for _, c := range cases {
		if got := restartsAfterHandler(c.nr, c.args, saRestart); got != c.restart {
			t.Errorf("syscall %d args %v with SA_RESTART: restart = %v, want %v", c.nr, *c.args, got, c.restart)
		}
		if restartsAfterHandler(c.nr, c.args, 0) {
			t.Errorf("syscall %d restarted without SA_RESTART", c.nr)
		}
	}
}
