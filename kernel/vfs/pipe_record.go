package vfs

import (
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// Records in a pipe, for AF_UNIX SOCK_SEQPACKET connections (unix(7)):
// each send is one record, kept in the ring as a 4-byte little-endian
// length and the bytes, put whole or not at all; a receive takes one
// record, and what does not fit the reader's buffers is dropped (the
// reader sees MSG_TRUNC, as Linux's unix_dgram_recvmsg gives it). A
// record may be empty. A write or read that faults is rolled back: the
// ring is as it was.

const (
	recordHeader = 4
	// MaxRecord is the largest record: the ring less its header (Linux
	// allows up to the socket's send buffer, 208 KiB by default).
	MaxRecord = PipeBufSize - recordHeader
)

// Record is a record being written or read: the ring's state before it,
// to roll back to, and the bytes of it left to read.
type Record struct {
	head, n int
	in, out uint64
	// Len is the record's length; EOF, on a read, says there is no
	// record and no writer left.
	Len  uint64
	EOF  bool
	left uint64
}

// ringByte returns the byte at offset i from the ring's head, its page
// allocated if need be, or nil with no page to be had.
func (p *Pipe) ringByte(i int) *byte {
	pos := (p.head + i) % PipeBufSize
	pg := &p.pages[pos/mm.PageSize]
	if *pg == 0 {
		if *pg = mm.Pages.Get(); *pg == 0 {
			return nil
		}
	}
	return &mm.PageBytes(*pg)[pos%mm.PageSize]
}

// BeginWrite starts an n-byte record: EPIPE with no reader left,
// EMSGSIZE if it can never fit, EAGAIN if it does not fit now.
func (p *Pipe) BeginWrite(n uint64) (Record, unix.Errno) {
	switch {
	case p.readers == 0:
		return Record{}, unix.EPIPE
	case n > MaxRecord:
		return Record{}, unix.EMSGSIZE
	case uint64(p.Room()) < recordHeader+n:
		return Record{}, unix.EAGAIN
	}
	r := Record{head: p.head, n: p.n, in: p.In, out: p.Out, Len: n}
	for i := 0; i < recordHeader; i++ {
		b := p.ringByte(p.n)
		if b == nil {
			p.Abort(&r) // out of pages: as a full pipe
			return Record{}, unix.EAGAIN
		}
		*b = byte(n >> (8 * i))
		p.n++
		p.In++
	}
	return r, 0
}

// WritePart adds n bytes at src to the record; false if src faulted or
// no page could be had (Abort then).
func (p *Pipe) WritePart(r *Record, src uintptr, n uint64) (ok, faulted bool) {
	done, faulted := p.put(src, n)
	return done == n, faulted
}

// Abort undoes a record begun and not ended.
func (p *Pipe) Abort(r *Record) { p.head, p.n, p.In, p.Out = r.head, r.n, r.in, r.out }

// EndWrite ends a record whose bytes are all written.
func (p *Pipe) EndWrite(r *Record) { p.notify(unix.EPOLLIN) }

// WriteRecord writes one record of n bytes at buf: n, or an error
// (EAGAIN when it does not fit now).
func (p *Pipe) WriteRecord(buf uintptr, n uint64) uint64 {
	r, e := p.BeginWrite(n)
	if e != 0 {
		return Err(e)
	}
	if ok, faulted := p.WritePart(&r, buf, n); !ok {
		p.Abort(&r)
		if faulted {
			return Err(unix.EFAULT)
		}
		return errAgain
	}
	p.EndWrite(&r)
	return n
}

// BeginRead starts reading the record at the head: EAGAIN if there is
// none yet; r.EOF if there is none and no writer left.
func (p *Pipe) BeginRead() (r Record, e unix.Errno) {
	if p.n == 0 {
		if p.writers == 0 {
			return Record{EOF: true}, 0
		}
		return Record{}, unix.EAGAIN
	}
	r = Record{head: p.head, n: p.n, in: p.In, out: p.Out}
	for i := 0; i < recordHeader; i++ {
		r.Len |= uint64(*p.ringByte(i)) << (8 * i) // written whole: present
	}
	p.head = (p.head + recordHeader) % PipeBufSize
	p.n -= recordHeader
	p.Out += recordHeader
	r.left = r.Len
	return r, 0
}

// ReadPart copies up to n more of the record's bytes to dst and returns
// how many; false if dst faulted (Abort then).
func (p *Pipe) ReadPart(r *Record, dst uintptr, n uint64) (uint64, bool) {
	got, ok := p.Take(dst, min(n, r.left))
	if !ok || got < min(n, r.left) {
		return got, false
	}
	r.left -= got
	return got, true
}

// EndRead drops what is left of the record and tells the writer.
func (p *Pipe) EndRead(r *Record) {
	p.head = (p.head + int(r.left)) % PipeBufSize
	p.n -= int(r.left)
	p.Out += r.left
	r.left = 0
	p.notify(unix.EPOLLOUT)
}

// ReadRecord reads one record into buf (n bytes): the bytes copied and
// the record's whole length, 0 at EOF, or an error.
func (p *Pipe) ReadRecord(buf uintptr, n uint64) (got, full uint64) {
	r, e := p.BeginRead()
	if e != 0 {
		return Err(e), 0
	}
	if r.EOF {
		return 0, 0
	}
	got, ok := p.ReadPart(&r, buf, n)
	if !ok {
		p.Abort(&r)
		return Err(unix.EFAULT), 0
	}
	p.EndRead(&r)
	return got, r.Len
}

// recordWritable is the room a record writer waits for: a quarter of
// the ring in use at most, as Linux's unix_writable (sk_wmem_alloc << 2
// <= sk_sndbuf), so a blocked writer of a record up to three quarters of
// the ring is woken when it fits.
const recordWritable = PipeBufSize * 3 / 4

// RecordWriteEvents is WriteEvents for a writer of records.
func (p *Pipe) RecordWriteEvents() uint32 {
	r := p.WriteEvents()
	if p.Room() < recordWritable {
		r &^= unix.EPOLLOUT
	}
	return r
}
