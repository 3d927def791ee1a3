// Ttyjobs is run from u-root's shell at a terminal (TestURootInteractive):
// gosh has no job control, so the program does what a job-control shell
// does on its own. argv[1] picks the part:
//
//	raw   x/term's MakeRaw: three keys read unechoed, then cooked mode
//	      again, whose line is echoed;
//	jobs  a child in its own process group made the terminal's foreground
//	      (tcsetpgrp); ^Z stops it (the parent's wait4 with WUNTRACED sees
//	      SIGTSTP), the parent takes the terminal back, gives it to the
//	      child again and sends SIGCONT; the child reads a line and exits.
//	ttyname  the /dev node whose st_dev and st_ino are fstat(0)'s, as
//	      tty(1) finds it (u-root's tty prints to its stdin, so it says
//	      nothing for a read-only redirect).
//
// Each step is printed, in an order fixed by the waits, so the test can
// compare the transcript with what Linux's n_tty and job control do.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/gometal/gometal/tests/progs/internal/guest"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

func fail(f string, a ...any) {
	fmt.Printf("FAIL "+f+"\r\n", a...)
	os.Exit(1)
}

func main() {
	if len(os.Args) < 2 {
		fail("usage: ttyjobs raw|jobs")
	}
	switch os.Args[1] {
	case "raw":
		raw()
	case "jobs":
		jobs()
	case "ttyname":
		ttyname()
	case "child":
		child()
	default:
		fail("unknown %q", os.Args[1])
	}
}

func raw() {
	old, err := guest.RawKeys(3)
	if err != nil {
		fail("%v", err)
	}
	if err := term.Restore(0, old); err != nil {
		fail("Restore: %v", err)
	}
	tio, err := unix.IoctlGetTermios(0, unix.TCGETS)
	if err != nil {
		fail("TCGETS: %v", err)
	}
	fmt.Printf("cooked: icanon %v echo %v; type a line\n", tio.Lflag&unix.ICANON != 0, tio.Lflag&unix.ECHO != 0)
	var b [64]byte
	n, err := os.Stdin.Read(b[:])
	fmt.Printf("line %q %v\n", b[:n], err)
}

// tcsetpgrp as the C library does it: TIOCSPGRP on the terminal.
func tcsetpgrp(pgrp int) {
	if err := unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, pgrp); err != nil {
		fail("tcsetpgrp(%d): %v", pgrp, err)
	}
}

func tcgetpgrp() int {
	p, err := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	if err != nil {
		fail("tcgetpgrp: %v", err)
	}
	return p
}

func jobs() {
	// A shell ignores SIGTTOU so that it may tcsetpgrp while in the
	// background (Linux: tty_check_change lets an ignoring caller by).
	signal.Ignore(syscall.SIGTTOU)
	self := unix.Getpgrp()
	if fg := tcgetpgrp(); fg != self {
		fail("started in the background: foreground %d, own group %d", fg, self)
	}
	// The child does setpgid and tcsetpgrp before exec (Go's Foreground),
	// and the parent does both too, as a shell does: whichever runs first,
	// the child reads only once it is the foreground.
	exe, err := os.Executable()
	if err != nil {
		fail("executable: %v", err)
	}
	p, err := os.StartProcess(exe, []string{"ttyjobs", "child"}, &os.ProcAttr{
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{Setpgid: true, Foreground: true, Ctty: 0},
	})
	if err != nil {
		fail("start: %v", err)
	}
	pid := p.Pid
	if err := unix.Setpgid(pid, pid); err != nil && err != unix.EACCES {
		fail("setpgid: %v", err) // EACCES: the child has exec'd, its group is set
	}
	tcsetpgrp(pid)
	fmt.Printf("parent: child in its own group, foreground %v\n", tcgetpgrp() == pid)

	var ws unix.WaitStatus
	if _, err := unix.Wait4(pid, &ws, unix.WUNTRACED, nil); err != nil {
		fail("wait4: %v", err)
	}
	if !ws.Stopped() {
		fail("wait4: status %#x, not stopped", uint32(ws))
	}
	fmt.Printf("parent: child stopped by %s\n", unix.SignalName(ws.StopSignal()))
	tcsetpgrp(self)
	fmt.Printf("parent: foreground back %v\n", tcgetpgrp() == self)

	tcsetpgrp(pid)
	if err := unix.Kill(-pid, unix.SIGCONT); err != nil {
		fail("kill SIGCONT: %v", err)
	}
	if _, err := unix.Wait4(pid, &ws, unix.WCONTINUED, nil); err != nil || !ws.Continued() {
		fail("wait4 WCONTINUED: %#x %v", uint32(ws), err)
	}
	fmt.Println("parent: child continued, type a line")
	if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil {
		fail("wait4: %v", err)
	}
	tcsetpgrp(self)
	fmt.Printf("parent: child exited %d, foreground back %v\n", ws.ExitStatus(), tcgetpgrp() == self)
	fmt.Println("jobs ok")
}

func child() {
	if unix.Getpgrp() != unix.Getpid() {
		fail("child: group %d, not its own", unix.Getpgrp())
	}
	fmt.Println("child: reading; type ^Z")
	var b [64]byte
	n, err := os.Stdin.Read(b[:])
	fmt.Printf("child: read %q %v\n", b[:n], err)
}

func ttyname() {
	var st unix.Stat_t
	if err := unix.Fstat(0, &st); err != nil {
		fail("fstat: %v", err)
	}
	ents, err := os.ReadDir("/dev")
	if err != nil {
		fail("/dev: %v", err)
	}
	name := "none"
	for _, e := range ents {
		var n unix.Stat_t
		if unix.Lstat("/dev/"+e.Name(), &n) == nil && n.Dev == st.Dev && n.Ino == st.Ino {
			name = "/dev/" + e.Name()
		}
	}
	fmt.Printf("ttyname %s rdev %d:%d\n", name, unix.Major(st.Rdev), unix.Minor(st.Rdev))
}
