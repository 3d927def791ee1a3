// flock checks advisory locks between processes (fcntl(2)'s record and
// open-file-description locks, flock(2)), each check printing "ok NAME"
// or "FAIL NAME: why", then "flock ok". The child is this program run
// again with a role; the lock file is its descriptor 3.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

var check = guest.Checkf

func lk(typ int16, start, length int64) *unix.Flock_t {
	return &unix.Flock_t{Type: typ, Whence: 0, Start: start, Len: length}
}

// child runs this program with role, the file as descriptor 3, and
// returns what it printed.
func child(f *os.File, role string) string {
	cmd := exec.Command("/proc/self/exe", role)
	cmd.ExtraFiles = []*os.File{f}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Sprintf("%s (%v)", out, err)
	}
	return string(out)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] != "nokaslr" { // Linux passes init the words it does not know
		role(os.Args[1])
		return
	}
	guest.LinuxDev()
	f, err := os.OpenFile("/tmp/lockfile", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		guest.Fail(err.Error())
	}
	f.Truncate(1 << 20)
	fd := int(f.Fd())

	err = unix.FcntlFlock(uintptr(fd), unix.F_SETLK, lk(unix.F_WRLCK, 100, 50))
	check("setlk", err == nil, "%v", err)
	check("getlk-other", child(f, "getlk") == fmt.Sprintf("F_WRLCK 100 50 pid %d\n", os.Getpid()), "%q", child(f, "getlk"))
	check("setlk-busy", child(f, "setlk") == "EAGAIN\n", "%q", child(f, "setlk"))
	// The owner itself sees no conflict with its own lock.
	own := lk(unix.F_WRLCK, 120, 1)
	unix.FcntlFlock(uintptr(fd), unix.F_GETLK, own)
	check("getlk-own", own.Type == unix.F_UNLCK, "%d", own.Type)
	// A close of any descriptor of the file drops the process's locks.
	g, _ := os.Open("/tmp/lockfile")
	g.Close()
	check("close-drops", child(f, "setlk") == "ok\n", "%q", child(f, "setlk"))

	// F_SETLKW waits for the holder to let go.
	unix.FcntlFlock(uintptr(fd), unix.F_SETLK, lk(unix.F_WRLCK, 0, 0))
	go func() {
		time.Sleep(300 * time.Millisecond)
		unix.FcntlFlock(uintptr(fd), unix.F_SETLK, lk(unix.F_UNLCK, 0, 0))
	}()
	start := time.Now()
	out := child(f, "setlkw")
	check("setlkw-waits", out == "ok\n" && time.Since(start) >= 300*time.Millisecond, "%q after %v", out, time.Since(start))

	// Deadlock: the child holds byte 1 and waits for byte 0, which we
	// hold; our wait for byte 1 would close the cycle.
	unix.FcntlFlock(uintptr(fd), unix.F_SETLK, lk(unix.F_WRLCK, 0, 1))
	cmd := exec.Command("/proc/self/exe", "deadlock")
	cmd.ExtraFiles = []*os.File{f}
	r, w, _ := os.Pipe()
	cmd.Stdout = w
	cmd.Start()
	w.Close()
	b := make([]byte, 16)
	n, _ := r.Read(b) // "holding\n": it holds byte 1 and is about to wait
	time.Sleep(200 * time.Millisecond)
	err = unix.FcntlFlock(uintptr(fd), unix.F_SETLKW, lk(unix.F_WRLCK, 1, 1))
	check("edeadlk", string(b[:n]) == "holding\n" && errors.Is(err, syscall.EDEADLK), "%q %v", b[:n], err)
	unix.FcntlFlock(uintptr(fd), unix.F_SETLK, lk(unix.F_UNLCK, 0, 0))
	cmd.Wait()

	// flock(2): whole-file, per description, a class of its own.
	err = unix.Flock(fd, unix.LOCK_EX)
	check("flock-ex", err == nil && child(f, "flocknb") == "ok\n", "%v %q", err, child(f, "flocknb"))
	h, _ := os.Open("/tmp/lockfile")
	err = unix.Flock(int(h.Fd()), unix.LOCK_SH|unix.LOCK_NB)
	check("flock-other-desc", errors.Is(err, syscall.EWOULDBLOCK), "%v", err)
	unix.Flock(fd, unix.LOCK_UN)
	err = unix.Flock(int(h.Fd()), unix.LOCK_SH|unix.LOCK_NB)
	check("flock-after-un", err == nil, "%v", err)
	h.Close() // its last close drops its flock
	err = unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
	check("flock-close-drops", err == nil, "%v", err)
	unix.Flock(fd, unix.LOCK_UN)

	// OFD locks conflict between descriptions, even in one process.
	h, _ = os.OpenFile("/tmp/lockfile", os.O_RDWR, 0)
	err = unix.FcntlFlock(uintptr(fd), unix.F_OFD_SETLK, lk(unix.F_WRLCK, 0, 10))
	err2 := unix.FcntlFlock(h.Fd(), unix.F_OFD_SETLK, lk(unix.F_RDLCK, 5, 1))
	q := lk(unix.F_RDLCK, 0, 1)
	unix.FcntlFlock(h.Fd(), unix.F_OFD_GETLK, q)
	check("ofd", err == nil && errors.Is(err2, syscall.EAGAIN) && q.Type == unix.F_WRLCK && q.Pid == -1, "%v %v %+v", err, err2, q)
	h.Close()

	// Bad arguments.
	err = unix.FcntlFlock(uintptr(fd), unix.F_SETLK, &unix.Flock_t{Type: 7})
	check("bad-type", errors.Is(err, syscall.EINVAL), "%v", err)
	ro, _ := os.Open("/tmp/lockfile")
	err = unix.FcntlFlock(ro.Fd(), unix.F_SETLK, lk(unix.F_WRLCK, 0, 1))
	check("wrlck-readonly", errors.Is(err, syscall.EBADF), "%v", err)
	err = unix.FcntlFlock(uintptr(fd), unix.F_SETLK, lk(unix.F_WRLCK, -5, 1))
	check("negative-start", errors.Is(err, syscall.EINVAL), "%v", err)
	err = unix.Flock(fd, unix.LOCK_SH|unix.LOCK_EX)
	check("flock-bad-op", errors.Is(err, syscall.EINVAL), "%v", err)

	if guest.Failed() {
		os.Exit(1)
	}
	fmt.Println("flock ok")
}

