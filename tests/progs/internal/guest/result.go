//go:build linux

package guest

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Result names what a system call answered: "ok", or its errno's name
// (EAGAIN, ...), the part a kernel decides, so that a program's output
// compares line for line with Linux's.
func Result(err error) string {
	if err == nil {
		return "ok"
	}
	var e unix.Errno
	if errors.As(err, &e) {
		return unix.ErrnoName(e)
	}
	return err.Error()
}

// ReadFile is a file's contents as a string, or "error: " and why: a
// check prints what it read either way.
func ReadFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(b)
}

// LinuxDev gives a program run as init on Linux (the reference runs of
// the tests) the /proc, /dev and /tmp gometal has at boot: proc on /proc,
// devtmpfs on /dev when /dev/null is missing (os/exec opens it), and
// /tmp. On gometal it changes nothing.
func LinuxDev() {
	if _, err := os.Stat("/proc/self"); err != nil {
		os.MkdirAll("/proc", 0o555)
		unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	}
	if _, err := os.Stat("/dev/null"); err != nil {
		os.MkdirAll("/dev", 0o755)
		unix.Mount("devtmpfs", "/dev", "devtmpfs", 0, "")
	}
	os.MkdirAll("/tmp", 0o1777)
}
