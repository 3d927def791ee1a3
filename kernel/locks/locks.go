// Package locks owns advisory file locks (Linux's fs/locks.c): POSIX
// record locks (fcntl F_SETLK, owned by a descriptor table, released by
// any close of the file by that table), open-file-description locks
// (F_OFD_SETLK, owned by one description, released with it), which
// conflict with POSIX ones, and flock(2) locks (whole file, owned by a
// description, a class of their own). A lock covers a byte range of an
// inode; it conflicts with another owner's overlapping lock when either
// is a write lock. The Linux layer turns fcntl's and flock's arguments
// into calls here and waits (F_SETLKW) on Waiters, which every release
// wakes. Everything runs under the kernel lock. Builds on the host: go
// test ./kernel/locks.
package locks

import (
	"math"

	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// MaxLocks bounds the locks held at once machine-wide; past it a new
// lock is ENOLCK, as Linux answers when it cannot allocate one.
const MaxLocks = 1024

// Class: which locks can conflict (POSIX and OFD locks are one class,
// flock locks another: locks.c keeps them on separate lists).
type Class uint8

const (
	Record Class = iota // fcntl: POSIX and OFD
	Flock               // flock(2)
)

// EOF is the end of a range that runs to the end of the file (l_len 0).
const EOF = math.MaxInt64

// Lock is one held lock: a range [Start, End] of an inode's bytes.
type Lock struct {
	Used       bool
	Class      Class
	Type       int16 // unix.F_RDLCK or unix.F_WRLCK
	Inode      int32
	Start, End int64
	Owner      uint64
	// Pid is what F_GETLK reports: the process that set it, -1 for an
	// OFD lock (which no one process owns).
	Pid int32
}

var table [MaxLocks]Lock

// overlaps says whether l covers any of [start, end].
func (l *Lock) overlaps(start, end int64) bool { return l.Start <= end && start <= l.End }

// Conflict is the first lock another owner holds on inode in class c that
// a lock of type typ over [start, end] by owner would conflict with, or
// nil.
func Conflict(inode int32, c Class, owner uint64, typ int16, start, end int64) *Lock {
	for i := range table {
		l := &table[i]
		if l.Used && l.Inode == inode && l.Class == c && l.Owner != owner && l.overlaps(start, end) &&
			(typ == unix.F_WRLCK || l.Type == unix.F_WRLCK) {
			return l
		}
	}
	return nil
}

// Set gives owner a lock of type typ (F_RDLCK, F_WRLCK, or F_UNLCK to
// remove) over [start, end] of inode, as posix_lock_inode does: what the
// owner held in that range is replaced (split where the range cuts it),
// and same-type locks that touch it are merged. EAGAIN on a conflict
// (nothing changed), ENOLCK when the table cannot hold the result.
func Set(inode int32, c Class, owner uint64, pid int32, typ int16, start, end int64) unix.Errno {
	if typ != unix.F_UNLCK && Conflict(inode, c, owner, typ, start, end) != nil {
		return unix.EAGAIN
	}
	// Room first, so that a failure changes nothing: a split needs one
	// more slot, the new lock one.
	need := 0
	for i := range table {
		if l := &table[i]; l.Used && l.Inode == inode && l.Class == c && l.Owner == owner && l.Start < start && l.End > end {
			need++ // cut in two
		}
	}
	if typ != unix.F_UNLCK {
		need++
	}
	if free() < need {
		return unix.ENOLCK
	}
	for i := range table {
		l := &table[i]
		if !l.Used || l.Inode != inode || l.Class != c || l.Owner != owner || !l.overlaps(start, end) {
			continue
		}
		switch {
		case l.Start >= start && l.End <= end:
			l.Used = false
		case l.Start < start && l.End > end:
			tail := *l
			tail.Start = end + 1
			put(tail)
			l.End = start - 1
		case l.Start < start:
			l.End = start - 1
		default:
			l.Start = end + 1
		}
	}
	if typ == unix.F_UNLCK {
		return 0
	}
	// Merge with the owner's same-type locks that touch the range.
	for merged := true; merged; {
		merged = false
		for i := range table {
			l := &table[i]
			if l.Used && l.Inode == inode && l.Class == c && l.Owner == owner && l.Type == typ &&
				l.Start <= addOne(end) && start <= addOne(l.End) {
				start, end = min(start, l.Start), max(end, l.End)
				l.Used = false
				merged = true
			}
		}
	}
	put(Lock{Used: true, Class: c, Type: typ, Inode: inode, Start: start, End: end, Owner: owner, Pid: pid})
	return 0
}

// addOne is v+1 without passing EOF.
func addOne(v int64) int64 {
	if v == EOF {
		return EOF
	}
	return v + 1
}

func free() int {
	n := 0
	for i := range table {
		if !table[i].Used {
			n++
		}
	}
	return n
}

func put(l Lock) {
	for i := range table {
		if !table[i].Used {
			table[i] = l
			return
		}
	}
}

// Release removes every lock owner holds on inode (any inode: -1) and
// says whether it removed any (then waiters should be woken).
func Release(inode int32, owner uint64) bool {
	any := false
	for i := range table {
		if l := &table[i]; l.Used && l.Owner == owner && (inode < 0 || l.Inode == inode) {
			l.Used = false
			any = true
		}
	}
	return any
}

// Reset empties the table (host tests).
func Reset() { table = [MaxLocks]Lock{}; waits = [maxWaits]wait{} }

// Owners, as Linux has them: a POSIX lock is its descriptor table's
// (fl_owner = current->files, so threads and CLONE_FILES processes share
// them, and a close of any descriptor of the file by the table drops
// them); an OFD or flock lock is its open-file description's.
const (
	ownerTable = 1 << 40
	ownerDesc  = 2 << 40
)

// TableOwner and DescOwner are the owners of descriptor table files's
// POSIX locks and of description fi's OFD and flock locks.
func TableOwner(files int32) uint64 { return ownerTable | uint64(files) }
func DescOwner(fi int32) uint64     { return ownerDesc | uint64(fi) }

// IsTable says whether owner is a descriptor table (a POSIX owner, the
// only kind deadlock detection follows).
func IsTable(owner uint64) bool { return owner&ownerTable != 0 }

// Waiters is where F_SETLKW and a blocking flock wait; every release
// wakes them all to try again.
var Waiters vfs.Waitable

// Wake wakes every waiter.
func Wake() { vfs.Notify(&Waiters, unix.EPOLLIN) }

// ReleaseDesc is the last close of description fi: its OFD and flock
// locks go (locks_remove_file).
func ReleaseDesc(fi int32) {
	if Release(-1, DescOwner(fi)) {
		Wake()
	}
}
