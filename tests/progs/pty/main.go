// pty checks pseudo-terminals as a program uses them: github.com/creack/pty
// starts this same program ("child") on a new pty, which checks it has a
// terminal, a session and the pty as its controlling terminal, while the
// parent types into the master (a line with its echo, Ctrl-C as SIGINT,
// a window size with SIGWINCH, raw mode, Ctrl-D as EOF) and sees EIO on
// the master once the child is gone; then the raw calls (/dev/ptmx,
// TIOCGPTN, TIOCSPTLCK, /dev/pts/N, TIOCGPTPEER). Each check prints "ok
// NAME" or "FAIL NAME: why", then "pty ok": the lines are Linux's as init.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

var check = guest.Checkf

// waitTimeout bounds every wait for the other side.
const waitTimeout = 10 * time.Second

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		child()
		return
	}
	guest.LinuxDev()
	mountDevpts()
	rawCalls()
	viaCreack()
	if guest.Failed() {
		os.Exit(1)
	}
	fmt.Println("pty ok")
}

// mountDevpts mounts devpts on /dev/pts as gometal's boot does, when
// nothing has (a Linux reference run as init).
func mountDevpts() {
	if _, err := os.Stat("/dev/pts/ptmx"); err == nil {
		return
	}
	os.MkdirAll("/dev/pts", 0o755)
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "gid=5,mode=620,ptmxmode=000"); err != nil {
		guest.Fail("mount devpts: " + err.Error())
	}
}

// reader collects what the master reads, for waitFor.
type reader struct {
	f    *os.File
	buf  bytes.Buffer
	c    chan []byte
	errc chan error
}

func newReader(f *os.File) *reader {
	r := &reader{f: f, c: make(chan []byte, 64), errc: make(chan error, 1)}
	go func() {
		for {
			b := make([]byte, 256)
			n, err := f.Read(b)
			if n > 0 {
				r.c <- b[:n]
			}
			if err != nil {
				r.errc <- err
				return
			}
		}
	}()
	return r
}

// waitFor reads until s has come, and returns what came up to its end.
func (r *reader) waitFor(s string) (string, bool) {
	deadline := time.After(waitTimeout)
	for {
		if i := strings.Index(r.buf.String(), s); i >= 0 {
			got := r.buf.String()[:i+len(s)]
			r.buf.Next(i + len(s))
			return got, true
		}
		select {
		case b := <-r.c:
			r.buf.Write(b)
		case <-deadline:
			return r.buf.String(), false
		}
	}
}

func viaCreack() {
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "child")
	m, err := pty.Start(cmd)
	if err != nil {
		guest.Fail("pty.Start: " + err.Error())
	}
	r := newReader(m)
	got, ok := r.waitFor("ready-line\r\n")
	check("child-terminal", ok && strings.Contains(got, "tty ok\r\n") && strings.Contains(got, "ctty ok\r\n") &&
		strings.Contains(got, "ttyname ok\r\n"), "%q", got)

	if _, err := m.Write([]byte("hello\r")); err != nil {
		fmt.Println("write:", err)
	}
	got, ok = r.waitFor("got \"hello\\n\"\r\n")
	check("line-and-echo", ok && strings.HasPrefix(got, "hello\r\n"), "%q", got)

	r.waitFor("ready-int\r\n")
	m.Write([]byte{0x03})
	got, ok = r.waitFor("sigint\r\n")
	check("ctrl-c-sigint", ok && strings.HasPrefix(got, "^C"), "%q", got)

	r.waitFor("ready-winch\r\n")
	err = pty.Setsize(m, &pty.Winsize{Rows: 40, Cols: 100})
	got, ok = r.waitFor("winch 40x100\r\n")
	check("setsize-sigwinch", err == nil && ok, "%v %q", err, got)

	r.waitFor("ready-raw\r\n")
	m.Write([]byte{'x', 0x03})
	got, ok = r.waitFor("raw \"x\\x03\"\r\n")
	check("raw-mode", ok && !strings.Contains(got, "^C"), "%q", got)

	r.waitFor("ready-eof\r\n")
	m.Write([]byte{0x04})
	got, ok = r.waitFor("eof\r\n")
	check("ctrl-d-eof", ok, "%q", got)

	err = cmd.Wait()
	var ee *exec.ExitError
	check("child-status", errors.As(err, &ee) && ee.ExitCode() == 7, "%v", err)
	select {
	case err = <-r.errc:
	case <-time.After(waitTimeout):
		err = errors.New("no error")
	}
	check("master-eio", errors.Is(err, syscall.EIO), "%v", err)
	m.Close()
}

