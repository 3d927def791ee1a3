//go:build linux && arm64

// Command ipv6off checks that a Go program written for a dual-stack
// machine keeps working where the kernel has no IPv6, as gometal has
// none (and as Linux booted with ipv6.disable=1): socket(AF_INET6) is
// refused with EAFNOSUPPORT, so Go's net package finds no IPv6 and
// listens and dials on IPv4 (wildcard listens, "localhost",
// IPv4-mapped addresses); only what names IPv6 explicitly fails, with
// the same error as on Linux. Each line is "ipv6off: WHAT: RESULT".
package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

func main() {
	guest.LoopbackUp()
	_, err := unix.Socket(unix.AF_INET6, unix.SOCK_STREAM, 0)
	say("socket(AF_INET6, SOCK_STREAM)", result(err))
	_, err = unix.Socket(unix.AF_INET6, unix.SOCK_DGRAM, 0)
	say("socket(AF_INET6, SOCK_DGRAM)", result(err))

	// A wildcard listen, as servers write it, is IPv4's.
	ln, err := net.Listen("tcp", ":0")
	if err != nil {
		say("listen tcp :0", err.Error())
		os.Exit(1)
	}
	defer ln.Close()
	go serve(ln)
	port := ln.Addr().(*net.TCPAddr).Port
	say("listen tcp :0", fmt.Sprintf("on %s", family(ln.Addr().(*net.TCPAddr).IP)))
	for _, host := range []string{"127.0.0.1", "::ffff:127.0.0.1", "localhost"} {
		say("dial tcp "+host, dial("tcp", net.JoinHostPort(host, fmt.Sprint(port))))
	}
	say("dial tcp ::1", dial("tcp", net.JoinHostPort("::1", fmt.Sprint(port))))
	say("dial tcp6 127.0.0.1", dial("tcp6", net.JoinHostPort("127.0.0.1", fmt.Sprint(port))))
	_, err = net.Listen("tcp6", "[::1]:0")
	say("listen tcp6 [::1]:0", result(err))
	pc, err := net.ListenPacket("udp", ":0")
	if err == nil {
		say("listen udp :0", "on "+family(pc.LocalAddr().(*net.UDPAddr).IP))
		pc.Close()
	} else {
		say("listen udp :0", err.Error())
	}
	fmt.Println("ipv6off: done")
}

// serve answers each connection with "ok" and closes it.
func serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		io.WriteString(c, "ok")
		c.Close()
	}
}

// dial connects and reads the server's answer.
func dial(network, addr string) string {
	c, err := net.Dial(network, addr)
	if err != nil {
		return result(err)
	}
	defer c.Close()
	b, _ := io.ReadAll(c)
	return fmt.Sprintf("%q from %s", b, family(c.RemoteAddr().(*net.TCPAddr).IP))
}

// result names err's errno, the part a kernel decides.
func result(err error) string {
	if err == nil {
		return "ok"
	}
	var en unix.Errno
	if errors.As(err, &en) {
		return "error " + unix.ErrnoName(en)
	}
	return "error: " + err.Error()
}

func family(ip net.IP) string {
	if ip.To4() != nil {
		return "IPv4"
	}
	return "IPv6"
}

func say(what, res string) { fmt.Printf("ipv6off: %s: %s\n", what, res) }
