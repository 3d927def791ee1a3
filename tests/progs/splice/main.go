//go:build linux && arm64

// Command splice moves bytes between files, pipes and sockets inside
// the kernel, with the system calls (sendfile, splice, tee,
// copy_file_range) and through the Go library paths that use them
// (io.Copy from a file to a socket, from a socket to a file, from one
// TCP connection to another), and prints what each did, so that its
// output can be compared line for line with Linux's: the counts, where
// offsets and positions end up, the errors for descriptors that cannot
// take part, and that every byte arrived.
package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

// size spans many pages and ends inside one.
const size = 300_000

var data = pattern(size)

func main() {
	guest.LoopbackUp()
	if err := os.MkdirAll("/tmp", 0o1777); err != nil {
		guest.Fail(err.Error())
	}
	src := "/tmp/splice-src"
	if err := os.WriteFile(src, data, 0o644); err != nil {
		guest.Fail(err.Error())
	}
	sendfile(src)
	splice(src)
	tee()
	copyFileRange(src)
	library(src)
	fmt.Println("splice: done")
	if os.Getpid() == 1 {
		unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	}
}

func sendfile(src string) {
	fd := open(src, unix.O_RDONLY)
	defer unix.Close(fd)
	pr, pw := pipe(0)
	off := int64(1000)
	n, err := unix.Sendfile(pw, fd, &off, 5000)
	say("sendfile 5000 at offset 1000 into a pipe: %d %s, offset now %d, position %d, bytes %s", n, guest.Result(err), off, pos(fd), same(readN(pr, n), data[1000:6000]))
	n, err = unix.Sendfile(pw, fd, nil, 100)
	say("sendfile 100 from the position into a pipe: %d %s, position %d, bytes %s", n, guest.Result(err), pos(fd), same(readN(pr, n), data[:100]))
	off = size
	n, err = unix.Sendfile(pw, fd, &off, 100)
	say("sendfile at the end of the file: %d %s", n, guest.Result(err))
	off = -1
	_, err = unix.Sendfile(pw, fd, &off, 100)
	say("sendfile at offset -1: %s", guest.Result(err))
	_, err = unix.Sendfile(pw, pr, nil, 100)
	say("sendfile from a pipe: %s", guest.Result(err))

	// Into a regular file: the whole count, the output's position moves.
	dst := open("/tmp/splice-dst", unix.O_RDWR|unix.O_CREAT|unix.O_TRUNC)
	off = 0
	n, err = unix.Sendfile(dst, fd, &off, size+50)
	say("sendfile the whole file into a file: %d %s, its position %d, bytes %s", n, guest.Result(err), pos(dst), same(fileBytes("/tmp/splice-dst"), data))
	app := open("/tmp/splice-dst", unix.O_WRONLY|unix.O_APPEND)
	_, err = unix.Sendfile(app, fd, nil, 10)
	say("sendfile into an O_APPEND file: %s", guest.Result(err))
	unix.Close(app)
	unix.Close(dst)
	wo := open(src, unix.O_WRONLY)
	_, err = unix.Sendfile(pw, wo, nil, 10)
	say("sendfile from a write-only descriptor: %s", guest.Result(err))
	unix.Close(wo)
	unix.Close(pr)
	unix.Close(pw)

	// A blocking socket takes all of it, the reader draining it meanwhile.
	s := socketpair()
	got := make(chan []byte)
	go func() { got <- readN(s[1], size) }()
	off = 0
	n, err = unix.Sendfile(s[0], fd, &off, size)
	say("sendfile the whole file into a blocking socket: %d %s, bytes %s", n, guest.Result(err), same(<-got, data))
	unix.Close(s[0])
	unix.Close(s[1])
}

