//go:build !arm64

package tty

import (
	"testing"
	"unsafe"

	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// The terminal on the host: Out, Signal and Wait record what the
// kernel's UART, signal and scheduler code would get; the clock is the
// test's. Expected echoes and reads are Linux's n_tty.c; each test
// names the function whose code gives them. The canonical-mode ones
// (erase, kill, word-erase, literal next, EOF, VEOL, NUL, IUTF8, tabs)
// were also typed into a Linux 6.18 pty with the same modes, which
// echoed and read the same (but for ^C, whose input flush there also
// drops the echo of the line the pty's master had not read yet).

type term struct {
	out   []byte
	sigs  []int
	to    []int32 // the foreground group each signal went to
	jobs  int     // JobControl's calls
	waits []waitCall
	now   uint64
	// resumed is what Resumed answers: the read is a re-run after a
	// Wait.
	resumed waitCall
	buf     uintptr
	f       *vfs.File
}

type waitCall struct{ deadline, done, result uint64 }

func setup(t *testing.T, cooked bool) *term {
	t.Helper()
	tm := &term{buf: usermem.HostReset(16, 1), now: 1000}
	sched.Reset(1)
	vfs.Reset()
	Reset()
	Console.Init(func(c byte) { tm.out = append(tm.out, c) }, cooked, 0, 0)
	Signal = func(pgrp int32, sig int) { tm.sigs, tm.to = append(tm.sigs, sig), append(tm.to, pgrp) }
	JobControl = func(bool) uint64 { tm.jobs++; return 0 }
	Now = func() uint64 { return tm.now }
	TicksPerDecisecond = 10
	Wait = func(_ *Terminal, deadline, done, result uint64) {
		tm.waits = append(tm.waits, waitCall{deadline, done, result})
	}
	Resumed = func() (uint64, uint64) { return tm.resumed.deadline, tm.resumed.done }
	tm.f = &vfs.Files[vfs.Alloc(&Console, unix.O_RDWR)]
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
	return tm.user(r), r
}

// user is the first n bytes of the app's buffer.
func (tm *term) user(n uint64) string {
	b := make([]byte, n)
	usermem.CopyIn(b, tm.buf)
	return string(b)
}

// echoed returns and forgets what the terminal wrote.
func (tm *term) echoed() string {
	s := string(tm.out)
	tm.out = nil
	return s
}

// ioctl makes request req with v's bytes (a Termios, a Winsize, a
// uint32) as its argument, and copies the answer back into v.
func ioctl[T any](tm *term, req uint64, v *T) uint64 {
	n := unsafe.Sizeof(*v)
	b := unsafe.Slice((*byte)(unsafe.Pointer(v)), n)
	usermem.CopyOut(tm.buf+512, b)
	r := Console.Ioctl(tm.f, req, tm.buf+512)
	usermem.CopyIn(b, tm.buf+512)
	return r
}

// setModes changes the console's modes with TCSETS, as an app would.
func (tm *term) setModes(t *testing.T, change func(*unix.Termios)) {
	t.Helper()
	var tio unix.Termios
	if r := ioctl(tm, unix.TCGETS, &tio); r != 0 {
		t.Fatalf("TCGETS = %#x", r)
	}
	change(&tio)
	if r := ioctl(tm, unix.TCSETS, &tio); r != 0 {
		t.Fatalf("TCSETS = %#x", r)
	}
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
	Input([]byte("ab\r\x03c\x7f"))
	if Console.Readiness(tm.f)&unix.EPOLLIN == 0 {
		t.Error("not readable with input")
	}
	if got, _ := tm.read(t); got != "ab\n\x03c\x7f" {
		t.Errorf("read %q, want %q", got, "ab\n\x03c\x7f")
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

// The console starts with tty_std_termios's modes when cooked; TCGETS
// moves the kernel's struct termios (36 bytes: no speeds).
func TestDefaultModesAreLinuxs(t *testing.T) {
	tm := setup(t, true)
	var tio unix.Termios
	tio.Ispeed = 0xdeadbeef
	ioctl(tm, unix.TCGETS, &tio)
	want := unix.Termios{Iflag: unix.ICRNL | unix.IXON, Oflag: unix.OPOST | unix.ONLCR,
		Cflag:  unix.B115200 | unix.CS8 | unix.CREAD | unix.HUPCL,
		Lflag:  unix.ISIG | unix.ICANON | unix.ECHO | unix.ECHOE | unix.ECHOK | unix.ECHOCTL | unix.ECHOKE | unix.IEXTEN,
		Ispeed: 0xdeadbeef}
	copy(want.Cc[:], []byte{3, 0x1c, 0x7f, 0x15, 4, 0, 1, 0, 0x11, 0x13, 0x1a, 0, 0x12, 0x0f, 0x17, 0x16, 0})
	if tio != want {
		t.Errorf("TCGETS = %+v\nwant     %+v", tio, want)
	}
}

// Canonical mode: the read waits for the line; erase takes back a
// character and echoes "\b \b"; Enter (CR, ICRNL) ends the line and is
// echoed as CR NL (ONLCR). n_tty_receive_char_special, eraser.
func TestCookedLineWithErase(t *testing.T) {
	tm := setup(t, true)
	Input([]byte("hx\x7f"))
	if _, r := tm.read(t); r != vfs.Err(unix.EAGAIN) {
		t.Errorf("read before Enter = %#x, want EAGAIN", r)
	}
	if Console.Readiness(tm.f)&unix.EPOLLIN != 0 {
		t.Error("readable before Enter")
	}
	Input([]byte("i\r"))
	if got := tm.echoed(); got != "hx\b \bi\r\n" {
		t.Errorf("echo %q", got)
	}
	if got, _ := tm.read(t); got != "hi\n" {
		t.Errorf("read %q, want \"hi\\n\"", got)
	}
	// One line a read, and a line longer than the buffer in parts.
	Input([]byte("one\rtwo\r"))
	if got, _ := tm.read(t); got != "one\n" {
		t.Errorf("read %q, want the first line", got)
	}
	r := Console.Read(tm.f, tm.buf, 2, -1)
	if got := tm.user(r); got != "tw" {
		t.Errorf("2-byte read %q", got)
	}
	if got, _ := tm.read(t); got != "o\n" {
		t.Errorf("rest of the line %q", got)
	}
}

// A control character echoes as ^X (ECHOCTL), and erasing it wipes both
// columns; a tab's erase backs over its columns; erasing with nothing
// typed does nothing. eraser, echo_char, echo_erase_tab.
func TestEraseEchoes(t *testing.T) {
	tm := setup(t, true)
	Input([]byte("\x7fa\x01\x7f"))
	if got := tm.echoed(); got != "a^A\b \b\b \b" {
		t.Errorf("echo %q", got)
	}
	Input([]byte("\tb\x7f\x7f\r"))
	if got := tm.echoed(); got != "\tb\b \b\b\b\b\b\b\b\b\r\n" {
		t.Errorf("tab erase echo %q", got)
	}
	if got, _ := tm.read(t); got != "a\n" {
		t.Errorf("read %q", got)
	}
	// Without ECHOE the erase character is echoed instead.
	tm.setModes(t, func(tio *unix.Termios) { tio.Lflag &^= unix.ECHOE })
	Input([]byte("ab\x7f\r"))
	if got := tm.echoed(); got != "ab^?\r\n" {
		t.Errorf("echo without ECHOE %q", got)
	}
}

// IUTF8: erase takes back a whole UTF-8 character, one column.
func TestEraseUTF8(t *testing.T) {
	tm := setup(t, true)
	tm.setModes(t, func(tio *unix.Termios) { tio.Iflag |= unix.IUTF8 })
	Input([]byte("aé\x7f\r"))
	if got, _ := tm.read(t); got != "a\n" {
		t.Errorf("read %q", got)
	}
	if got := tm.echoed(); got != "aé\b \b\r\n" {
		t.Errorf("echo %q", got)
	}
	// Without IUTF8 erase takes one byte.
	tm.setModes(t, func(tio *unix.Termios) { tio.Iflag &^= unix.IUTF8 })
	Input([]byte("é\x7f\r"))
	if got, _ := tm.read(t); got != "\xc3\n" {
		t.Errorf("read %q", got)
	}
}

// Kill (^U) takes back the line, rubbed out a column at a time with
// ECHOKE; without it echoed as ^U and, with ECHOK, a newline. Word-erase
// (^W) takes back trailing blanks then the word (alnums and '_').
func TestKillAndWordErase(t *testing.T) {
	tm := setup(t, true)
	Input([]byte("abc\x15x\r"))
	if got := tm.echoed(); got != "abc\b \b\b \b\b \bx\r\n" {
		t.Errorf("kill echo %q", got)
	}
	if got, _ := tm.read(t); got != "x\n" {
		t.Errorf("read %q", got)
	}
	tm.setModes(t, func(tio *unix.Termios) { tio.Lflag &^= unix.ECHOKE })
	Input([]byte("abc\x15y\r"))
	if got := tm.echoed(); got != "abc^U\r\ny\r\n" {
		t.Errorf("kill echo without ECHOKE %q", got)
	}
	tm.read(t)
	Input([]byte("foo bar  \x17|foo-bar\x17|\r"))
	if got, _ := tm.read(t); got != "foo |foo-|\n" {
		t.Errorf("read after word-erase %q", got)
	}
}

// Literal next (^V) makes the next byte input, even ^C or erase; it
// echoes "^\b" first. n_tty_receive_char_special's LNEXT.
func TestLiteralNext(t *testing.T) {
	tm := setup(t, true)
	Input([]byte("\x16\x03\x16\x7f\r"))
	if got, _ := tm.read(t); got != "\x03\x7f\n" {
		t.Errorf("read %q", got)
	}
	if got := tm.echoed(); got != "^\b^C^\b^?\r\n" {
		t.Errorf("echo %q", got)
	}
	if len(tm.sigs) != 0 {
		t.Errorf("signals %v", tm.sigs)
	}
}

// EOF (^D) at the start of a line reads 0; after text it ends the line
// without a newline; it is not echoed. canon_copy_from_read_buf.
func TestEOF(t *testing.T) {
	tm := setup(t, true)
	Input([]byte("\x04"))
	if got, r := tm.read(t); r != 0 || got != "" {
		t.Errorf("read at EOF = %q, %#x; want 0", got, r)
	}
	Input([]byte("ab\x04"))
	if got, _ := tm.read(t); got != "ab" {
		t.Errorf("read %q, want \"ab\"", got)
	}
	if _, r := tm.read(t); r != vfs.Err(unix.EAGAIN) {
		t.Errorf("read after the EOF's line = %#x, want EAGAIN", r)
	}
	if got := tm.echoed(); got != "ab" {
		t.Errorf("echo %q", got)
	}
	// A NUL is input, echoed as ^@: with VEOL unset (0, disabled) it
	// ends no line, and only the EOF's NUL is not read.
	Input([]byte("a\x00b\r"))
	if got, _ := tm.read(t); got != "a\x00b\n" {
		t.Errorf("read with a NUL %q", got)
	}
	if got := tm.echoed(); got != "a^@b\r\n" {
		t.Errorf("NUL echo %q", got)
	}
	// VEOL ends a line too, and is read.
	tm.setModes(t, func(tio *unix.Termios) { tio.Cc[unix.VEOL] = ';' })
	Input([]byte("x;"))
	if got, _ := tm.read(t); got != "x;" {
		t.Errorf("read to VEOL %q", got)
	}
}

// On a terminal: Ctrl-C, Ctrl-\ and Ctrl-Z send SIGINT, SIGQUIT and
// SIGTSTP, echoed as ^C (no newline: Linux echoes only the character),
// dropping what was typed before unless NOFLSH.
// n_tty_receive_signal_char.
func TestTerminalEchoesAndSignals(t *testing.T) {
	tm := setup(t, true)
	Input([]byte("lost\x03kept\r"))
	if got := tm.echoed(); got != "lost^Ckept\r\n" {
		t.Errorf("echo %q", got)
	}
	if len(tm.sigs) != 1 || tm.sigs[0] != int(unix.SIGINT) {
		t.Errorf("signals %v, want [SIGINT]", tm.sigs)
	}
	if got, _ := tm.read(t); got != "kept\n" {
		t.Errorf("read %q, want the line typed after ^C", got)
	}
	Input([]byte{0x1c, 0x1a})
	if len(tm.sigs) != 3 || tm.sigs[1] != int(unix.SIGQUIT) || tm.sigs[2] != int(unix.SIGTSTP) {
		t.Errorf("signals %v, want SIGQUIT, SIGTSTP", tm.sigs)
	}
	tm.setModes(t, func(tio *unix.Termios) { tio.Lflag |= unix.NOFLSH })
	Input([]byte("kept\x03\r"))
	if got, _ := tm.read(t); got != "kept\n" {
		t.Errorf("read with NOFLSH %q", got)
	}
	// Without ISIG ^C is input.
	tm.setModes(t, func(tio *unix.Termios) { tio.Lflag &^= unix.ISIG })
	Input([]byte("\x03\r"))
	if got, _ := tm.read(t); got != "\x03\n" || len(tm.sigs) != 4 {
		t.Errorf("read without ISIG %q, signals %v", got, tm.sigs)
	}
}

// Ctrl-C goes to the console's foreground process group, which the
// kernel's Signal is told (0: none, and the kernel picks PID 1).
func TestSignalNamesForegroundGroup(t *testing.T) {
	tm := setup(t, true)
	Input([]byte{0x03})
	Console.Session, Console.Pgrp = 5, 7
	Input([]byte{0x1c})
	if len(tm.to) != 2 || tm.to[0] != 0 || tm.to[1] != 7 || tm.sigs[1] != int(unix.SIGQUIT) {
		t.Errorf("signals %v to groups %v; want SIGINT to none, then SIGQUIT to 7", tm.sigs, tm.to)
	}
}

// CR and NL mapping on input: ICRNL, IGNCR, INLCR.
func TestInputMapping(t *testing.T) {
	tm := setup(t, true)
	tm.setModes(t, func(tio *unix.Termios) {
		tio.Lflag &^= unix.ICANON | unix.ECHO
		tio.Iflag = unix.INLCR
	})
	Input([]byte("a\rb\n"))
	if got, _ := tm.read(t); got != "a\rb\r" {
		t.Errorf("INLCR read %q", got)
	}
	tm.setModes(t, func(tio *unix.Termios) { tio.Iflag = unix.IGNCR })
	Input([]byte("a\rb\n"))
	if got, _ := tm.read(t); got != "ab\n" {
		t.Errorf("IGNCR read %q", got)
	}
}

// Output processing: ONLCR, OCRNL, ONOCR, and none without OPOST
// (do_output_char).
func TestOutputProcessing(t *testing.T) {
	tm := setup(t, true)
	write := func(s string) string {
		usermem.CopyOut(tm.buf, []byte(s))
		if r := Console.Write(tm.f, tm.buf, uint64(len(s)), -1); r != uint64(len(s)) {
			t.Fatalf("write = %#x", r)
		}
		return tm.echoed()
	}
	if got := write("a\nb"); got != "a\r\nb" {
		t.Errorf("ONLCR: %q", got)
	}
	tm.setModes(t, func(tio *unix.Termios) { tio.Oflag = unix.OPOST | unix.OCRNL })
	if got := write("a\rb\n"); got != "a\nb\n" {
		t.Errorf("OCRNL: %q", got)
	}
	tm.setModes(t, func(tio *unix.Termios) { tio.Oflag = unix.OPOST | unix.ONOCR })
	if got := write("x\r\rab\r"); got != "x\rab\r" { // no CR at column 0
		t.Errorf("ONOCR: %q", got)
	}
	tm.setModes(t, func(tio *unix.Termios) { tio.Oflag = unix.ONLCR })
	if got := write("a\n"); got != "a\n" {
		t.Errorf("without OPOST: %q", got)
	}
}

// raw is cfmakeraw's modes (termios(3)), as golang.org/x/term's MakeRaw
// sets them, with VMIN and VTIME.
func raw(vmin, vtime byte) func(*unix.Termios) {
	return func(tio *unix.Termios) {
		tio.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
		tio.Oflag &^= unix.OPOST
		tio.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
		tio.Cflag &^= unix.CSIZE | unix.PARENB
		tio.Cflag |= unix.CS8
		tio.Cc[unix.VMIN], tio.Cc[unix.VTIME] = vmin, vtime
	}
}

// Raw mode: every byte is input at once, unechoed, ^C included; a line
// being edited when ICANON goes off becomes readable, and what is
// buffered when it comes back on is a line (n_tty_set_termios).
func TestRawModeAndBack(t *testing.T) {
	tm := setup(t, true)
	Input([]byte("ab"))
	tm.setModes(t, raw(1, 0))
	if got, _ := tm.read(t); got != "ab" {
		t.Errorf("line being edited, read raw: %q", got)
	}
	tm.echoed()
	Input([]byte("\x03\r\x7f"))
	if got, _ := tm.read(t); got != "\x03\r\x7f" || len(tm.out) != 0 || len(tm.sigs) != 0 {
		t.Errorf("raw read %q, echo %q, signals %v", got, tm.out, tm.sigs)
	}
	Input([]byte("xy"))
	tm.setModes(t, func(tio *unix.Termios) { *tio = stdTermios() })
	if got, _ := tm.read(t); got != "xy" {
		t.Errorf("raw input, read cooked: %q", got)
	}
}

// VMIN 0, VTIME 0: a poll, 0 with nothing typed.
func TestVMIN0VTIME0(t *testing.T) {
	tm := setup(t, true)
	tm.setModes(t, raw(0, 0))
	if got, r := tm.read(t); r != 0 || got != "" || len(tm.waits) != 0 {
		t.Errorf("read = %q, %#x after %v waits; want 0 at once", got, r, tm.waits)
	}
	Input([]byte("ab"))
	if got, _ := tm.read(t); got != "ab" {
		t.Errorf("read %q", got)
	}
}

// VMIN 3, VTIME 0: the read waits for 3 bytes (or its buffer's size),
// keeping the ones it has (n_tty_read copies them as they come).
func TestVMINOnly(t *testing.T) {
	tm := setup(t, true)
	tm.setModes(t, raw(3, 0))
	if _, r := tm.read(t); r != vfs.Err(unix.EAGAIN) {
		t.Errorf("read with nothing = %#x, want EAGAIN (wait, no deadline)", r)
	}
	Input([]byte("ab"))
	tm.read(t)
	if len(tm.waits) != 1 || tm.waits[0] != (waitCall{0, 2, 2}) {
		t.Fatalf("waits %v, want one with 2 bytes and no deadline", tm.waits)
	}
	tm.resumed = waitCall{0, 2, 0}
	Input([]byte("c"))
	if r := Console.Read(tm.f, tm.buf, 100, -1); r != 3 || tm.user(3) != "abc" {
		t.Errorf("re-run read = %d %q, want 3 \"abc\"", r, tm.user(3))
	}
	tm.resumed = waitCall{}
	// A buffer smaller than VMIN is filled.
	Input([]byte("de"))
	if r := Console.Read(tm.f, tm.buf, 2, -1); r != 2 {
		t.Errorf("2-byte read = %d", r)
	}
}

// VMIN 0, VTIME 5: a read timer of half a second from the call; a byte
// ends it, the deadline gives 0.
func TestVTIMEOnly(t *testing.T) {
	tm := setup(t, true)
	tm.setModes(t, raw(0, 5))
	tm.read(t)
	if len(tm.waits) != 1 || tm.waits[0] != (waitCall{1050, 0, 0}) {
		t.Fatalf("waits %v, want one to 1050 giving 0", tm.waits)
	}
	tm.resumed = waitCall{1050, 0, 0}
	tm.now = 1050
	if _, r := tm.read(t); r != 0 || len(tm.waits) != 1 {
		t.Errorf("re-run after the deadline = %#x, waits %v; want 0", r, tm.waits)
	}
	tm.now = 1020
	Input([]byte("a"))
	if got, _ := tm.read(t); got != "a" {
		t.Errorf("read %q", got)
	}
}

// VMIN 2, VTIME 1: no timer before the first byte; then an inter-byte
// timer from the last byte, which gives what came.
func TestVMINAndVTIME(t *testing.T) {
	tm := setup(t, true)
	tm.setModes(t, raw(2, 1))
	if _, r := tm.read(t); r != vfs.Err(unix.EAGAIN) {
		t.Errorf("read with nothing = %#x, want EAGAIN (no timer yet)", r)
	}
	tm.now = 1100
	Input([]byte("a"))
	tm.now = 1105
	tm.read(t)
	if len(tm.waits) != 1 || tm.waits[0] != (waitCall{1110, 1, 1}) {
		t.Fatalf("waits %v, want one to 1110 with 1 byte", tm.waits)
	}
	tm.resumed = waitCall{1110, 1, 0}
	tm.now = 1111
	if r := Console.Read(tm.f, tm.buf, 100, -1); r != 1 || tm.user(1) != "a" {
		t.Errorf("read after the timer = %d %q", r, tm.user(1))
	}
	tm.resumed = waitCall{}
	Input([]byte("bc"))
	if got, _ := tm.read(t); got != "bc" {
		t.Errorf("read %q", got)
	}
}

// Non-blocking reads in raw mode: what there is, or EAGAIN.
func TestNonblockingRaw(t *testing.T) {
	tm := setup(t, true)
	tm.setModes(t, raw(0, 5))
	f := &vfs.Files[vfs.Alloc(&Console, unix.O_RDWR|unix.O_NONBLOCK)]
	if _, r := tm.readFrom(t, f); r != vfs.Err(unix.EAGAIN) || len(tm.waits) != 0 {
		t.Errorf("read = %#x, waits %v; want EAGAIN", r, tm.waits)
	}
}

// TCSETSF and TCFLSH drop input; FIONREAD counts what a read would
// find (a line's bytes in canonical mode); TIOCOUTQ is 0.
func TestFlushAndCounts(t *testing.T) {
	tm := setup(t, true)
	Input([]byte("ab\rc"))
	var n uint32
	if ioctl(tm, unix.TIOCINQ, &n); n != 3 {
		t.Errorf("FIONREAD = %d, want 3", n)
	}
	if ioctl(tm, unix.TIOCOUTQ, &n); n != 0 {
		t.Errorf("TIOCOUTQ = %d", n)
	}
	if r := Console.Ioctl(tm.f, unix.TCFLSH, unix.TCIFLUSH); r != 0 {
		t.Errorf("TCFLSH = %#x", r)
	}
	if _, r := tm.read(t); r != vfs.Err(unix.EAGAIN) {
		t.Errorf("read after TCFLSH = %#x", r)
	}
	if r := Console.Ioctl(tm.f, unix.TCFLSH, 7); r != vfs.Err(unix.EINVAL) {
		t.Errorf("TCFLSH 7 = %#x, want EINVAL", r)
	}
	Input([]byte("x\r"))
	tio := stdTermios()
	ioctl(tm, unix.TCSETSF, &tio)
	if _, r := tm.read(t); r != vfs.Err(unix.EAGAIN) {
		t.Errorf("read after TCSETSF = %#x", r)
	}
}

// TIOCGWINSZ answers the size the kernel was given; TIOCSWINSZ changes
// it and a change sends SIGWINCH to the foreground group (tty_do_resize).
func TestWindowSize(t *testing.T) {
	tm := setup(t, true)
	Console.Init(Console.Out, true, 40, 132)
	Console.Pgrp = 9
	var ws unix.Winsize
	if ioctl(tm, unix.TIOCGWINSZ, &ws); ws.Row != 40 || ws.Col != 132 {
		t.Errorf("TIOCGWINSZ = %+v", ws)
	}
	ioctl(tm, unix.TIOCSWINSZ, &ws)
	if len(tm.sigs) != 0 {
		t.Errorf("same size: signals %v", tm.sigs)
	}
	ws.Row = 50
	ioctl(tm, unix.TIOCSWINSZ, &ws)
	var got unix.Winsize
	if ioctl(tm, unix.TIOCGWINSZ, &got); got.Row != 50 || len(tm.sigs) != 1 || tm.sigs[0] != int(unix.SIGWINCH) || tm.to[0] != 9 {
		t.Errorf("after TIOCSWINSZ: %+v, signals %v to %v", got, tm.sigs, tm.to)
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
	JobControl = func(bool) uint64 { tm.jobs++; return vfs.Err(unix.EIO) }
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

// With TOSTOP a write through /dev/tty asks job control first (SIGTTOU
// for a background job: n_tty_write's tty_check_change), and its result
// is the write's; without TOSTOP, or through the console's other
// descriptions (/dev/console: redirected_tty_write), it writes.
func TestTOSTOPGuardsWritesThroughDevTTY(t *testing.T) {
	tm := setup(t, true)
	tty := &vfs.Files[vfs.Alloc(&Console, unix.O_RDWR)]
	OpenedAsTTY(tty)
	var asked []bool
	JobControl = func(write bool) uint64 { asked = append(asked, write); return vfs.Err(unix.EIO) }
	usermem.CopyOut(tm.buf, []byte("x"))
	if r := Console.Write(tty, tm.buf, 1, -1); r != 1 || len(asked) != 0 {
		t.Errorf("write without TOSTOP = %#x after %d checks, want 1 unchecked", r, len(asked))
	}
	tm.setModes(t, func(tio *unix.Termios) { tio.Lflag |= unix.TOSTOP })
	if r := Console.Write(tty, tm.buf, 1, -1); r != vfs.Err(unix.EIO) || len(asked) != 1 || !asked[0] {
		t.Errorf("write with TOSTOP = %#x after checks %v, want EIO after one write check", r, asked)
	}
	if r := Console.Write(tm.f, tm.buf, 1, -1); r != 1 || len(asked) != 1 {
		t.Errorf("write through the console with TOSTOP = %#x after %d checks, want 1 unchecked", r, len(asked))
	}
	if got := string(tm.out); got != "xx" {
		t.Errorf("the device got %q, want the two writes that went on", got)
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
	if Console.count() != 2 {
		t.Errorf("%d bytes of input, want 2 (a, b)", Console.count())
	}
}
