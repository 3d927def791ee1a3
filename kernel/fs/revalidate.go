package fs

import (
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// Revalidation: a store that others change too (a host share, whose
// directory the host's programs write while the guest runs) is asked
// again what it says of an inode the tree has, when a walk reaches it
// and its last answer is more than a second old: a file whose size or
// modification time changed has its cached pages dropped and the store's
// attributes taken; a file gone from the store loses its name; a
// directory whose modification time changed is read again, its entries
// merged (new names made, names the store no longer has dropped). A
// file open for reading is asked again too when it is read or fstat'ed
// a second after the last answer, and its cached pages go if it changed
// in the store, as NFS revalidates an open file's attributes and drops
// its data cache when its modification time moved (nfs(5), "Data and
// metadata coherence"; Linux's v9fs with cache=none asks at every use
// and caches nothing). What else is in use keeps the view it had until
// it is not (refreshOpen): a mapped file (a private mapping's written
// pages are the process's own), a running program's (its text is
// mapped from the cache), a directory with entries in use.

// A Revalidator is a Store whose files others change.
type Revalidator interface {
	// Revalidate fills st with what the store says of inode i now
	// (as for MakeStored); ENOENT when it is not there any more.
	Revalidate(i int32, st *Stored) unix.Errno
}

// RevalidateNanos is how old an inode's last answer from its store may
// be before a walk asks again. Not scaled with the inode's age as NFS's
// attribute cache is (acregmin to acregmax, nfs(5)): a file unchanged for
// a week and edited on the host now would be stale for a minute. A warm
// go build, which walks to thousands of the share's sources, pays for it:
// 19 s where a cache that never asked took 5 (Linux's v9fs, which asks
// at every use, took 31).
const RevalidateNanos = 1e9

// revalStored holds a Revalidate's answer (under the kernel lock: a
// value passed to an interface method would escape to the heap).
var revalStored Stored

// refilling is the directory being read again: MakeStored merges into
// its entries (an existing name is kept, its stale mark cleared).
var refilling int32

// filled starts the periods of directory dir, just filled from a
// Revalidator, and of its entries: the store's answers are new.
func filled(dir int32) {
	if revalidator(dir) == nil {
		return
	}
	now := clock.Monotonic()
	Inodes[dir].checked = now
	for k := Inodes[dir].first; k >= 0; k = dentries[k].next {
		Inodes[dentries[k].inode].checked = now
	}
}

// Revalidators are the Revalidators by type, registered beside Stores
// (a table, not a type assertion on the Store: an assertion to an
// interface asks the Go runtime for an itab, and the kernel's runtime is
// never started).
var Revalidators [typeCount]Revalidator

// revalidator is the Revalidator of inode i's instance, nil if none.
func revalidator(i int32) Revalidator {
	if Inodes[i].Store == 0 {
		return nil
	}
	return Revalidators[Supers[Inodes[i].Super].Type]
}

// due says whether stored inode n's last answer is old, and if so
// starts a new period.
func due(n *Inode) bool {
	now := clock.Monotonic()
	if n.checked != 0 && now-n.checked < RevalidateNanos {
		return false
	}
	n.checked = now
	return true
}

// inUse says whether the tree must keep inode i as it is: open (a
// mapping holds an open too), running, covered by a mount, or a
// directory with entries.
func inUse(i int32) bool {
	n := &Inodes[i]
	return n.Opens > 0 || n.Running > 0 || n.covered > 0 || i == RootIno || n.IsDir() && n.first >= 0
}

// revalidateEntry asks the store again about the inode entry k of dir
// names, when due, and answers k, or -1 when the store says the name is
// gone and the tree has let it go.
func revalidateEntry(k int32) int32 {
	i := dentries[k].inode
	n := &Inodes[i]
	r := revalidator(i)
	if r == nil || n.IsDir() || !due(n) {
		return k // a directory is asked again when it is filled (Fill)
	}
	st := &revalStored
	switch e := r.Revalidate(i, st); {
	case e == unix.ENOENT && !inUse(i):
		dropName(k)
		return -1
	case e != 0:
	case inUse(i):
		refreshOpen(i, st)
	case st.Mode&unix.S_IFMT != n.Mode&unix.S_IFMT:
		// Another kind of file by that name now: its directory
		// changed too, and is read again at the next walk.
		Inodes[dentries[k].dir].checked = 0
	default:
		takeStored(i, st)
	}
	return k
}

// RevalidateOpen asks the store again about open file i when its last
// answer is old (a read or fstat of it: Inode.Read, Inode.Stat), and
// takes what it says if the file changed there (refreshOpen).
func RevalidateOpen(i int32) {
	n := &Inodes[i]
	r := revalidator(i)
	if r == nil || n.Mode&unix.S_IFMT != unix.S_IFREG || !due(n) {
		return
	}
	st := &revalStored
	if r.Revalidate(i, st) == 0 {
		refreshOpen(i, st)
	}
}

// refreshOpen makes in-use regular file i what the store says of it now
// (st), dropping its cached pages if it changed, unless something holds
// its pages as they are: a mapping (a private one's copies are the
// process's own, which Linux keeps: the file keeps its view until it is
// unmapped), a running program, a mount over it. A file the
// store replaced under its name (another number) becomes the new one
// too: a store without a handle per open file (9p here: one fid a
// mount, walked to by the name) reads its uncached pages from the new
// file, and dropping the old file's cached ones keeps its bytes from
// being a mix of the two.
func refreshOpen(i int32, st *Stored) {
	n := &Inodes[i]
	if n.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&unix.S_IFMT != unix.S_IFREG ||
		n.Running > 0 || n.mappedWrite || n.covered > 0 {
		return
	}
	if storedChanged(n, st) && mm.FileMapped(i) {
		return
	}
	takeStored(i, st)
}

// storedChanged says whether what the store says of inode n now (st)
// may be other bytes than the tree has: another size, modification
// time or number.
func storedChanged(n *Inode, st *Stored) bool {
	return n.Size != st.Size || n.Mtime != st.Mtime || storedIno(st) != n.Ino
}

// takeStored makes stored inode i, unused or held only as refreshOpen
// allows, what the store says of it now (of the same kind: the caller
// checked): its cached pages go if its bytes may have changed, a
// symlink takes its new target (one too long for a link page keeps the
// old).
func takeStored(i int32, st *Stored) {
	n := &Inodes[i]
	if !storedChanged(n, st) {
		n.storeLinks, n.UID, n.GID, n.Mode, n.Atime, n.Ctime = st.Links, st.UID, st.GID, st.Mode, st.Atime, st.Ctime
		return
	}
	switch n.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		dropPast(n, 0) // clean copies of the store's bytes (a share is written through)
	case unix.S_IFLNK:
		if st.Link != nil {
			n.SetLink(st.Link) // ENAMETOOLONG, ENOSPC: the old target stays
		}
	}
	hashed := !n.IsDir()
	if hashed {
		unhashStored(i) // the number may be another file's now
	}
	setStored(i, st)
	if hashed {
		hashStored(i)
	}
}