func splice(src string) {
	fd := open(src, unix.O_RDONLY)
	defer unix.Close(fd)
	pr, pw := pipe(0)
	off := int64(4000)
	n, err := unix.Splice(fd, &off, pw, nil, 10000, 0)
	say("splice 10000 from a file at offset 4000 into a pipe: %d %s, offset now %d, position %d", n, guest.Result(err), off, pos(fd))
	dst := open("/tmp/splice-out", unix.O_RDWR|unix.O_CREAT|unix.O_TRUNC)
	off = 100
	n, err = unix.Splice(pr, nil, dst, &off, 10000, 0)
	say("splice the pipe into a file at offset 100: %d %s, offset now %d, position %d, bytes %s", n, guest.Result(err), off, pos(dst), same(fileBytes("/tmp/splice-out")[100:], data[4000:14000]))
	n, err = unix.Splice(fd, nil, pw, nil, 70000, 0)
	say("splice 70000 from the position into a pipe: %d %s, position %d", n, guest.Result(err), pos(fd))
	n, err = unix.Splice(pr, nil, dst, nil, 100000, 0)
	say("splice the pipe into the file at its position: %d %s, position %d, bytes %s", n, guest.Result(err), pos(dst), same(fileBytes("/tmp/splice-out")[:n], data[:n]))

	_, err = unix.Splice(fd, nil, dst, nil, 10, 0)
	say("splice between two files: %s", guest.Result(err))
	off = 0
	_, err = unix.Splice(pr, &off, dst, nil, 10, 0)
	say("splice with an offset for the pipe: %s", guest.Result(err))
	_, err = unix.Splice(pr, nil, dst, nil, 10, 0x100)
	say("splice with an unknown flag: %s", guest.Result(err))
	n, err = unix.Splice(pr, nil, dst, nil, 0, 0)
	say("splice of 0 bytes: %d %s", n, guest.Result(err))
	_, err = unix.Splice(pr, nil, dst, nil, 10, unix.SPLICE_F_NONBLOCK)
	say("splice from an empty pipe, SPLICE_F_NONBLOCK: %s", guest.Result(err))
	_, err = unix.Splice(pr, nil, pw, nil, 10, 0)
	say("splice a pipe into itself: %s", guest.Result(err))

	// Pipe to pipe; then the ends go.
	qr, qw := pipe(0)
	unix.Write(pw, []byte("pipe to pipe"))
	n, err = unix.Splice(pr, nil, qw, nil, 4, 0)
	say("splice 4 bytes pipe to pipe: %d %s, %q", n, guest.Result(err), readN(qr, int(n)))
	unix.Close(pw)
	n, err = unix.Splice(pr, nil, qw, nil, 100, 0)
	say("splice the rest after the writer closed: %d %s, %q", n, guest.Result(err), readN(qr, int(n)))
	n, err = unix.Splice(pr, nil, qw, nil, 100, 0)
	say("splice from an empty pipe with no writer: %d %s", n, guest.Result(err))
	unix.Close(qr)
	_, err = unix.Splice(fd, nil, qw, nil, 100, 0)
	say("splice into a pipe with no reader: %s", guest.Result(err))
	unix.Close(qw)
	unix.Close(pr)
	unix.Close(dst)

	// A socket into a pipe and on into another socket.
	s, u := socketpair(), socketpair()
	pr, pw = pipe(0)
	unix.Write(s[0], []byte("through a pipe"))
	n, err = unix.Splice(s[1], nil, pw, nil, 100, 0)
	say("splice a socket into a pipe: %d %s", n, guest.Result(err))
	n, err = unix.Splice(pr, nil, u[0], nil, 100, 0)
	say("splice the pipe into a socket: %d %s, %q", n, guest.Result(err), readN(u[1], int(n)))
	unix.SetNonblock(s[1], true)
	_, err = unix.Splice(s[1], nil, pw, nil, 100, 0)
	say("splice from a non-blocking socket with nothing to read: %s", guest.Result(err))
	for _, fd := range []int{s[0], s[1], u[0], u[1], pr, pw} {
		unix.Close(fd)
	}
}

func tee() {
	ar, aw := pipe(0)
	br, bw := pipe(0)
	unix.Write(aw, []byte("hello, tee"))
	n, err := unix.Tee(ar, bw, 5, 0)
	say("tee 5 bytes: %d %s; the copy %q, the first pipe still %q", n, guest.Result(err), readN(br, int(n)), readN(ar, 10))
	_, err = unix.Tee(ar, bw, 5, unix.SPLICE_F_NONBLOCK)
	say("tee from an empty pipe, SPLICE_F_NONBLOCK: %s", guest.Result(err))
	f := open("/tmp/splice-src", unix.O_RDONLY)
	_, err = unix.Tee(f, bw, 5, 0)
	say("tee from a file: %s", guest.Result(err))
	for _, fd := range []int{ar, aw, br, bw, f} {
		unix.Close(fd)
	}
}

