package vfs

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// MaxFiles bounds the open-file descriptions. Every descriptor holds one
// at most, so there are never more than descriptors (4,096: RLIMIT_NOFILE).
const MaxFiles = 4096

// File is an open-file description (open(2)): what a descriptor refers
// to. dup, dup3 and F_DUPFD make descriptors that share one, so they share
// the offset, the status flags and the object. It lives while a
// descriptor refers to it (refs); the last close releases its object's
// reference (Impl.Release).
type File struct {
	Impl  Impl   // the object and what it does; nil: slot free
	Flags uint32 // O_ACCMODE | O_NONBLOCK | O_APPEND (fcntl F_GETFL)
	Pos   int64  // byte offset, or a directory's read position
	// refs counts the descriptors referring to the description and the
	// calls using it without the kernel lock (kernel/linux's unlockedIO),
	// changed atomically for the latter's sake.
	refs int32
}

// Files is the description table; a description's index never changes
// while it lives, and per-description state of an Impl may be kept in
// a table of its own indexed the same way (Index).
var Files [MaxFiles]File

// Alloc returns a new description for impl with one reference, or -1
// when the table is full. On success the description owns one reference
// to impl's object, which it gives back with Release.
func Alloc(impl Impl, flags uint32) int32 {
	i := free()
	if i >= 0 {
		take(i, impl, flags)
	}
	return i
}

// take makes free slot i a description for impl with one reference.
func take(i int32, impl Impl, flags uint32) {
	Files[i] = File{Impl: impl, Flags: flags, refs: 1}
}

// free returns the index of a free description slot without taking it,
// so that an object kept at that index can be set up first; -1 when
// full.
func free() int32 {
	for i := range Files {
		if atomic.LoadInt32(&Files[i].refs) == 0 {
			return int32(i)
		}
	}
	return -1
}

// Index returns f's slot number.
func (f *File) Index() int32 { return indexOf(f) }

// IncRef counts one more reference to description i, which has one
// (a descriptor's, which the caller's lock keeps).
func IncRef(i int32) { atomic.AddInt32(&Files[i].refs, 1) }

// PutRef drops a reference to description i unless it is the last,
// and reports whether it did; the last goes with DecRef, under the
// kernel lock, since it releases the object.
func PutRef(i int32) bool {
	r := &Files[i].refs
	for {
		n := atomic.LoadInt32(r)
		if n <= 1 {
			return false
		}
		if atomic.CompareAndSwapInt32(r, n, n-1) {
			return true
		}
	}
}

// DecRef drops one descriptor's reference to description i; the last
// one releases the object, and drops the description from every epoll
// interest list (epoll(7): a registration lasts while its description
// does).
func DecRef(i int32) {
	f := &Files[i]
	if atomic.AddInt32(&f.refs, -1) > 0 {
		return
	}
	forgetFile(i)
	f.Impl.Release(f)
	*f = File{}
}

// Readable and Writable say whether the access mode allows it (a
// description opened O_RDONLY cannot be written: EBADF).
func (f *File) Readable() bool { return f.Flags&unix.O_ACCMODE != unix.O_WRONLY }
func (f *File) Writable() bool { return f.Flags&unix.O_ACCMODE != unix.O_RDONLY }

// Nonblocking says whether calls on f fail with EAGAIN instead of
// waiting.
func (f *File) Nonblocking() bool { return f.Flags&unix.O_NONBLOCK != 0 }
