package vfs

import "golang.org/x/sys/unix"

// Impl is what an open file does: the one interface every kind of open
// file implements (gVisor's vfs.FileDescriptionImpl, nanos's fdesc, xv6's
// devsw), so that the syscall layer never asks which kind it holds.
//
// An Impl is a pointer to a slot in a fixed table (a pipe, an eventfd,
// the console), never a value: interface values of pointer type do not
// allocate. Arguments are values and app addresses, never pointers to the
// caller's stack: a pointer passed through an interface method is assumed
// to escape, which would move the caller's buffer to the heap.
//
// Results are X0 values (a count or -errno; see Err). An operation that
// cannot proceed now returns EAGAIN whatever the description's flags: the
// caller (Read, Write, Wait) decides whether to block.
type Impl interface {
	// Read copies up to n bytes to the app at buf, from offset off, or
	// from f.Pos (advancing it) when off < 0. An offset reaches only
	// objects whose Seek does not answer ESPIPE: pread and pwrite check
	// that first (ESPIPE for a pipe, a socket, the console).
	Read(f *File, buf uintptr, n uint64, off int64) uint64
	// Write copies up to n bytes from the app at buf, at offset off or
	// f.Pos (advancing it; at the end with O_APPEND) when off < 0. It
	// may take fewer than n: the caller calls again for the rest, and
	// waits if the next call answers EAGAIN.
	Write(f *File, buf uintptr, n uint64, off int64) uint64
	// Readiness returns the EPOLL* events that would not block now.
	Readiness(f *File) uint32
	// Waitable is where callers wait for this object and epoll watches
	// it; nil: never blocks, and cannot be watched (epoll_ctl: EPERM,
	// like a regular file on Linux).
	Waitable() *Waitable
	// Stat describes the object (fstat).
	Stat(f *File) unix.Stat_t
	// Seek moves f.Pos (lseek); ESPIPE for objects without a position.
	Seek(f *File, off int64, whence int) uint64
	// Ioctl answers a device request; ENOTTY when there is none.
	Ioctl(f *File, req uint64, arg uintptr) uint64
	// Release drops the reference the last closed description held.
	Release(f *File)
	// Kind says what the object is, for statistics and messages.
	Kind() Kind
}

// Kind names the kinds of open file.
type Kind uint8

const (
	KindAnon Kind = iota
	KindConsole
	KindFile   // regular file
	KindDir    // directory
	KindDevice // /dev/null and friends
	KindPipe
	KindSocket
	KindEventfd
	KindTimerfd
	KindEpoll
	KindPidfd
	NumKinds
)

var kindNames = [NumKinds]string{"anon", "console", "file", "dir", "device", "pipe", "socket", "eventfd", "timerfd", "epoll", "pidfd"}

// String names k.
func (k Kind) String() string { return kindNames[k] }

// Base gives an Impl the answers Linux gives for operations a kind of file
// does not have; an Impl embeds it and overrides what it does.
type Base struct{}

func (Base) Read(f *File, buf uintptr, n uint64, off int64) uint64  { return Err(unix.EINVAL) }
func (Base) Write(f *File, buf uintptr, n uint64, off int64) uint64 { return Err(unix.EINVAL) }
func (Base) Readiness(f *File) uint32                               { return 0 }
func (Base) Waitable() *Waitable                                    { return nil }
func (Base) Seek(f *File, off int64, whence int) uint64             { return Err(unix.ESPIPE) }
func (Base) Ioctl(f *File, req uint64, arg uintptr) uint64          { return Err(unix.ENOTTY) }
func (Base) Release(f *File)                                        {}
func (Base) Kind() Kind                                             { return KindAnon }

// Stat describes an anonymous inode (eventfd, epoll, timerfd on Linux).
func (Base) Stat(f *File) unix.Stat_t {
	return unix.Stat_t{Mode: 0o600, Nlink: 1, Blksize: 4096}
}
