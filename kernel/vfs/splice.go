package vfs

import (
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"

	"golang.org/x/sys/unix"
)

// Splicing (splice(2), tee(2)): a pipe's pages lent (usermem.Lend) to
// the other file's own Write or Read, so the bytes go from the pipe's
// ring to the object, or from the object into the ring, in one copy and
// with every object's own rules (a socket's window, a file's offset,
// another pipe's room). Linux moves page references instead
// (splice_to_pipe); a copy out of a kernel page costs what a write(2)
// would, without the trip through the app's buffer.

// PipeOf returns the pipe behind description f, if f is a pipe's end (or
// a FIFO's): splice needs one end to be. A socket is not a pipe, though
// its connections are carried in them.
func PipeOf(f *File) (*Pipe, bool) {
	e, ok := f.Impl.(*pipeEnd)
	if !ok {
		return nil, false
	}
	return e.p, true
}

// data returns the bytes buffered k bytes past the read position, up to
// the end of their page: what can be lent in one piece.
func (p *Pipe) data(k int) []byte {
	if k >= p.n {
		return nil
	}
	at := (p.head + k) % PipeBufSize
	off := at % mm.PageSize
	chunk := min(mm.PageSize-off, p.n-k)
	return mm.PageBytes(p.pages[at/mm.PageSize])[off : off+chunk]
}

// consume takes k bytes off the read side, as Take does once copied.
func (p *Pipe) consume(k int) {
	p.head = (p.head + k) % PipeBufSize
	p.n -= k
	p.Out += uint64(k)
}

// room returns the free bytes at the write position, up to the end of
// their page (allocated now, as put does): empty when the ring is full
// or no page can be had.
func (p *Pipe) room() []byte {
	if p.Room() == 0 {
		return nil
	}
	tail := (p.head + p.n) % PipeBufSize
	page := p.pages[tail/mm.PageSize]
	if page == 0 {
		if page = mm.Pages.Get(); page == 0 {
			return nil
		}
		p.pages[tail/mm.PageSize] = page
	}
	off := tail % mm.PageSize
	return mm.PageBytes(page)[off : off+min(mm.PageSize-off, p.Room())]
}

// commit adds k bytes written into room to the read side.
func (p *Pipe) commit(k int) {
	p.n += k
	p.In += uint64(k)
}

// SpliceOut moves up to n bytes from pipe p to out through out's Write
// (at off and on, or at out's position when off < 0), and returns how
// many. An empty pipe answers 0 once no writer is left and EAGAIN before;
// then pipeEmpty is true, so the caller waits on the pipe, not on out.
// Otherwise out's own answer (EAGAIN, EPIPE, ...) comes back when
// nothing moved. peek leaves the bytes in p (tee(2)).
func SpliceOut(p *Pipe, out *File, n uint64, off int64, peek bool) (r uint64, pipeEmpty bool) {
	if p.n == 0 {
		if p.writers == 0 {
			return 0, true
		}
		return errAgain, true
	}
	done := uint64(0)
	for done < n {
		b := p.data(int(done))
		if len(b) == 0 {
			break
		}
		b, at := piece(b, n, done, off)
		w := out.Impl.Write(out, usermem.Lend(b), uint64(len(b)), at)
		usermem.Return()
		if IsErr(w) || w == 0 {
			if done == 0 {
				return w, false
			}
			break
		}
		done += w
		if w < uint64(len(b)) {
			break
		}
	}
	if !peek {
		p.consume(int(done))
		p.notify(unix.EPOLLOUT)
	}
	return done, false
}

// SpliceIn moves up to n bytes from in, through its Read (at off and on,
// or at in's position when off < 0), into pipe p, and returns how many:
// 0 at in's end of file. A full pipe answers EAGAIN with pipeFull true
// (the caller waits on the pipe), a pipe no one reads EPIPE; otherwise
// in's own answer comes back when nothing moved.
func SpliceIn(in *File, p *Pipe, n uint64, off int64) (r uint64, pipeFull bool) {
	if p.readers == 0 {
		return Err(unix.EPIPE), false
	}
	done := uint64(0)
	for done < n {
		b := p.room()
		if len(b) == 0 {
			if done == 0 {
				return errAgain, true
			}
			break
		}
		b, at := piece(b, n, done, off)
		got := in.Impl.Read(in, usermem.Lend(b), uint64(len(b)), at)
		usermem.Return()
		if IsErr(got) || got == 0 {
			if done == 0 {
				return got, false
			}
			break
		}
		p.commit(int(got))
		done += got
		if got < uint64(len(b)) {
			break
		}
	}
	if done > 0 {
		p.notify(unix.EPOLLIN)
	}
	return done, false
}

// piece cuts b to what is left of n after done, and gives the offset
// it goes at: off plus done, or -1 (the file's position) for none.
func piece(b []byte, n, done uint64, off int64) ([]byte, int64) {
	if uint64(len(b)) > n-done {
		b = b[:n-done]
	}
	if off >= 0 {
		off += int64(done)
	}
	return b, off
}
