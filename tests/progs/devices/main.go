//go:build linux && arm64

// Devices checks the root file system's skeleton a Linux program expects:
// the memory devices in /dev, /etc/passwd and /etc/group for os/user,
// /etc/hosts, and a writable /tmp.
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/user"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

// check is guest.Check: every check runs, the failures are listed.
var check = guest.Check

func main() {
	for name, dev := range map[string]uint64{"null": unix.Mkdev(1, 3), "zero": unix.Mkdev(1, 5),
		"full": unix.Mkdev(1, 7), "random": unix.Mkdev(1, 8), "urandom": unix.Mkdev(1, 9)} {
		var st unix.Stat_t
		err := unix.Stat("/dev/"+name, &st)
		check("stat /dev/"+name, err == nil && st.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == dev, err, st.Mode, st.Rdev)
	}
	fi, err := os.Stat(os.DevNull)
	check("os.DevNull is a character device", err == nil && fi.Mode()&os.ModeCharDevice != 0, err)

	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	check("open /dev/null", err == nil, err)
	n, err := null.Write(make([]byte, 1000))
	check("/dev/null takes every byte", n == 1000 && err == nil, n, err)
	n, err = null.Read(make([]byte, 10))
	check("/dev/null reads as end of file", n == 0, n, err)

	z, err := os.Open("/dev/zero")
	check("open /dev/zero", err == nil, err)
	buf := bytes.Repeat([]byte{0xff}, 8192)
	n, err = z.Read(buf)
	check("/dev/zero reads zeros", err == nil && n == len(buf) && bytes.Count(buf, []byte{0}) == n, n, err)

	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	check("open /dev/full", err == nil, err)
	_, err = full.Write([]byte("x"))
	check("/dev/full is full", err != nil && bytes.Contains([]byte(err.Error()), []byte("no space left on device")), err)

	r, err := os.Open("/dev/urandom")
	check("open /dev/urandom", err == nil, err)
	a, b := make([]byte, 32), make([]byte, 32)
	r.Read(a)
	r.Read(b)
	check("/dev/urandom gives different bytes each read", !bytes.Equal(a, b) && !bytes.Equal(a, make([]byte, 32)), a, b)

	u, err := user.Current()
	check("os/user finds uid 0 in /etc/passwd", err == nil && u.Username == "root" && u.HomeDir == "/root", u, err)
	g, err := user.LookupGroupId("0")
	check("os/user finds gid 0 in /etc/group", err == nil && g.Name == "root", g, err)
	hosts, err := os.ReadFile("/etc/hosts")
	check("/etc/hosts names localhost", err == nil && bytes.Contains(hosts, []byte("127.0.0.1\tlocalhost")), err)

	tf, err := os.CreateTemp("", "devices-*")
	check("a temporary file in /tmp", err == nil && tf != nil && len(tf.Name()) > 5 && tf.Name()[:5] == "/tmp/", err)
	if st, err := os.Stat("/tmp"); err != nil || st.Mode()&os.ModeSticky == 0 {
		check("/tmp is sticky (mode 1777)", false, err)
	}

	if guest.Failed() {
		fmt.Println("devices: FAIL")
		os.Exit(1)
	}
	fmt.Println("devices ok")
}
