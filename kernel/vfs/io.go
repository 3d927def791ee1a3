package vfs

import (
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Read is read(2) and pread(2) on description f for thread t: the
// object's Read, and a wait (Wait) when it would block.
func Read(t *sched.Thread, f *File, buf uintptr, n uint64, off int64) uint64 {
	r := f.Impl.Read(f, buf, n, off)
	if r == errAgain {
		return Wait(t, f, unix.EPOLLIN)
	}
	return r
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
		r := f.Impl.Write(f, buf+uintptr(done), n-done, off)
		if r == errAgain {
			if w := Wait(t, f, unix.EPOLLOUT); w == 0 {
				t.Progress = done
				return 0
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
