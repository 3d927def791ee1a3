// Package guest holds what the test programs in tests/progs share: their
// command-line arguments and the FAIL line the system tests look for.
package guest

import (
	"fmt"
	"os"
	"strconv"
)

// failed says whether a Check failed.
var failed bool

// Check prints "FAIL: what got..." if ok is false and remembers it, so a
// program can go on with its other checks and end with Failed.
func Check(what string, ok bool, got ...any) {
	if !ok {
		failed = true
		fmt.Println("FAIL:", what, fmt.Sprint(got...))
	}
}

// Checkf prints "ok name" or, if ok is false, "FAIL name: " and the
// formatted reason, and remembers the failure: the style of programs
// whose every line is compared with Linux's (tests/progs/procs).
func Checkf(name string, ok bool, format string, args ...any) {
	if ok {
		fmt.Println("ok", name)
		return
	}
	failed = true
	fmt.Printf("FAIL %s: %s\n", name, fmt.Sprintf(format, args...))
}

// Failed reports whether any Check failed.
func Failed() bool { return failed }

// Fail prints "FAIL: msg" and exits with status 1.
func Fail(msg string) {
	fmt.Println("FAIL:", msg)
	os.Exit(1)
}

// Arg returns os.Args[i] as an int, or def if there is no such argument.
func Arg(i, def int) int {
	if len(os.Args) <= i {
		return def
	}
	n, err := strconv.Atoi(os.Args[i])
	if err != nil {
		Fail(err.Error())
	}
	return n
}
