//go:build !arm64

package vfs

import (
	"testing"

	"golang.org/x/sys/unix"
)

// Credential marks: a pipe keeps one where the credentials of its bytes
// change; a read stops being bound by those it has passed, which go;
// an empty pipe keeps none.
func TestPipeCreds(t *testing.T) {
	buf := setup(t, 4)
	p := NewPipe()
	a, b := unix.Ucred{Pid: 10}, unix.Ucred{Pid: 20, Uid: 7, Gid: 7}
	write := func(c unix.Ucred, n uint64) {
		t.Helper()
		if !p.SetCred(c) {
			t.Fatal("no mark")
		}
		if r := p.WriteAt(buf, n); r != n {
			t.Fatalf("write %d: %d", n, r)
		}
	}
	if c := p.CredAt(0); c != NoCred() {
		t.Errorf("a new pipe's bytes carry %+v", c)
	}
	write(NoCred(), 2) // [0,2) none: no mark
	write(a, 3)        // [2,5) a
	write(a, 1)        // [5,6) a: the same mark
	write(b, 2)        // [6,8) b
	if p.credMarks != 2 {
		t.Fatalf("%d marks, want 2", p.credMarks)
	}
	for _, c := range []struct {
		pos  uint64
		cred unix.Ucred
		end  uint64
	}{{0, NoCred(), 2}, {1, NoCred(), 2}, {2, a, 6}, {5, a, 6}, {6, b, ^uint64(0)}} {
		if got, end := p.CredAt(c.pos), p.CredEnd(c.pos); got != c.cred || end != c.end {
			t.Errorf("at %d: %+v up to %d, want %+v up to %d", c.pos, got, end, c.cred, c.end)
		}
	}
	// Reading into the second run keeps only the mark in force.
	p.ReadAt(buf, 4)
	p.DropCreds()
	if p.credMarks != 2 || p.CredAt(p.Out) != a {
		t.Errorf("after reading 4: %d marks, %+v in force", p.credMarks, p.CredAt(p.Out))
	}
	p.ReadAt(buf, 3)
	p.DropCreds()
	if p.credMarks != 1 || p.CredAt(p.Out) != b {
		t.Errorf("after reading 7: %d marks, %+v in force", p.credMarks, p.CredAt(p.Out))
	}
	// Empty, the pipe lets its marks go; a write that moved nothing
	// leaves a mark the next writer changes.
	p.ReadAt(buf, 1)
	p.DropCreds()
	if p.credMarks != 0 || p.CredAt(p.Out) != NoCred() {
		t.Errorf("empty: %d marks, %+v in force", p.credMarks, p.CredAt(p.Out))
	}
	p.SetCred(a)
	write(b, 1)
	if p.credMarks != 1 || p.CredAt(p.Out) != b {
		t.Errorf("a changed mark: %d marks, %+v", p.credMarks, p.CredAt(p.Out))
	}
	// Marks go with the pipe.
	p.Close(false)
	p.Close(true)
	for i := range credMarks {
		if credMarks[i].pipe != 0 {
			t.Fatalf("mark %d outlived its pipe", i)
		}
	}
}

// With every mark taken, a change of credentials is refused; the same
// credentials need none.
func TestPipeCredsFull(t *testing.T) {
	buf := setup(t, 4)
	p := NewPipe()
	for i := range credMarks {
		credMarks[i] = credMark{pipe: -5, at: 0}
	}
	if p.SetCred(unix.Ucred{Pid: 1}) {
		t.Error("a mark was given with none free")
	}
	if !p.SetCred(NoCred()) || p.WriteAt(buf, 1) != 1 {
		t.Error("bytes with no credentials need no mark")
	}
}
