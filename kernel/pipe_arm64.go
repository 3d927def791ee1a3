package kernel

import (
	"gometal/kernel/mm"
	"gometal/sched"

	"golang.org/x/sys/unix"
)

// Pipes: a ring buffer of up to pipeBufPages pages per pipe, allocated as
// data first needs them. A read that finds
// the pipe empty, or a write that finds it full, blocks its thread; the
// other end completes the blocked call as data or room appears (the
// waker writes X0), so no kernel code ever waits.

const (
	maxPipes     = 512
	pipeBufPages = 16
	pipeBufSize  = pipeBufPages * mm.PageSize
)

type pipe struct {
	used             bool
	pages            [pipeBufPages]uintptr
	head, n          int // read position and bytes buffered
	readers, writers int // open descriptors on each end
	gen              uint32
}

var pipes [maxPipes]pipe

func (p *pipe) free() int { return pipeBufSize - p.n }

// put copies app bytes at src into the ring; returns bytes taken.
func (p *pipe) put(src uintptr, n uint64) (uint64, bool) {
	done := uint64(0)
	for done < n && p.free() > 0 {
		tail := (p.head + p.n) % pipeBufSize
		page := p.pages[tail/mm.PageSize]
		if page == 0 {
			if page = mm.Pages.Get(); page == 0 {
				// Out of memory: behave as a full pipe until the
				// reader drains (its pages stay allocated).
				return done, true
			}
			p.pages[tail/mm.PageSize] = page
		}
		off := tail % mm.PageSize
		chunk := mm.PageSize - off
		if chunk > p.free() {
			chunk = p.free()
		}
		if uint64(chunk) > n-done {
			chunk = int(n - done)
		}
		if !copyIn(mm.PageBytes(page)[off:off+chunk], src+uintptr(done)) {
			return done, false
		}
		p.n += chunk
		done += uint64(chunk)
	}
	return done, true
}

// take copies buffered bytes to app memory at dst.
func (p *pipe) take(dst uintptr, n uint64) (uint64, bool) {
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
		if !copyOut(dst+uintptr(done), mm.PageBytes(page)[off:off+chunk]) {
			return done, false
		}
		p.head = (p.head + chunk) % pipeBufSize
		p.n -= chunk
		done += uint64(chunk)
	}
	return done, true
}

func sysPipe2(t *sched.Thread, f *sched.Frame) uint64 {
	flags := uint32(f.X[1])
	if flags&^uint32(unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_DIRECT) != 0 {
		return errno(unix.EINVAL)
	}
	idx := allocPipe()
	if idx < 0 {
		return errno(unix.ENFILE)
	}
	p := &pipes[idx]
	rfd, rf := allocFD(0)
	if rf == nil {
		p.release()
		return errno(unix.EMFILE)
	}
	wfd, wf := allocFD(0)
	if wf == nil {
		closeFD(rfd) // still kindNone: nothing else to release
		p.release()
		return errno(unix.EMFILE)
	}
	rf.kind, rf.pipe, rf.flags = kindPipeRead, int32(idx), unix.O_RDONLY|flags&unix.O_NONBLOCK
	wf.kind, wf.pipe, wf.flags = kindPipeWrite, int32(idx), unix.O_WRONLY|flags&unix.O_NONBLOCK
	setCloexec(rfd, flags&unix.O_CLOEXEC != 0)
	setCloexec(wfd, flags&unix.O_CLOEXEC != 0)
	fds2 := [2]int32{int32(rfd), int32(wfd)}
	if !copyOut(uintptr(f.X[0]), bytesOf(ptrOf(&fds2), 8)) {
		closeFD(rfd)
		closeFD(wfd)
		return errno(unix.EFAULT)
	}
	return 0
}

// allocPipe returns a new pipe with one reader and one writer, or -1.
func allocPipe() int32 {
	for i := range pipes {
		p := &pipes[i]
		if p.used {
			continue
		}
		*p = pipe{}
		p.used = true
		p.readers, p.writers = 1, 1
		return int32(i)
	}
	return -1
}

func (p *pipe) release() {
	for i := range p.pages {
		if p.pages[i] != 0 {
			mm.Pages.Put(p.pages[i])
			p.pages[i] = 0
		}
	}
	p.used = false
}