// role is the child's part.
func role(r string) {
	const fd = 3
	switch r {
	case "getlk":
		q := lk(unix.F_RDLCK, 0, 0)
		if err := unix.FcntlFlock(fd, unix.F_GETLK, q); err != nil {
			fmt.Println(err)
			return
		}
		names := map[int16]string{unix.F_RDLCK: "F_RDLCK", unix.F_WRLCK: "F_WRLCK", unix.F_UNLCK: "F_UNLCK"}
		fmt.Printf("%s %d %d pid %d\n", names[q.Type], q.Start, q.Len, q.Pid)
	case "setlk":
		fmt.Println(guest.Result(unix.FcntlFlock(fd, unix.F_SETLK, lk(unix.F_WRLCK, 110, 10))))
	case "setlkw":
		fmt.Println(guest.Result(unix.FcntlFlock(fd, unix.F_SETLKW, lk(unix.F_WRLCK, 0, 0))))
	case "deadlock":
		unix.FcntlFlock(fd, unix.F_SETLK, lk(unix.F_WRLCK, 1, 1))
		fmt.Println("holding")
		unix.FcntlFlock(fd, unix.F_SETLKW, lk(unix.F_WRLCK, 0, 1)) // until the parent lets go
	case "flocknb":
		// A new description of the file: another flock owner.
		f, _ := os.Open("/tmp/lockfile")
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			fmt.Println("ok")
		} else {
			fmt.Println("got", err)
		}
	}
}