func copyFileRange(src string) {
	fd := open(src, unix.O_RDONLY)
	defer unix.Close(fd)
	dst := open("/tmp/splice-copy", unix.O_RDWR|unix.O_CREAT|unix.O_TRUNC)
	defer unix.Close(dst)
	offIn, offOut := int64(10), int64(20)
	n, err := unix.CopyFileRange(fd, &offIn, dst, &offOut, 50000, 0)
	say("copy_file_range 50000 from 10 to 20: %d %s, offsets %d %d, positions %d %d, bytes %s", n, guest.Result(err), offIn, offOut, pos(fd), pos(dst), same(fileBytes("/tmp/splice-copy")[20:], data[10:50010]))
	n, err = unix.CopyFileRange(fd, nil, dst, nil, size, 0)
	say("copy_file_range the rest from the positions: %d %s, positions %d %d", n, guest.Result(err), pos(fd), pos(dst))
	offIn, offOut = 0, 100
	_, err = unix.CopyFileRange(dst, &offIn, dst, &offOut, 200, 0)
	say("copy_file_range into an overlapping range of the same file: %s", guest.Result(err))
	_, err = unix.CopyFileRange(fd, nil, dst, nil, 10, 1)
	say("copy_file_range with flags: %s", guest.Result(err))
	pr, pw := pipe(0)
	_, err = unix.CopyFileRange(pr, nil, dst, nil, 10, 0)
	say("copy_file_range from a pipe: %s", guest.Result(err))
	unix.Close(pr)
	unix.Close(pw)
}

// library runs the Go paths that use these calls.
func library(src string) {
	// A file to a Unix socket (os.File.WriteTo: sendfile), a Unix
	// socket to a file (os.File.ReadFrom: splice through a pipe).
	ln := serveFile("unix", "/tmp/splice.sock", src)
	c, err := net.Dial("unix", "/tmp/splice.sock")
	if err != nil {
		guest.Fail(err.Error())
	}
	out, _ := os.Create("/tmp/splice-lib")
	n, err := io.Copy(out, c)
	out.Close()
	c.Close()
	ln.Close()
	say("io.Copy file -> unix socket -> file: %d %v, bytes %s", n, err, same(fileBytes("/tmp/splice-lib"), data))

	// A file to TCP (TCPConn.ReadFrom: sendfile), TCP to TCP through a
	// proxy (TCPConn.ReadFrom a TCPConn: splice).
	back := serveFile("tcp4", "127.0.0.1:0", src)
	front := listen("tcp4", "127.0.0.1:0")
	go func() {
		c, err := front.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp4", back.Addr().String())
		if err != nil {
			c.Close()
			return
		}
		io.Copy(c, up)
		up.Close()
		c.Close()
	}()
	tc, err := net.Dial("tcp4", front.Addr().String())
	if err != nil {
		guest.Fail(err.Error())
	}
	h := sha256.New()
	n, err = io.Copy(h, tc)
	tc.Close()
	say("io.Copy file -> TCP -> proxy -> TCP: %d %v, bytes %s", n, err, sameSum(h.Sum(nil), data))
	back.Close()
	front.Close()
}

// serveFile listens and sends the file at path to the first client
// with io.Copy.
func serveFile(network, addr, path string) net.Listener {
	ln := listen(network, addr)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		f, _ := os.Open(path)
		io.Copy(c, f)
		f.Close()
		c.Close()
	}()
	return ln
}

func listen(network, addr string) net.Listener {
	ln, err := net.Listen(network, addr)
	if err != nil {
		guest.Fail(err.Error())
	}
	return ln
}

func say(format string, a ...any) { fmt.Printf("splice: "+format+"\n", a...) }

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

func same(got, want []byte) string {
	if bytes.Equal(got, want) {
		return "intact"
	}
	return fmt.Sprintf("DIFFER (%d bytes, want %d)", len(got), len(want))
}

func sameSum(sum []byte, want []byte) string {
	w := sha256.Sum256(want)
	if bytes.Equal(sum, w[:]) {
		return "intact"
	}
	return "DIFFER"
}

func open(path string, flags int) int {
	fd, err := unix.Open(path, flags|unix.O_CLOEXEC, 0o644)
	if err != nil {
		guest.Fail(path + ": " + err.Error())
	}
	return fd
}

func pipe(flags int) (r, w int) {
	var p [2]int
	if err := unix.Pipe2(p[:], flags|unix.O_CLOEXEC); err != nil {
		guest.Fail(err.Error())
	}
	return p[0], p[1]
}

func socketpair() [2]int {
	s, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		guest.Fail(err.Error())
	}
	return s
}

func pos(fd int) int64 {
	p, _ := unix.Seek(fd, 0, io.SeekCurrent)
	return p
}

// readN reads n bytes from fd (fewer at its end).
func readN(fd, n int) []byte {
	b := make([]byte, n)
	got := 0
	for got < n {
		m, err := unix.Read(fd, b[got:])
		if m <= 0 || err != nil {
			break
		}
		got += m
	}
	return b[:got]
}

func fileBytes(path string) []byte {
	b, _ := os.ReadFile(path)
	return b
}
