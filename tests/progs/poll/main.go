// poll checks ppoll(2) and pselect6(2), the calls C programs and line
// editors wait with (Go's own runtime uses epoll), each check printing
// "ok NAME" or "FAIL NAME: why", then "poll ok". Every line is the same
// on Linux as init.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

var check = guest.Checkf

func pipe() (r, w int) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		guest.Fail(err.Error())
	}
	return p[0], p[1]
}

func main() {
	guest.LinuxDev()
	// The raw calls block this thread: keep it to itself.
	runtime.LockOSThread()
	r, w := pipe()

	fds := []unix.PollFd{{Fd: int32(r), Events: unix.POLLIN}, {Fd: -1, Events: unix.POLLIN}}
	n, err := unix.Ppoll(fds, &unix.Timespec{}, nil)
	check("ppoll-empty", n == 0 && err == nil && fds[0].Revents == 0, "%d %v %#x", n, err, fds[0].Revents)

	unix.Write(w, []byte("x"))
	n, err = unix.Ppoll(fds, nil, nil)
	check("ppoll-ready", n == 1 && err == nil && fds[0].Revents == unix.POLLIN && fds[1].Revents == 0, "%d %v %+v", n, err, fds)
	unix.Read(r, make([]byte, 1))

	ts := unix.NsecToTimespec(int64(200 * time.Millisecond))
	start := time.Now()
	for { // after an EINTR (the runtime's SIGURG, on Linux too) ts holds the time left
		if n, err = unix.Ppoll(fds, &ts, nil); err != unix.EINTR {
			break
		}
	}
	took := time.Since(start)
	check("ppoll-timeout", n == 0 && err == nil && took >= 200*time.Millisecond && ts.Sec == 0 && ts.Nsec == 0,
		"%d %v after %v, left %v", n, err, took, ts)

	go func() {
		time.Sleep(100 * time.Millisecond)
		unix.Write(w, []byte("y"))
	}()
	ts = unix.NsecToTimespec(int64(10 * time.Second))
	for { // as for pselect below: EINTR is retried with the time left
		if n, err = unix.Ppoll(fds, &ts, nil); err != unix.EINTR {
			break
		}
	}
	left := time.Duration(unix.TimespecToNsec(ts))
	check("ppoll-wakes", n == 1 && err == nil && fds[0].Revents == unix.POLLIN && left > 5*time.Second && left < 10*time.Second,
		"%d %v %#x left %v", n, err, fds[0].Revents, left)
	unix.Read(r, make([]byte, 1))

	// The write end of a pipe whose read end closed: POLLERR, asked or not.
	r2, w2 := pipe()
	unix.Close(r2)
	wr := []unix.PollFd{{Fd: int32(w2), Events: unix.POLLOUT}}
	n, _ = unix.Ppoll(wr, nil, nil)
	check("ppoll-pollerr", n == 1 && wr[0].Revents&unix.POLLERR != 0, "%d %#x", n, wr[0].Revents)
	unix.Close(w2)

	bad := []unix.PollFd{{Fd: 999, Events: unix.POLLIN}}
	n, err = unix.Ppoll(bad, nil, nil)
	check("ppoll-nval", n == 1 && err == nil && bad[0].Revents == unix.POLLNVAL, "%d %v %#x", n, err, bad[0].Revents)

	f, _ := os.Create("/tmp/pollfile")
	reg := []unix.PollFd{{Fd: int32(f.Fd()), Events: unix.POLLIN | unix.POLLOUT}}
	n, _ = unix.Ppoll(reg, nil, nil)
	check("ppoll-file", n == 1 && reg[0].Revents == unix.POLLIN|unix.POLLOUT, "%d %#x", n, reg[0].Revents)
	f.Close()

	var lim unix.Rlimit
	unix.Getrlimit(unix.RLIMIT_NOFILE, &lim)
	_, _, e := unix.Syscall6(unix.SYS_PPOLL, 0, uintptr(lim.Cur+1), 0, 0, 0, 0)
	check("ppoll-too-many", e == unix.EINVAL, "%v", e)

	// pselect6: the read set, the write set, a timeout that zeroes the
	// sets, and a closed descriptor.
	var rs, ws unix.FdSet
	rs.Set(r)
	ws.Set(w)
	n, err = unix.Pselect(w+1, &rs, &ws, nil, &unix.Timespec{}, nil)
	check("pselect-write-ready", n == 1 && err == nil && !rs.IsSet(r) && ws.IsSet(w), "%d %v", n, err)

	start = time.Now()
	for { // the runtime's SIGURG may end the wait early with EINTR, on Linux too: wait out the rest
		rs.Zero()
		rs.Set(r)
		ts = unix.NsecToTimespec(int64(max(0, 150*time.Millisecond-time.Since(start))))
		if n, err = unix.Pselect(r+1, &rs, nil, nil, &ts, nil); err != unix.EINTR {
			break
		}
	}
	took = time.Since(start)
	check("pselect-timeout", n == 0 && err == nil && !rs.IsSet(r) && took >= 150*time.Millisecond, "%d %v %v", n, err, took)

	go func() {
		time.Sleep(100 * time.Millisecond)
		unix.Write(w, []byte("z"))
	}()
	for { // a signal (the runtime's SIGURG) ends a wait with EINTR, on Linux too
		rs.Zero()
		rs.Set(r)
		if n, err = unix.Pselect(r+1, &rs, nil, nil, nil, nil); err != unix.EINTR {
			break
		}
	}
	check("pselect-wakes", n == 1 && err == nil && rs.IsSet(r), "%d %v", n, err)

	r3, w3 := pipe()
	unix.Close(w3)
	rs.Zero()
	rs.Set(r3)
	n, err = unix.Pselect(r3+1, &rs, nil, nil, nil, nil)
	check("pselect-eof-readable", n == 1 && err == nil && rs.IsSet(r3), "%d %v", n, err)
	unix.Close(r3)
	rs.Zero()
	rs.Set(r3)
	_, err = unix.Pselect(r3+1, &rs, nil, nil, &unix.Timespec{}, nil)
	check("pselect-ebadf", errors.Is(err, syscall.EBADF), "%v", err)

	if guest.Failed() {
		os.Exit(1)
	}
	fmt.Println("poll ok")
}
