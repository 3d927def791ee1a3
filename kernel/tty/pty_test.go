//go:build !arm64

package tty

import (
	"testing"

	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// resetPtys frees the pool (host tests only).
func resetPtys() { Ptys = [MaxPtys]Pty{} }

// A pair on the host: what the master writes is the slave's input, run
// through the discipline, its echo and the slave's output (ONLCR) come
// back to the master; the slave's close makes the master read EIO, and
// the master's close hangs the slave up (pty.c, n_tty.c).
func TestPtyPair(t *testing.T) {
	tm := setup(t, true)
	resetPtys()
	var added, removed []int32
	Added = func(n int32) { added = append(added, n) }
	Removed = func(n int32) { removed = append(removed, n) }
	defer func() { Added, Removed = nil, nil }()

	p := NewPty(1000, 1000)
	if p == nil || p.N() != 0 || len(added) != 1 || !p.Locked {
		t.Fatalf("NewPty: %v %v", p, added)
	}
	if e := p.OpenSlave(); e != unix.EIO {
		t.Fatalf("locked slave open: %v, want EIO", e)
	}
	p.Locked = false
	if e := p.OpenSlave(); e != 0 {
		t.Fatal(e)
	}
	mf := &vfs.Files[vfs.Alloc(p, unix.O_RDWR)]
	sf := &vfs.Files[vfs.Alloc(&p.Slave, unix.O_RDWR)]

	if r := p.Read(mf, tm.buf, 100, -1); r != vfs.Err(unix.EAGAIN) {
		t.Fatalf("empty master read %d, want EAGAIN", r)
	}
	usermem.CopyOut(tm.buf, []byte("hi\r"))
	p.Write(mf, tm.buf, 3, -1)
	r := p.Read(mf, tm.buf, 100, -1)
	if got := tm.user(r); got != "hi\r\n" {
		t.Errorf("echo %q, want %q", got, "hi\r\n")
	}
	r = p.Slave.Read(sf, tm.buf, 100, -1)
	if got := tm.user(r); got != "hi\n" {
		t.Errorf("slave read %q", got)
	}
	usermem.CopyOut(tm.buf, []byte("a\n"))
	p.Slave.Write(sf, tm.buf, 2, -1)
	if p.Readiness(mf)&unix.EPOLLIN == 0 {
		t.Error("master not readable after the slave wrote")
	}
	r = p.Read(mf, tm.buf, 100, -1)
	if got := tm.user(r); got != "a\r\n" {
		t.Errorf("slave output %q, want ONLCR's", got)
	}
	// ^C with no foreground group signals nobody (not PID 1 as the
	// console does).
	usermem.CopyOut(tm.buf, []byte{3})
	p.Write(mf, tm.buf, 1, -1)
	if len(tm.sigs) != 0 {
		t.Errorf("signals %v with no foreground group", tm.sigs)
	}
	p.Slave.Pgrp = 7
	p.Write(mf, tm.buf, 1, -1)
	if len(tm.sigs) != 1 || tm.sigs[0] != int(unix.SIGINT) || tm.to[0] != 7 {
		t.Errorf("signals %v to %v, want SIGINT to 7", tm.sigs, tm.to)
	}
	p.Slave.Pgrp = 0

	p.Slave.Release(sf)
	p.Read(mf, tm.buf, 100, -1) // the ^C echoes
	if r := p.Read(mf, tm.buf, 100, -1); r != vfs.Err(unix.EIO) {
		t.Errorf("master read after the slave's close: %d, want EIO", r)
	}
	if p.Readiness(mf)&unix.EPOLLHUP == 0 {
		t.Error("no EPOLLHUP after the slave's close")
	}
	p.Release(mf)
	if Used(0) || len(removed) != 1 {
		t.Errorf("pair not freed: %v %v", Used(0), removed)
	}
}

// The pool: past MaxPtys, NewPty has none (the caller's ENOSPC).
func TestPtyPoolFull(t *testing.T) {
	setup(t, true)
	resetPtys()
	for i := 0; i < MaxPtys; i++ {
		if NewPty(0, 0) == nil {
			t.Fatalf("pair %d refused", i)
		}
	}
	if NewPty(0, 0) != nil {
		t.Fatal("a pair past MaxPtys")
	}
	resetPtys()
}

// A slave's write waits for room in its master's buffer (n_tty_write
// waits for write room): 10,000 bytes written while the master does not
// read stop at what fits, then EAGAIN, with the slave not writable;
// each master read makes room (writable again), and every byte arrives
// once, in order.
func TestPtySlaveWriteWaitsForTheMaster(t *testing.T) {
	tm := setup(t, false)
	tm.buf = usermem.HostReset(24, 8) // room for the bytes written and read
	resetPtys()
	p := NewPty(0, 0)
	p.Locked = false
	if e := p.OpenSlave(); e != 0 {
		t.Fatal(e)
	}
	mf := &vfs.Files[vfs.Alloc(p, unix.O_RDWR)]
	sf := &vfs.Files[vfs.Alloc(&p.Slave, unix.O_RDWR)]
	p.Slave.Termios.Oflag = 0 // bytes as written
	const total = 10000
	src := make([]byte, total)
	for i := range src {
		src[i] = 'a' + byte(i%26)
	}
	usermem.CopyOut(tm.buf, src)
	var got []byte
	sent := uint64(0)
	for rounds := 0; sent < total; rounds++ {
		if rounds > 10 {
			t.Fatalf("stuck after %d of %d bytes", sent, total)
		}
		r := p.Slave.Write(sf, tm.buf+uintptr(sent), total-sent, -1)
		switch {
		case vfs.IsErr(r) && r != vfs.Err(unix.EAGAIN):
			t.Fatalf("slave write: %#x", r)
		case !vfs.IsErr(r):
			sent += r
			if sent < total && p.Slave.Readiness(sf)&unix.EPOLLOUT != 0 {
				t.Errorf("slave writable with the master's buffer full (%d sent)", sent)
			}
		}
		if sent < total {
			if r := p.Slave.Write(sf, tm.buf+uintptr(sent), 1, -1); r != vfs.Err(unix.EAGAIN) {
				t.Fatalf("a write into a full buffer: %#x, want EAGAIN", r)
			}
		}
		rb := tm.buf + total
		for {
			n := p.Read(mf, rb, 4096, -1)
			if vfs.IsErr(n) {
				break
			}
			b := make([]byte, n)
			usermem.CopyIn(b, rb)
			got = append(got, b...)
		}
		if p.Slave.Readiness(sf)&unix.EPOLLOUT == 0 {
			t.Error("slave not writable after the master read everything")
		}
	}
	if string(got) != string(src) {
		t.Errorf("the master read %d bytes, not the %d written in order", len(got), total)
	}
}