// child runs on the pty's slave.
func child() {
	say := func(s string) { os.Stdout.WriteString(s + "\n") }
	if _, err := unix.IoctlGetTermios(0, unix.TCGETS); err == nil {
		say("tty ok")
	}
	sid, _ := unix.IoctlGetInt(0, unix.TIOCGSID)
	pgrp, _ := unix.IoctlGetInt(0, unix.TIOCGPGRP)
	if sid == os.Getpid() && pgrp == os.Getpid() {
		say("ctty ok")
	} else {
		say(fmt.Sprintf("ctty: sid %d pgrp %d pid %d", sid, pgrp, os.Getpid()))
	}
	name, _ := os.Readlink("/proc/self/fd/0")
	tty, err := os.Open("/dev/tty")
	if strings.HasPrefix(name, "/dev/pts/") && err == nil {
		say("ttyname ok")
		tty.Close()
	} else {
		say(fmt.Sprintf("ttyname: %q %v", name, err))
	}
	say("ready-line")
	b := make([]byte, 64)
	n, _ := os.Stdin.Read(b)
	say(fmt.Sprintf("got %q", b[:n]))

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGWINCH)
	say("ready-int")
	if s := <-sigs; s == syscall.SIGINT {
		say("sigint")
	}
	say("ready-winch")
	if s := <-sigs; s == syscall.SIGWINCH {
		ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
		if err == nil {
			say(fmt.Sprintf("winch %dx%d", ws.Row, ws.Col))
		}
	}

	cooked, _ := unix.IoctlGetTermios(0, unix.TCGETS)
	raw := *cooked
	// cfmakeraw(3)
	raw.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	raw.Cflag &^= unix.CSIZE | unix.PARENB
	raw.Cflag |= unix.CS8
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 2, 0
	unix.IoctlSetTermios(0, unix.TCSETS, &raw)
	say("ready-raw")
	n, _ = os.Stdin.Read(b)
	unix.IoctlSetTermios(0, unix.TCSETS, cooked)
	say(fmt.Sprintf("raw %q", b[:n]))

	say("ready-eof")
	n, err = os.Stdin.Read(b)
	if n == 0 {
		say("eof")
	} else {
		say(fmt.Sprintf("not eof: %q %v", b[:n], err))
	}
	os.Exit(7)
}

// rawCalls are the calls creack and glibc's posix_openpt make.
func rawCalls() {
	m, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		guest.Fail("open /dev/ptmx: " + err.Error())
	}
	n, err := unix.IoctlGetUint32(m, unix.TIOCGPTN)
	check("tiocgptn", err == nil, "%v", err)
	name := fmt.Sprintf("/dev/pts/%d", n)
	_, err = unix.Open(name, unix.O_RDWR|unix.O_NOCTTY, 0)
	check("locked-open-eio", err == unix.EIO, "%v", err)
	_, err = os.Stat(name)
	check("pts-listed", err == nil, "%v", err)

	err = unix.IoctlSetPointerInt(m, unix.TIOCSPTLCK, 0)
	s, err2 := unix.Open(name, unix.O_RDWR|unix.O_NOCTTY, 0)
	check("unlocked-open", err == nil && err2 == nil, "%v %v", err, err2)
	var st unix.Stat_t
	err = unix.Fstat(s, &st)
	check("pts-stat", err == nil && st.Mode&unix.S_IFMT == unix.S_IFCHR && unix.Major(st.Rdev) == 136 &&
		unix.Minor(st.Rdev) == n && st.Mode&0o777 == 0o620, "%v %o %d:%d", err, st.Mode, unix.Major(st.Rdev), unix.Minor(st.Rdev))
	link, _ := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", s))
	check("fd-link", link == name, "%q", link)

	// Termios through the master is the slave's.
	tio, err := unix.IoctlGetTermios(m, unix.TCGETS)
	check("master-tcgets", err == nil && tio.Lflag&unix.ICANON != 0 && tio.Oflag&unix.ONLCR != 0, "%v", err)
	tio.Lflag &^= unix.ECHO
	unix.IoctlSetTermios(m, unix.TCSETS, tio)
	st2, _ := unix.IoctlGetTermios(s, unix.TCGETS)
	check("master-tcsets", st2 != nil && st2.Lflag&unix.ECHO == 0, "%v", st2)

	unix.Write(s, []byte("out\n"))
	// Linux hands the slave's output to the master from a work queue
	// (flush_to_ldisc): wait for it before counting it.
	unix.Poll([]unix.PollFd{{Fd: int32(m), Events: unix.POLLIN}}, 1000)
	nread, err := unix.IoctlGetInt(m, unix.TIOCINQ)
	b := make([]byte, 16)
	k, _ := unix.Read(m, b)
	check("slave-output-onlcr", err == nil && nread == 5 && string(b[:k]) == "out\r\n", "%d %v %q", nread, err, b[:k])

	unix.SetNonblock(m, true)
	_, err = unix.Read(m, b)
	check("master-eagain", err == unix.EAGAIN, "%v", err)
	fds := []unix.PollFd{{Fd: int32(m), Events: unix.POLLIN}}
	unix.Write(s, []byte("x"))
	k, _ = unix.Poll(fds, 1000)
	check("master-poll", k == 1 && fds[0].Revents&unix.POLLIN != 0, "%d %#x", k, fds[0].Revents)
	unix.Read(m, b)

	peer, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(m), unix.TIOCGPTPEER, unix.O_RDWR|unix.O_NOCTTY)
	check("tiocgptpeer", e == 0, "%v", e)
	if e == 0 {
		unix.Close(int(peer))
	}
	unix.Close(s)
	fds[0].Revents = 0
	k, _ = unix.Poll(fds, 1000)
	_, err = unix.Read(m, b)
	check("master-eio-after-close", err == unix.EIO && k == 1 && fds[0].Revents&unix.POLLHUP != 0, "%v %d %#x", err, k, fds[0].Revents)
	unix.Close(m)
	_, err = os.Stat(name)
	check("pts-removed", errors.Is(err, os.ErrNotExist), "%v", err)

	mounts, _ := os.ReadFile("/proc/mounts")
	line := ""
	for _, l := range strings.Split(string(mounts), "\n") {
		if strings.Contains(l, " /dev/pts ") {
			line = l
		}
	}
	check("proc-mounts", line == "devpts /dev/pts devpts rw,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=000 0 0", "%q", line)
}