// pipeRef counts a new descriptor on an end (dup).
func pipeRef(fl *file, delta int) {
	p := &pipes[fl.pipe]
	if fl.kind == kindPipeRead {
		p.readers += delta
	} else {
		p.writers += delta
	}
	if p.readers == 0 && p.writers == 0 {
		p.release()
		return
	}
	p.gen++
	pipeWakeup(fl.pipe)
}

func pipeRead(t *sched.Thread, fl *file, buf uintptr, n uint64) uint64 {
	p := &pipes[fl.pipe]
	if n == 0 {
		return 0
	}
	if p.n == 0 {
		if p.writers == 0 {
			return 0 // EOF
		}
		if fl.flags&unix.O_NONBLOCK != 0 {
			return errno(unix.EAGAIN)
		}
		sched.Block(t, sched.WaitPipeRead, 0, 0)
		t.WaitAddr = uintptr(fl.pipe)
		t.WaitArg[0], t.WaitArg[1] = buf, uintptr(n)
		return 0
	}
	got, ok := p.take(buf, n)
	if !ok && got == 0 {
		return errno(unix.EFAULT)
	}
	p.gen++
	pipeWakeup(fl.pipe)
	return got
}

func pipeWrite(t *sched.Thread, fl *file, buf uintptr, n uint64) uint64 {
	p := &pipes[fl.pipe]
	if p.readers == 0 {
		postSignal(t, sigPIPE, userInfo(siUSER))
		return errno(unix.EPIPE)
	}
	put, ok := p.put(buf, n)
	if !ok && put == 0 {
		return errno(unix.EFAULT)
	}
	if put > 0 {
		p.gen++
		pipeWakeup(fl.pipe)
	}
	if put == n || !ok {
		return put
	}
	if fl.flags&unix.O_NONBLOCK != 0 {
		if put == 0 {
			return errno(unix.EAGAIN)
		}
		return put
	}
	// Block until readers make room; the reader finishes the write.
	sched.Block(t, sched.WaitPipeWrite, 0, 0)
	t.WaitAddr = uintptr(fl.pipe)
	t.WaitArg[0], t.WaitArg[1], t.WaitArg[2] = buf+uintptr(put), uintptr(n-put), uintptr(put)
	return 0
}

// pipeWakeup completes blocked reads and writes on pipe i that can now
// make progress, then tells epoll.
func pipeWakeup(i int32) {
	p := &pipes[i]
	for progress := true; progress; {
		progress = false
		for k := range sched.Active() {
			w := &sched.Threads[k]
			if w.State != sched.Blocked || w.WaitAddr != uintptr(i) {
				continue
			}
			switch w.Wait {
			case sched.WaitPipeRead:
				if p.n > 0 {
					got, ok := p.take(w.WaitArg[0], uint64(w.WaitArg[1]))
					if !ok && got == 0 {
						sched.Wake(w, errno(unix.EFAULT))
					} else {
						sched.Wake(w, got)
					}
					progress = true
				} else if p.writers == 0 {
					sched.Wake(w, 0)
				}
			case sched.WaitPipeWrite:
				if p.readers == 0 {
					postSignal(w, sigPIPE, userInfo(siUSER))
					sched.Wake(w, errno(unix.EPIPE))
					continue
				}
				if p.free() == 0 {
					continue
				}
				put, ok := p.put(w.WaitArg[0], uint64(w.WaitArg[1]))
				w.WaitArg[0] += uintptr(put)
				w.WaitArg[1] -= uintptr(put)
				w.WaitArg[2] += uintptr(put)
				if w.WaitArg[1] == 0 || !ok {
					sched.Wake(w, uint64(w.WaitArg[2]))
				}
				progress = progress || put > 0
			}
		}
	}
	epollNotify()
}

// readEvents are the EPOLL* bits of a pipe's read end: data, or EOF.
func (p *pipe) readEvents() uint32 {
	var r uint32
	if p.n > 0 {
		r |= unix.EPOLLIN
	}
	if p.writers == 0 {
		r |= unix.EPOLLHUP
	}
	return r
}

// writeEvents are the EPOLL* bits of a pipe's write end: room, or no
// reader left.
func (p *pipe) writeEvents() uint32 {
	var r uint32
	if p.free() > 0 {
		r |= unix.EPOLLOUT
	}
	if p.readers == 0 {
		r |= unix.EPOLLERR
	}
	return r
}
