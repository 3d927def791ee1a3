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
