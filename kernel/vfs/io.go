package vfs

import (
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Read is read(2) and pread(2) on description f for thread t: the
// object's Read, and a wait (Wait) when it would block.
func Read(t *sched.Thread, f *File, buf uintptr, n uint64, off int64) uint64 {
	// A read that slept for the disk goes on from what it had copied
	// (t.Progress), its file position already moved past it.
	done := uint64(0)
	if t.Retried {
		done = t.Progress
	}
	t.Progress = 0
	for {
		gen := genOf(f)
		at := off
		if off >= 0 {
			at = off + int64(done)
		}
		MayWaitDisk = true
		r := f.Impl.Read(f, buf+uintptr(done), n-done, at)
		MayWaitDisk = false
		if r == DiskWaitErr {
			// Asleep until the read in flight completes; no signal but
			// the process's end ends it (sched.WaitDisk), so what was
			// copied is returned with the rest.
			t.Progress = done + DiskMoved
			sched.BlockOn(t, DiskWait, sched.WaitDisk, unix.EPOLLIN, 0, 0)
			return 0
		}
		if done > 0 {
			if IsErr(r) {
				return done
			}
			return done + r
		}
		if r != errAgain {
			return r
		}
		if r, blocked := WaitGen(t, f, unix.EPOLLIN, gen); blocked || r != 0 {
			return r
		}
	}
}

// A file whose Read may start a read from the disk and sleep until it
// completes (a backed file's page cache, kernel/fs) does so only under
// Read, which sets MayWaitDisk for the call: it answers DiskWaitErr with
// DiskWait set to the queue the request completes on (notified with
// EPOLLIN) and DiskMoved to
// the bytes it copied before (its file position moved past them), and
// Read sleeps there and runs again from where it stopped. Every other
// caller of Impl.Read (readv after a first segment, splice, sendfile)
// gets the bytes as before, the disk polled under the kernel lock.
var (
	MayWaitDisk bool
	DiskWait    *sched.Queue
	DiskMoved   uint64
)

// DiskWaitErr is Impl.Read's "sleep on DiskWait": an errno no read
// returns, so that it is an error if it ever reached the app.
const DiskWaitErr = ^uint64(unix.EINPROGRESS - 1)

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
