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
