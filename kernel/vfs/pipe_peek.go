package vfs

import "github.com/gometal/gometal/kernel/usermem"

// Peeking into a pipe (a socket's, for recv(2) with MSG_PEEK): its bytes
// copied out and left in the ring.

// Peek copies up to n of the bytes buffered past the first off to the
// app at dst, leaving them there (recv(2) with MSG_PEEK), and returns
// how many; false if dst faulted before any byte was copied.
func (p *Pipe) Peek(dst uintptr, n uint64, off int) (uint64, bool) {
	done := uint64(0)
	for done < n {
		b := p.data(off + int(done))
		if len(b) == 0 {
			break
		}
		b = b[:min(uint64(len(b)), n-done)]
		if !usermem.CopyOut(dst+uintptr(done), b) {
			return done, done > 0
		}
		done += uint64(len(b))
	}
	return done, true
}

// PeekRecord is Peek within the first record (pipe_record.go): up to n
// of its bytes past off, and its length.
func (p *Pipe) PeekRecord(dst uintptr, n uint64, off int) (got, length uint64, ok bool) {
	if p.n < recordHeader {
		return 0, 0, true
	}
	for i := 0; i < recordHeader; i++ {
		length |= uint64(p.data(i)[0]) << (8 * i)
	}
	if uint64(off) >= length {
		return 0, length, true
	}
	got, ok = p.Peek(dst, min(n, length-uint64(off)), recordHeader+off)
	return got, length, ok
}
