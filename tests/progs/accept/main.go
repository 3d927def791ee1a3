//go:build linux && arm64

// Accept checks that accept on a blocking socket blocks until a client
// connects, and that a signal to the blocked thread runs the handler and
// then goes back to waiting (Go's handlers are SA_RESTART, so Linux
// restarts accept rather than returning EINTR). As PID 1 on Linux it
// powers off at the end.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func fail(what string, a ...any) {
	fmt.Println("FAIL:", what, fmt.Sprint(a...))
	os.Exit(1)
}

func main() {
	// Loopback is up on Linux only once configured; gometal's always is.
	if os.Getpid() == 1 {
		upLoopback()
	}
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
	if os.Getpid() == 1 {
		unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	}
}

// upLoopback sets lo up (SIOCSIFFLAGS), which a Linux init must do itself.
func upLoopback() {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return
	}
	ifr.SetUint16(unix.IFF_UP | unix.IFF_LOOPBACK | unix.IFF_RUNNING)
	unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