// storedIno is the tree's number (Inode.Ino) for what st says.
func storedIno(st *Stored) uint64 {
	if st.Ino != 0 {
		return st.Ino
	}
	return uint64(st.Num)
}

// revalidateDir reads filled directory dir of a Revalidator again when
// due and its modification time changed in the store: new names are
// made, names the store no longer has go unless in use. EIO (or what
// the store answers) leaves the entries as they were.
func revalidateDir(dir int32) unix.Errno {
	n := &Inodes[dir]
	r := revalidator(dir)
	if r == nil || !due(n) {
		return 0
	}
	st := &revalStored
	if e := r.Revalidate(dir, st); e != 0 {
		return 0 // its parent's walk finds out if it is gone
	}
	if st.Mtime == n.Mtime && st.Ctime == n.Ctime {
		return 0
	}
	n.Mtime, n.Ctime, n.storeLinks = st.Mtime, st.Ctime, st.Links
	for k := n.first; k >= 0; k = dentries[k].next {
		dentries[k].stale = true
	}
	refilling, fillingDir = dir, dir
	e := StoreOf(dir).Fill(dir)
	refilling, fillingDir = 0, 0
	for k := n.first; k >= 0; {
		next := dentries[k].next
		if dentries[k].stale {
			dentries[k].stale = false
			if e == 0 && !inUse(dentries[k].inode) {
				dropName(k)
			}
		}
		k = next
	}
	return e
}

// KeepEntry says whether the store may skip entry nm of directory dir
// while dir is read again: the tree has the name already (its stale mark
// is cleared), and its inode is asked about on its own when a walk next
// reaches it. A read of a directory the guest itself just changed (its
// mtime differs from the host's after each create) then costs the
// listing, not a question a name.
func KeepEntry(dir int32, nm []byte) bool {
	if dir != refilling {
		return false
	}
	k := lookupName(dir, nm)
	if k < 0 {
		return false
	}
	dentries[k].stale = false
	return true
}

// mergeStored is MakeStored's way while dir is read again: a name the
// tree has already is kept (and its unused inode brought up to date),
// -1 when nm is new.
func mergeStored(dir int32, nm []byte, st *Stored) int32 {
	k := lookupName(dir, nm)
	if k < 0 {
		return -1
	}
	dentries[k].stale = false
	i := dentries[k].inode
	if !inUse(i) {
		if Inodes[i].Mode&unix.S_IFMT != st.Mode&unix.S_IFMT {
			dropName(k) // another kind of file now: made anew
			return -1
		}
		takeStored(i, st)
	}
	return i
}
