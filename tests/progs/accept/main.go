//go:build linux && arm64

// Accept checks that accept on a blocking socket blocks until a client
// connects, and that a signal to the blocked thread runs the handler and
// then goes back to waiting (Go's handlers are SA_RESTART, so Linux
// restarts accept rather than returning EINTR). With the argument
// "waits" it makes three blocking reads instead, each of which must wait
// for its data: a pipe's, a socket's and the console's (it prints
// "reading the console" and waits for a line). As PID 1 on Linux it
// powers off at the end.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

func fail(what string, a ...any) {
	fmt.Println("FAIL:", what, fmt.Sprint(a...))
	os.Exit(1)
}

func main() {
	// Loopback is up on Linux only once configured; gometal's always is.
	if os.Getpid() == 1 {
		guest.LoopbackUp()
	}
	if len(os.Args) > 1 && os.Args[1] == "waits" {
		blockingReads()
	} else {
		acceptThroughSignal()
	}
	if os.Getpid() == 1 {
		unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	}
}

func acceptThroughSignal() {
	ls, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0) // blocking
	if err != nil {
		fail("socket", err)
	}
	if err := unix.Bind(ls, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		fail("bind", err)
	}
	if err := unix.Listen(ls, 4); err != nil {
		fail("listen", err)
	}
	sa, _ := unix.Getsockname(ls)
	port := sa.(*unix.SockaddrInet4).Port

	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	tidc := make(chan int, 1)
	type res struct {
		fd  int
		err error
		d   time.Duration
	}
	done := make(chan res, 1)
	go func() {
		runtime.LockOSThread()
		tidc <- unix.Gettid()
		t0 := time.Now()
		fd, _, err := unix.Accept(ls)
		done <- res{fd, err, time.Since(t0)}
	}()
	tid := <-tidc
	time.Sleep(200 * time.Millisecond)
	select {
	case r := <-done:
		fail("accept returned with nobody connecting", r.fd, r.err)
	default:
	}
	// A signal to the thread in accept: the handler runs, accept waits on.
	unix.Tgkill(os.Getpid(), tid, unix.SIGUSR1)
	select {
	case <-usr1:
	case <-time.After(5 * time.Second):
		fail("SIGUSR1 was not delivered")
	}
	time.Sleep(100 * time.Millisecond)
	select {
	case r := <-done:
		fail("accept ended after the signal", r.fd, r.err)
	default:
	}
	c, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		fail("client socket", err)
	}
	if err := unix.Connect(c, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}, Port: port}); err != nil {
		fail("connect", err)
	}
	r := <-done
	if r.err != nil || r.fd < 0 {
		fail("accept", r.err)
	}
	unix.Write(c, []byte("hi"))
	buf := make([]byte, 2)
	if n, err := unix.Read(r.fd, buf); n != 2 || string(buf) != "hi" {
		fail("read on the accepted socket", n, err)
	}
	fmt.Printf("accept blocked %v until connect, through a signal\n", r.d.Round(100*time.Millisecond))
	fmt.Println("accept ok")
}

// blockingReads reads a blocking pipe, a blocking socket and the console
// before their data is there, so each read waits.
func blockingReads() {
	var p [2]int
	if err := unix.Pipe2(p[:], 0); err != nil {
		fail("pipe2", err)
	}
	waitedRead("pipe", p[0], func() { unix.Write(p[1], []byte("pipe data")) })

	ls, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err != nil {
		fail("socket", err)
	}
	unix.Bind(ls, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}})
	if err := unix.Listen(ls, 4); err != nil {
		fail("listen", err)
	}
	sa, _ := unix.Getsockname(ls)
	c, _ := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
	if err := unix.Connect(c, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}, Port: sa.(*unix.SockaddrInet4).Port}); err != nil {
		fail("connect", err)
	}
	s, _, err := unix.Accept(ls)
	if err != nil {
		fail("accept", err)
	}
	waitedRead("socket", s, func() { unix.Write(c, []byte("socket data")) })

	// The console is not in canonical mode (no ICANON): a read returns
	// what has arrived, so read on to the end of the line.
	fmt.Println("reading the console")
	var line []byte
	buf := make([]byte, 64)
	for len(line) == 0 || line[len(line)-1] != '\n' {
		n, err := unix.Read(0, buf)
		if err != nil || n == 0 {
			fail("console read", n, err)
		}
		line = append(line, buf[:n]...)
	}
	fmt.Printf("console read %q\n", line)
	fmt.Println("waits ok")
}

// waitedRead reads fd while another thread writes to it 200 ms later, and
// fails unless the read waited for the write.
func waitedRead(what string, fd int, write func()) {
	go func() {
		runtime.LockOSThread()
		time.Sleep(200 * time.Millisecond)
		write()
	}()
	buf := make([]byte, 64)
	t0 := time.Now()
	n, err := unix.Read(fd, buf)
	d := time.Since(t0)
	if err != nil || n == 0 {
		fail(what+" read", n, err)
	}
	if d < 100*time.Millisecond {
		fail(what+" read returned before the write", d)
	}
	fmt.Printf("%s read %q after waiting\n", what, buf[:n])
}
