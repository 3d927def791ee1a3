package vfs

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Pipes (pipe(7)): a ring buffer of up to pipeBufPages pages, allocated
// as data first needs them. A read of an empty pipe, or a write to a full
// one, answers EAGAIN, and Read/Write wait on the pipe's Waitable until
// the other end notifies. Sockets carry each direction of a connection
// in a pipe, and ask to be notified along with it (Owner).

const (
	MaxPipes     = 512
	pipeBufPages = 16
	// PipeBufSize is the capacity (Linux's default: 16 pages).
	PipeBufSize = pipeBufPages * mm.PageSize
	// PipeAtomic is PIPE_BUF: a write of at most this many bytes goes
	// into the pipe whole or not at all (pipe(7): it waits, or answers
	// EAGAIN when non-blocking, until there is room for all of it), so
	// small writes from several writers never interleave.
	PipeAtomic = 4096
)

// Pipe is one pipe: the ring, the open ends, and the Impl of each end.
//
// Locking: an anonymous pipe's ends are read and written without the
// kernel lock (unlockedio.go), under mu alone; every other path to a pipe
// holds the kernel lock and takes mu where it changes the ring or the
// ends (ReadAt, WriteAt, Close, AddEnd), so the two meet on mu. A path
// that works on the ring across several steps under the kernel lock
// (splice, tee: Hold) keeps the lock-free path off the pipe meanwhile;
// so do a FIFO's and a socket's pipes, whose extra state (tag, owners,
// records, descriptors and credentials in flight) is the kernel lock's.
type Pipe struct {
	W       Waitable
	mu      cpu.Spinlock
	holds   int32 // Hold calls not yet Unheld
	used    bool
	pages   [pipeBufPages]uintptr
	head, n int // read position and bytes buffered
	// In and Out count the bytes that ever entered and left the ring:
	// stream positions, where descriptors in flight are attached
	// (pipe_rights.go).
	In, Out          uint64
	readers, writers int // open ends
	// Owners are notified with the pipe: the sockets whose receive
	// (reader) and send (writer) side it is.
	ReadOwner, WriteOwner *Waitable
	// tag names the FIFO whose pipe this is (0: an anonymous pipe).
	tag uint64
	// Reset says a socket's writer went away abortively (a RST on
	// Linux): after the data, the reader's socket answers ECONNRESET
	// once, and the read side reports EPOLLERR.
	Reset bool
	// credMarks counts the credential marks in flight on the pipe
	// (pipe_creds.go), so that a pipe with none looks at no table.
	credMarks int32

	reader, writer, both pipeEnd
}

// pipeEnd is the Impl of one end of a pipe, or of both (a FIFO opened
// O_RDWR).
type pipeEnd struct {
	Base
	p     *Pipe
	write bool
	both  bool
}

var pipes [MaxPipes]Pipe

// NewPipe returns a new pipe with one reader and one writer, or nil.
func NewPipe() *Pipe { return newPipe(1, 0) }

// NewFIFOPipe returns a new pipe with no ends yet for the FIFO tag names
// (AddEnd opens them), or nil. It goes with its last end, like any pipe.
func NewFIFOPipe(tag uint64) *Pipe { return newPipe(0, tag) }

func newPipe(ends int, tag uint64) *Pipe {
	for i := range pipes {
		p := &pipes[i]
		if p.used {
			continue
		}
		// The lock's counters outlive the pipe: the stats sum them.
		*p = Pipe{used: true, readers: ends, writers: ends, tag: tag,
			mu: cpu.Spinlock{Name: "pipe", Rank: sched.RankObject, LockCounts: p.mu.LockCounts}}
		p.reader = pipeEnd{p: p}
		p.writer = pipeEnd{p: p, write: true}
		p.both = pipeEnd{p: p, both: true}
		return p
	}
	return nil
}

// IsFIFO reports whether p is live and the pipe of the FIFO tag names.
func (p *Pipe) IsFIFO(tag uint64) bool { return p.used && tag != 0 && p.tag == tag }

// AddEnd opens one more reader or writer (a FIFO's open) and tells
// whoever waits on the pipe: a FIFO's open waits for its partner.
func (p *Pipe) AddEnd(write bool) {
	p.lock()
	if write {
		p.writers++
	} else {
		p.readers++
	}
	p.notify(unix.EPOLLIN | unix.EPOLLOUT)
	p.mu.Unlock()
}

func (p *Pipe) lock() { sched.LockObject(&p.mu) }

// Hold keeps the lock-free path (unlockedio.go) off p until Unhold: a
// splice or tee reads the ring, lends it and commits what moved, and
// waits on the pipe, in steps under the kernel lock alone. Holds nest.
func (p *Pipe) Hold() {
	p.lock()
	p.holds++
	p.mu.Unlock()
}

