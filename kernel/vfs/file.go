package vfs

import "golang.org/x/sys/unix"

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
	refs  int32
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
		if Files[i].refs == 0 {
			return int32(i)
		}
	}
	return -1
}

// Index returns f's slot number.
func (f *File) Index() int32 { return indexOf(f) }

// IncRef counts one more descriptor on description i.
func IncRef(i int32) { Files[i].refs++ }

// DecRef drops one descriptor's reference to description i; the last
// one releases the object, and drops the description from every epoll
// interest list (epoll(7): a registration lasts while its description
// does).
func DecRef(i int32) {
	f := &Files[i]
	if f.refs--; f.refs > 0 {
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
