//go:build !arm64

package vfs

import (
	"bytes"
	"testing"

	"github.com/gometal/gometal/kernel/usermem"

	"golang.org/x/sys/unix"
)

// Splicing across a pipe's wrapped ring: bytes written by the app go
// from one pipe to another through the second's own Write (lent pages),
// a tee leaves them in place, and SpliceIn fills a pipe from another
// file's Read; the counts stop at the room there is.
func TestSpliceBetweenPipes(t *testing.T) {
	base := setup(t, 40)
	a, ar, aw := pipeFiles(t, unix.O_NONBLOCK)
	b, br, bw := pipeFiles(t, unix.O_NONBLOCK)
	data := make([]byte, PipeBufSize)
	for i := range data {
		data[i] = byte(i*13 + i>>9)
	}
	// Move a's ring past its start, so what it holds wraps.
	put(t, base, data[:5000])
	if r := aw.Impl.Write(aw, base, 5000, -1); r != 5000 {
		t.Fatalf("write: %d", r)
	}
	if r := ar.Impl.Read(ar, base, 5000, -1); r != 5000 {
		t.Fatalf("read: %d", r)
	}
	put(t, base, data)
	if r := aw.Impl.Write(aw, base, PipeBufSize, -1); r != PipeBufSize {
		t.Fatalf("fill: %d", r)
	}

	if r, _ := SpliceOut(a, bw, 10, -1, true); r != 10 || a.Len() != PipeBufSize || b.Len() != 10 {
		t.Fatalf("tee 10: %d, a holds %d, b %d", r, a.Len(), b.Len())
	}
	if r := br.Impl.Read(br, base, 10, -1); r != 10 || !bytes.Equal(get(t, base, 10), data[:10]) {
		t.Fatalf("tee's copy: %d %q", r, get(t, base, 10))
	}
	r, empty := SpliceOut(a, bw, PipeBufSize+100, -1, false)
	if r != PipeBufSize || empty || a.Len() != 0 || b.Len() != PipeBufSize {
		t.Fatalf("splice all: %d (empty %v), a holds %d, b %d", r, empty, a.Len(), b.Len())
	}
	if r, empty := SpliceOut(a, bw, 10, -1, false); r != errAgain || !empty {
		t.Fatalf("splice from an empty pipe: %d, empty %v; want EAGAIN on the pipe", r, empty)
	}
	// b is full now: a splice into it waits on it.
	put(t, base, data[:100])
	aw.Impl.Write(aw, base, 100, -1)
	if r, empty := SpliceOut(a, bw, 100, -1, false); r != errAgain || empty || a.Len() != 100 {
		t.Fatalf("splice into a full pipe: %d, empty %v, a holds %d; want EAGAIN with nothing taken", r, empty, a.Len())
	}
	// And back: b's bytes into a through b's reader.
	if r := ar.Impl.Read(ar, base, 100, -1); r != 100 {
		t.Fatalf("drain a: %d", r)
	}
	r, full := SpliceIn(br, a, PipeBufSize, -1)
	if r != PipeBufSize || full {
		t.Fatalf("splice b into a: %d, full %v", r, full)
	}
	if r := ar.Impl.Read(ar, base, PipeBufSize, -1); r != PipeBufSize || !bytes.Equal(get(t, base, PipeBufSize), data) {
		t.Fatalf("bytes after two splices: %d, equal %v", r, bytes.Equal(get(t, base, PipeBufSize), data))
	}
	if r, _ := SpliceIn(br, a, 10, -1); r != errAgain {
		t.Fatalf("splice from an empty pipe's reader: %d, want EAGAIN", r)
	}
	// Nothing stays lent: the address is the app's EFAULT again.
	if usermem.CopyOut(usermem.LentBase, []byte{1}) {
		t.Fatal("the lent address still reaches kernel memory after the splice")
	}
}

// A lend covers exactly its bytes.
func TestLendBounds(t *testing.T) {
	setup(t, 1)
	buf := make([]byte, 100)
	at := usermem.Lend(buf)
	defer usermem.Return()
	if !usermem.CopyOut(at+90, bytes.Repeat([]byte{7}, 10)) || buf[99] != 7 {
		t.Fatal("copy to the lend's end failed")
	}
	if usermem.CopyOut(at+91, bytes.Repeat([]byte{7}, 10)) {
		t.Fatal("a copy past the lend's end succeeded")
	}
	in := make([]byte, 10)
	if !usermem.CopyIn(in, at+90) || in[9] != 7 {
		t.Fatal("copy from the lend failed")
	}
	if usermem.CopyIn(in, at-1) || usermem.CopyIn(in, ^uintptr(0)-4) {
		t.Fatal("a copy from outside the lend succeeded")
	}
}
