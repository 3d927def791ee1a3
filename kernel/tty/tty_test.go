//go:build !arm64

package tty

import (
	"testing"

	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// The terminal on the host: Output and Signal record what the kernel's
// UART and signal code would get.

type term struct {
	out  []byte
	sigs []int
	to   []int32 // the foreground group each signal went to
	jobs int     // JobControl's calls
	buf  uintptr
	f    *vfs.File
}

func setup(t *testing.T, echo bool) *term {
	t.Helper()
	tm := &term{buf: usermem.HostReset(16, 1)}
	sched.Reset(1)
	vfs.Reset()
	Reset()
	Echo = echo
	Output = func(c byte) { tm.out = append(tm.out, c) }
	Signal = func(pgrp int32, sig int) { tm.sigs, tm.to = append(tm.sigs, sig), append(tm.to, pgrp) }
	JobControl = func() uint64 { tm.jobs++; return 0 }
	tm.f = &vfs.Files[vfs.Alloc(&Console, unix.O_RDWR)]
	t.Cleanup(func() { Echo = false })
	return tm
}

func (tm *term) read(t *testing.T) (string, uint64) {
	t.Helper()
	return tm.readFrom(t, tm.f)
}

func (tm *term) readFrom(t *testing.T, f *vfs.File) (string, uint64) {
	t.Helper()
	r := Console.Read(f, tm.buf, 100, -1)
	if vfs.IsErr(r) {
		return "", r
	}
	b := make([]byte, r)
	usermem.CopyIn(b, tm.buf)
	return string(b), r
}

// Piped input reaches the app as sent, but for a terminal's CR.
func TestInputIsBufferedUntilRead(t *testing.T) {
	tm := setup(t, false)
	if _, r := tm.read(t); r != vfs.Err(unix.EAGAIN) {
		t.Errorf("read with no input = %#x, want EAGAIN", r)
	}
	if Console.Readiness(tm.f)&unix.EPOLLIN != 0 {
		t.Error("readable with no input")
	}
	Input([]byte("ab\r\x03c"))
	if Console.Readiness(tm.f)&unix.EPOLLIN == 0 {
		t.Error("not readable with input")
	}
	if got, _ := tm.read(t); got != "ab\n\x03c" {
		t.Errorf("read %q, want %q", got, "ab\n\x03c")
	}
	if len(tm.out) != 0 || len(tm.sigs) != 0 {
		t.Errorf("piped input echoed %q or signalled %v", tm.out, tm.sigs)
	}
}

// A reader blocked on the console runs again when input arrives.
func TestInputWakesBlockedReader(t *testing.T) {
	tm := setup(t, false)
	th := sched.New()
	sched.BlockOn(th, &Console.W.Q, sched.WaitFile, unix.EPOLLIN, 0, 0)
	Input([]byte("x"))
	if th.State != sched.Runnable {
		t.Errorf("reader state %v after input, want runnable", th.State)
	}
	if got, _ := tm.read(t); got != "x" {
		t.Errorf("read %q", got)
	}
}

// On a terminal: input is echoed, and Ctrl-C and Ctrl-\ become SIGINT
// and SIGQUIT, echoed as ^C and ^\, dropping what was typed before.
func TestTerminalEchoesAndSignals(t *testing.T) {
	tm := setup(t, true)
	Input([]byte("lost\x03kept\r"))
	if string(tm.out) != "lost^C\nkept\n" {
		t.Errorf("echo %q", tm.out)
	}
	if len(tm.sigs) != 1 || tm.sigs[0] != int(unix.SIGINT) {
		t.Errorf("signals %v, want [SIGINT]", tm.sigs)
	}
	if got, _ := tm.read(t); got != "kept\n" {
		t.Errorf("read %q, want the line typed after ^C", got)
	}
	Input([]byte{0x1c})
	if len(tm.sigs) != 2 || tm.sigs[1] != int(unix.SIGQUIT) {
		t.Errorf("signals %v, want SIGQUIT second", tm.sigs)
	}
}

// Writes go out through Output, byte for byte.
func TestWriteGoesToOutput(t *testing.T) {
	tm := setup(t, false)
	usermem.CopyOut(tm.buf, []byte("hello\n"))
	if r := Console.Write(tm.f, tm.buf, 6, -1); r != 6 {
		t.Fatalf("write = %#x", r)
	}
	if string(tm.out) != "hello\n" {
		t.Errorf("output %q", tm.out)
	}
}

// Ctrl-C goes to the console's foreground process group, which the
// kernel's Signal is told (0: none, and the kernel picks PID 1).
func TestSignalNamesForegroundGroup(t *testing.T) {
	tm := setup(t, true)
	Input([]byte{0x03})
	Session, Pgrp = 5, 7
	Input([]byte{0x1c})
	if len(tm.to) != 2 || tm.to[0] != 0 || tm.to[1] != 7 || tm.sigs[1] != int(unix.SIGQUIT) {
		t.Errorf("signals %v to groups %v; want SIGINT to none, then SIGQUIT to 7", tm.sigs, tm.to)
	}
}

// A read through /dev/tty asks JobControl first, and what it answers is
// the read's result, with the input left for the foreground; a read
// through the console's other descriptions (/dev/console, PID 1's 0-2)
// never asks. A description closed and reused forgets it.
func TestJobControlGuardsReadsThroughDevTTY(t *testing.T) {
	tm := setup(t, false)
	tty := &vfs.Files[vfs.Alloc(&Console, unix.O_RDWR)]
	OpenedAsTTY(tty)
	Input([]byte("x"))
	JobControl = func() uint64 { tm.jobs++; return vfs.Err(unix.EIO) }
	if _, r := tm.readFrom(t, tty); r != vfs.Err(unix.EIO) || tm.jobs != 1 {
		t.Errorf("background read = %#x after %d checks, want EIO after 1", r, tm.jobs)
	}
	if got, _ := tm.read(t); got != "x" || tm.jobs != 1 {
		t.Errorf("read through the console = %q after %d checks; want the input, unchecked", got, tm.jobs)
	}
	Console.Release(tty)
	if _, r := tm.readFrom(t, tty); r != vfs.Err(unix.EAGAIN) || tm.jobs != 1 {
		t.Errorf("a released description was still checked (%d), read %#x", tm.jobs, r)
	}
}

// A BREAK arms SysRq: the next byte is a command for the kernel, not
// input (serial_core's uart_handle_sysrq_char); the byte after is input
// again.
func TestBreakThenKeyIsSysRq(t *testing.T) {
	setup(t, false)
	var got []byte
	SysRq = func(c byte) { got = append(got, c) }
	defer func() { SysRq = nil }()
	Input([]byte("a"))
	Break()
	Input([]byte("tb"))
	if string(got) != "t" {
		t.Errorf("SysRq got %q, want \"t\"", got)
	}
	if rxLen() != 2 {
		t.Errorf("%d bytes of input, want 2 (a, b)", rxLen())
	}
}
