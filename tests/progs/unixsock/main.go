// Command unixsock exercises AF_UNIX stream sockets the way programs use
// them: net.Listen("unix") on a path and on an abstract name, Dial,
// bytes both ways, the names each end sees, socketpair, and the errors
// Linux gives (connect to nothing, to a file that is not a socket, to a
// socket nobody listens on; bind to a name in use; open of a socket
// file). It prints one line per check; the same binary gives the same
// lines on Linux.
package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
)

func main() {
	dir, err := os.MkdirTemp("", "unixsock")
	check(err)
	path := filepath.Join(dir, "s.sock")

	l, err := net.Listen("unix", path)
	check(err)
	st, err := os.Stat(path)
	check(err)
	fmt.Printf("socket file: %v\n", st.Mode()&os.ModeType == os.ModeSocket)
	fmt.Printf("listener addr: %v\n", l.Addr().String() == path)
	echo(l)

	c, err := net.Dial("unix", path)
	check(err)
	fmt.Printf("client remote: %v\n", c.RemoteAddr().String() == path)
	roundTrip(c, "hello over a path")

	_, err = net.Listen("unix", path)
	fmt.Printf("bind in use: %v\n", errors.Is(err, syscall.EADDRINUSE))
	_, err = os.Open(path)
	fmt.Printf("open socket file: %v\n", errors.Is(err, syscall.ENXIO))
	_, err = net.Dial("unix", filepath.Join(dir, "missing"))
	fmt.Printf("dial missing: %v\n", errors.Is(err, syscall.ENOENT))
	check(os.WriteFile(filepath.Join(dir, "file"), nil, 0o644))
	_, err = net.Dial("unix", filepath.Join(dir, "file"))
	fmt.Printf("dial a file: %v\n", errors.Is(err, syscall.ECONNREFUSED))

	// A bound socket that does not listen refuses connections.
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	check(err)
	quiet := filepath.Join(dir, "quiet.sock")
	check(syscall.Bind(fd, &syscall.SockaddrUnix{Name: quiet}))
	_, err = net.Dial("unix", quiet)
	fmt.Printf("dial a socket that does not listen: %v\n", errors.Is(err, syscall.ECONNREFUSED))
	syscall.Close(fd)

	c.Close()
	l.Close() // Go unlinks the socket file
	_, err = os.Stat(path)
	fmt.Printf("file gone with the listener: %v\n", errors.Is(err, os.ErrNotExist))
	_, err = net.Dial("unix", path)
	fmt.Printf("dial after close: %v\n", errors.Is(err, syscall.ENOENT))

	// Abstract names have no file.
	al, err := net.Listen("unix", "@gometal-abstract")
	check(err)
	fmt.Printf("abstract addr: %s\n", al.Addr())
	echo(al)
	ac, err := net.Dial("unix", "@gometal-abstract")
	check(err)
	roundTrip(ac, "hello over an abstract name")
	ac.Close()
	al.Close()

	// socketpair(2): two connected ends.
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	check(err)
	a, b := os.NewFile(uintptr(fds[0]), "a"), os.NewFile(uintptr(fds[1]), "b")
	_, err = a.Write([]byte("through a pair"))
	check(err)
	a.Close()
	got, err := io.ReadAll(b)
	check(err)
	fmt.Printf("pair: %q then EOF\n", got)
	_, err = syscall.Socketpair(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	fmt.Printf("inet pair: %v\n", errors.Is(err, syscall.EOPNOTSUPP))
	fmt.Println("unixsock ok")
}

// echo serves one connection on l, writing back what it reads.
func echo(l net.Listener) {
	go func() {
		s, err := l.Accept()
		if err != nil {
			return
		}
		fmt.Printf("server local is the listener's: %v, remote unnamed: %v\n", s.LocalAddr().String() == l.Addr().String(), s.RemoteAddr().String() == "" || s.RemoteAddr().String() == "@")
		io.Copy(s, s)
		s.Close()
	}()
}

func roundTrip(c net.Conn, msg string) {
	_, err := c.Write([]byte(msg))
	check(err)
	buf := make([]byte, len(msg))
	_, err = io.ReadFull(c, buf)
	check(err)
	fmt.Printf("echoed: %q\n", buf)
}

func check(err error) {
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
}
