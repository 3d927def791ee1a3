package usermem

import "github.com/gometal/gometal/kernel/mm"

// Lent kernel bytes: splice(2), sendfile(2) and copy_file_range(2) move
// bytes between two open files inside the kernel, through the objects'
// own Read and Write, which take app addresses (vfs.Impl). Lend gives a
// kernel buffer (a pipe's page, a file's page) an address those copies
// reach, as Linux's ITER_KVEC iterators let ->read_iter and ->write_iter
// fill kernel memory: CopyIn, CopyOut and Span see the address and copy
// the lent bytes instead of walking the app's page table.
//
// The address, LentBase, is past every address an app can name
// (mm.UserTop), so an app that passes it in a system call gets EFAULT
// as for any address it does not own, lent or not: the kernel checks
// lent addresses only while a lend lasts, and its only user addresses
// then are the ones its caller passes, which it reads before lending
// and writes after. One lend at a time: the kernel lock holds every
// caller (the lock-free paths read app memory through PeekIn, which
// never sees a lend).

// LentBase is the address of the first lent byte.
const LentBase uintptr = 1 << 62

var lent []byte

// Lend makes b reachable at LentBase until Return. b is kernel memory
// (a page, a table's slot), never the caller's stack: it is kept past
// the call.
func Lend(b []byte) uintptr {
	lent = b
	return LentBase
}

// Return ends the lend.
func Return() { lent = nil }

// lentSpan returns the lent bytes [addr, addr+n), false when they are
// not all lent (or addr is an app's).
func lentSpan(addr, n uintptr) ([]byte, bool) {
	if addr < LentBase || lent == nil {
		return nil, false
	}
	off := addr - LentBase
	if off > uintptr(len(lent)) || n > uintptr(len(lent))-off {
		return nil, false
	}
	return lent[off : off+n], true
}

// isLent reports whether addr is in the lent range's reach, where the
// app's page table must not be walked.
func isLent(addr uintptr) bool { return addr >= mm.UserTop }
