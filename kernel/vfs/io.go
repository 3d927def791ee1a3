package vfs

import (
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Read is read(2) and pread(2) on description f for thread t: the
// object's Read, and a wait (Wait) when it would block.
func Read(t *sched.Thread, f *File, buf uintptr, n uint64, off int64) uint64 {
	for {
		gen := genOf(f)
		r := f.Impl.Read(f, buf, n, off)
		if r != errAgain {
			return r
		}
		if r, blocked := WaitGen(t, f, unix.EPOLLIN, gen); blocked || r != 0 {
			return r
		}
	}
}

// genOf is f's object's notification count (sched.Queue.Gen), read
// before a try of it, for WaitGen.
func genOf(f *File) uint32 {
	if w := f.Impl.Waitable(); w != nil {
		return w.Q.Gen()
	}
	return 0
}

// Write is write(2) and pwrite(2) on description f for thread t. A
// blocking write takes the whole buffer before it returns (pipe(7)): when
// the object takes part of it and then answers EAGAIN, the thread waits
// with the part it moved in t.Progress, and the call's next run (after
// Notify) goes on from there. A signal then ends it with that count
// instead of EINTR (the kernel's signal code reads t.Progress), as
// Linux's pipe_write returns what it wrote.
func Write(t *sched.Thread, f *File, buf uintptr, n uint64, off int64) uint64 {
	done := uint64(0)
	if t.Retried {
		done = t.Progress
	}
	t.Progress = 0
	for {
		gen := genOf(f)
		r := f.Impl.Write(f, buf+uintptr(done), n-done, off)
		if r == errAgain {
			w, blocked := WaitGen(t, f, unix.EPOLLOUT, gen)
			if blocked {
				t.Progress = done
				return 0
			}
			if w == 0 {
				continue // notified meanwhile: try again
			}
			if done > 0 {
				return done
			}
			return errAgain
		}
		if IsErr(r) {
			if done > 0 {
				return done
			}
			return r
		}
		done += r
		if done >= n || r == 0 || off >= 0 {
			return done
		}
	}
}
