//go:build !arm64

package vfs

import (
	"bytes"
	"testing"

	"golang.org/x/sys/unix"
)

// Records keep their boundaries, across the ring's wrap too; a short
// buffer gets the front of one record and the rest is dropped; an empty
// record is a record; a record that cannot fit is EMSGSIZE, one that
// does not fit now EAGAIN with the ring untouched; a fault rolls back.
func TestPipeRecords(t *testing.T) {
	base := setup(t, 40)
	p := NewPipe()
	src, dst := base, base+20*4096
	data := make([]byte, 3*PipeBufSize/4)
	for i := range data {
		data[i] = byte(i * 13)
	}
	put(t, src, data)

	// Move the head near the end of the ring, so records wrap.
	if n := p.WriteRecord(src, 40000); n != 40000 {
		t.Fatalf("write 40000: %d", int64(n))
	}
	if got, full := p.ReadRecord(dst, 40000); got != 40000 || full != 40000 {
		t.Fatalf("read: %d of %d", int64(got), full)
	}
	for _, n := range []uint64{100, 0, 30000} {
		if r := p.WriteRecord(src, n); r != n {
			t.Fatalf("write %d: %d", n, int64(r))
		}
	}
	// 100+0+30000 bytes and 3 headers are buffered; this one does not fit
	// now, and leaves the ring as it was.
	before := p.Len()
	if r := p.WriteRecord(src, uint64(p.Room())-recordHeader+1); r != Err(unix.EAGAIN) || p.Len() != before {
		t.Fatalf("a record one byte too big for the room: %d, len %d -> %d", int64(r), before, p.Len())
	}
	if r := p.WriteRecord(src, MaxRecord+1); r != Err(unix.EMSGSIZE) {
		t.Fatalf("a record bigger than the ring: %d", int64(r))
	}
	if r := p.WriteRecord(base+1000*4096, 10); r != Err(unix.EFAULT) || p.Len() != before {
		t.Fatalf("a faulting record: %d, len %d -> %d", int64(r), before, p.Len())
	}
	// A 10-byte buffer gets the first 10 bytes of the 100-byte record.
	if got, full := p.ReadRecord(dst, 10); got != 10 || full != 100 || !bytes.Equal(get(t, dst, 10), data[:10]) {
		t.Fatalf("short read: %d of %d", int64(got), full)
	}
	if got, full := p.ReadRecord(dst, 10); got != 0 || full != 0 {
		t.Fatalf("the empty record: %d of %d", int64(got), full)
	}
	// A faulting reader leaves the record for the next read.
	if got, _ := p.ReadRecord(base+1000*4096, 30000); got != Err(unix.EFAULT) {
		t.Fatalf("faulting read: %d", int64(got))
	}
	if got, full := p.ReadRecord(dst, 65536); got != 30000 || full != 30000 || !bytes.Equal(get(t, dst, 30000), data[:30000]) {
		t.Fatalf("the wrapped record: %d of %d", int64(got), full)
	}
	if got, _ := p.ReadRecord(dst, 10); got != Err(unix.EAGAIN) {
		t.Fatalf("empty: %d", int64(got))
	}
	if p.RecordWriteEvents()&unix.EPOLLOUT == 0 {
		t.Error("an empty ring is not writable for records")
	}
	p.WriteRecord(src, PipeBufSize/2)
	if p.RecordWriteEvents()&unix.EPOLLOUT != 0 || p.WriteEvents()&unix.EPOLLOUT == 0 {
		t.Error("half full: writable for records, or not for bytes")
	}
	p.Close(true)
	p.ReadRecord(dst, 10)
	if got, full := p.ReadRecord(dst, 10); got != 0 || full != 0 {
		t.Fatalf("EOF: %d of %d", int64(got), full)
	}
}
