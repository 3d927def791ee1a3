// Rawkeys drives the console as a terminal (TestTerminalModes): a cooked
// line with echo and erase, single keys in raw mode (golang.org/x/term's
// MakeRaw: no echo, ^C a byte), a VMIN 0/VTIME read that times out,
// cooked mode again with kill, and the window size. It prints what it
// read; the test types and checks, and checks the echoes it sees.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/gometal/gometal/tests/progs/internal/guest"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// read reads once from stdin and prints what came.
func read(what string) {
	var b [64]byte
	n, err := os.Stdin.Read(b[:])
	fmt.Printf("%s %q %v\n", what, b[:n], err)
}

func fail(f string, a ...any) {
	fmt.Printf("FAIL "+f+"\n", a...)
	os.Exit(1)
}

func main() {
	ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
	if err != nil {
		fail("TIOCGWINSZ: %v", err)
	}
	fmt.Printf("winsize %dx%d\n", ws.Row, ws.Col)

	fmt.Println("cooked: type a line")
	read("line")

	old, err := guest.RawKeys(3)
	if err != nil {
		fail("%v", err)
	}

	// VMIN 0, VTIME 3: nothing typed, the read gives 0 after 0.3 s.
	tio, _ := unix.IoctlGetTermios(0, unix.TCGETS)
	tio.Cc[unix.VMIN], tio.Cc[unix.VTIME] = 0, 3
	if err := unix.IoctlSetTermios(0, unix.TCSETS, tio); err != nil {
		fail("TCSETS: %v", err)
	}
	start := time.Now()
	var b [16]byte
	n, err := unix.Read(0, b[:])
	took := time.Since(start)
	fmt.Printf("vtime read %d %v, waited %v\r\n", n, err, took >= 250*time.Millisecond && took < 5*time.Second)

	if err := term.Restore(0, old); err != nil {
		fail("Restore: %v", err)
	}
	fmt.Println("cooked again: type a line")
	read("line")
	fmt.Println("rawkeys ok")
}