// Unhold ends a Hold.
func (p *Pipe) Unhold() {
	p.lock()
	p.holds--
	p.mu.Unlock()
}

// Ends reports how many readers and writers are open.
func (p *Pipe) Ends() (readers, writers int) { return p.readers, p.writers }

// PipeAt returns pipe i (sockets refer to their pipes by index).
func PipeAt(i int32) *Pipe { return &pipes[i] }

// Index returns p's slot number.
func (p *Pipe) Index() int32 {
	return int32((uintptr(unsafe.Pointer(p)) - uintptr(unsafe.Pointer(&pipes[0]))) / unsafe.Sizeof(pipes[0]))
}

// Reader and Writer are the Impls of the two ends; Both is a reader and
// a writer in one description (a FIFO opened O_RDWR: AddEnd both first).
func (p *Pipe) Reader() Impl { return &p.reader }
func (p *Pipe) Writer() Impl { return &p.writer }
func (p *Pipe) Both() Impl   { return &p.both }

// Len is the number of bytes buffered; Room the bytes a write can add.
func (p *Pipe) Len() int  { return p.n }
func (p *Pipe) Room() int { return PipeBufSize - p.n }

// Close drops one end (reader or writer); the pipe goes with its last
// end, and the other side hears of it (EOF, or EPIPE).
func (p *Pipe) Close(write bool) {
	p.lock()
	if write {
		p.writers--
	} else {
		p.readers--
	}
	if p.readers == 0 && p.writers == 0 {
		// No end is left, so nothing else reaches p: release it
		// unlocked (dropping descriptors in flight may close other
		// pipes, whose locks rank with this one).
		p.mu.Unlock()
		p.release()
		return
	}
	if write {
		p.notify(unix.EPOLLHUP | unix.EPOLLIN)
	} else {
		p.notify(unix.EPOLLERR | unix.EPOLLOUT)
	}
	p.mu.Unlock()
}

func (p *Pipe) release() {
	p.dropRights(^uint64(0))
	p.dropAllCreds()
	for i := range p.pages {
		if p.pages[i] != 0 {
			mm.Pages.Put(p.pages[i])
			p.pages[i] = 0
		}
	}
	p.used = false
}

func (p *Pipe) notify(events uint32) {
	NotifySync(&p.W, events)
	if p.ReadOwner != nil {
		Notify(p.ReadOwner, events)
	}
	if p.WriteOwner != nil {
		Notify(p.WriteOwner, events)
	}
}

// Put copies app bytes at src into the ring and returns how many it took
// (fewer than n when the ring fills up or a page cannot be had), and
// false if src faulted before any byte was taken.
func (p *Pipe) Put(src uintptr, n uint64) (uint64, bool) {
	done, faulted := p.put(src, n)
	return done, !faulted || done > 0
}

// put is Put, saying whether src faulted (at done) rather than the ring
// filling or running out of pages.
func (p *Pipe) put(src uintptr, n uint64) (done uint64, faulted bool) {
	return p.putFrom(src, n, true)
}

// putFrom is put; without alloc it stops at a ring page not yet
// allocated, as if full (the page allocator is the kernel lock's).
func (p *Pipe) putFrom(src uintptr, n uint64, alloc bool) (done uint64, faulted bool) {
	for done < n && p.Room() > 0 {
		tail := (p.head + p.n) % PipeBufSize
		page := p.pages[tail/mm.PageSize]
		if page == 0 && !alloc {
			break
		}
		if page == 0 {
			if page = mm.Pages.Get(); page == 0 {
				// Out of memory: behave as a full pipe until the
				// reader drains (its pages stay allocated).
				break
			}
			p.pages[tail/mm.PageSize] = page
		}
		off := tail % mm.PageSize
		chunk := mm.PageSize - off
		if chunk > p.Room() {
			chunk = p.Room()
		}
		if uint64(chunk) > n-done {
			chunk = int(n - done)
		}
		if !usermem.CopyIn(mm.PageBytes(page)[off:off+chunk], src+uintptr(done)) {
			faulted = true
			break
		}
		p.n += chunk
		p.In += uint64(chunk)
		done += uint64(chunk)
	}
	if done > 0 {
		p.notify(unix.EPOLLIN)
	}
	return done, faulted
}

// Take copies up to n buffered bytes to the app at dst and returns how
// many, and false if dst faulted before any byte was copied.
func (p *Pipe) Take(dst uintptr, n uint64) (uint64, bool) {
	done := uint64(0)
	for done < n && p.n > 0 {
		page := p.pages[p.head/mm.PageSize]
		off := p.head % mm.PageSize
		chunk := mm.PageSize - off
		if chunk > p.n {
			chunk = p.n
		}
		if uint64(chunk) > n-done {
			chunk = int(n - done)
		}
		if !usermem.CopyOut(dst+uintptr(done), mm.PageBytes(page)[off:off+chunk]) {
			if done == 0 {
				return 0, false
			}
			break
		}
		p.head = (p.head + chunk) % PipeBufSize
		p.n -= chunk
		p.Out += uint64(chunk)
		done += uint64(chunk)
	}
	if done > 0 {
		p.notify(unix.EPOLLOUT)
	}
	return done, true
}

// ReadEvents are the EPOLL* bits of the read side: data, or EOF.
func (p *Pipe) ReadEvents() uint32 {
	var r uint32
	if p.n > 0 {
		r |= unix.EPOLLIN
	}
	if p.writers == 0 {
		r |= unix.EPOLLHUP
		if p.Reset {
			r |= unix.EPOLLERR
		}
	}
	return r
}

// WriteEvents are the EPOLL* bits of the write side: room, or no reader
// left.
func (p *Pipe) WriteEvents() uint32 {
	var r uint32
	if p.Room() > 0 {
		r |= unix.EPOLLOUT
	}
	if p.readers == 0 {
		r |= unix.EPOLLERR
	}
	return r
}

// ReadAt is a read of the read side: bytes, EOF (0) once no writer is
// left, or EAGAIN.
func (p *Pipe) ReadAt(buf uintptr, n uint64) uint64 {
	if n == 0 {
		return 0
	}
	p.lock()
	r := p.readAt(buf, n)
	p.mu.Unlock()
	return r
}

// readAt is ReadAt with p.mu held.
func (p *Pipe) readAt(buf uintptr, n uint64) uint64 {
	if p.n == 0 {
		if p.writers == 0 {
			return 0
		}
		return errAgain
	}
	got, ok := p.Take(buf, n)
	if !ok {
		return Err(unix.EFAULT)
	}
	return got
}

// WriteAt is a write to the write side: bytes taken, EPIPE once no reader
// is left (the caller sends SIGPIPE), or EAGAIN when full.
func (p *Pipe) WriteAt(buf uintptr, n uint64) uint64 {
	p.lock()
	r := p.writeAt(buf, n)
	p.mu.Unlock()
	return r
}

// writeAt is WriteAt with p.mu held.
func (p *Pipe) writeAt(buf uintptr, n uint64) uint64 {
	if p.readers == 0 {
		return Err(unix.EPIPE)
	}
	if n == 0 {
		return 0
	}
	put, ok := p.Put(buf, n)
	if !ok {
		return Err(unix.EFAULT)
	}
	if put == 0 {
		if p.Room() > 0 {
			// Room, but no page to hold it: Linux's pipe_write answers
			// ENOMEM when alloc_page fails before anything is written,
			// rather than waiting for a reader who may be waiting for
			// this writer.
			return Err(unix.ENOMEM)
		}
		return errAgain
	}
	return put
}

func (e *pipeEnd) Read(f *File, buf uintptr, n uint64, off int64) uint64 {
	if e.write && !e.both {
		return Err(unix.EBADF)
	}
	return e.p.ReadAt(buf, n)
}

func (e *pipeEnd) Write(f *File, buf uintptr, n uint64, off int64) uint64 {
	if !e.write && !e.both {
		return Err(unix.EBADF)
	}
	p := e.p
	p.lock()
	r := errAgain
	if !p.atomicWaits(n) {
		r = p.writeAt(buf, n)
	}
	p.mu.Unlock()
	return r
}

// atomicWaits says whether a write of n bytes must wait for room
// (PipeAtomic): it is small and does not fit yet, and a reader is left
// (else EPIPE comes first); p.mu is held.
func (p *Pipe) atomicWaits(n uint64) bool {
	return p.readers > 0 && n <= PipeAtomic && uint64(p.Room()) < n
}

func (e *pipeEnd) Readiness(f *File) uint32 {
	switch {
	case e.both:
		return e.p.ReadEvents() | e.p.WriteEvents()
	case e.write:
		return e.p.WriteEvents()
	}
	return e.p.ReadEvents()
}

func (e *pipeEnd) Waitable() *Waitable { return &e.p.W }
func (e *pipeEnd) Kind() Kind          { return KindPipe }
func (e *pipeEnd) Release(f *File) {
	if e.both {
		e.p.Close(false)
	}
	e.p.Close(e.write || e.both)
}

func (e *pipeEnd) Stat(f *File) unix.Stat_t {
	return unix.Stat_t{Mode: unix.S_IFIFO | 0o600, Nlink: 1, Blksize: mm.PageSize}
}
