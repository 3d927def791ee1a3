package fs

import "golang.org/x/sys/unix"

// Synthetic files: inodes whose bytes, or whose symlink target, the
// kernel makes when they are read — /proc's (kernel/procfs). The tree
// keeps their names and inodes like any other's, so the walk, getdents,
// stat and open treat them alike; what differs comes through three
// hooks the layer that knows processes sets at boot:
//
//   - SynthRead reads a synthetic file (made afresh on each read, as
//     Linux's seq_file makes /proc's);
//   - SynthLink writes a synthetic symlink's target into LinkBuf (a
//     "magic" link: /proc/self names the caller's own directory);
//   - SynthRefresh brings a synthetic directory's entries up to date
//     just before a lookup in it or a listing of it starts (a /proc
//     directory per process, a link per descriptor), as Linux's
//     proc_root_lookup and proc_pid_readdir look at the tasks then.
//
// Synthetic directories are read-only to the app: nothing can be made,
// removed or renamed in them (Linux's proc gives EPERM, and EACCES for
// an O_CREAT open), and synthetic files cannot be opened for writing.

// Synth tells what a synthetic inode shows: a kind the hooks' owner
// defines (0: an ordinary inode), the process and a number (a
// descriptor) it is about.
type Synth struct {
	Kind uint8
	// Hidden: looked up by name but not listed (a thread's /proc/TID,
	// which Linux finds and does not list).
	Hidden bool
	// Writable: the app may open it for writing (/proc/sysrq-trigger);
	// SynthWrite takes what it writes.
	Writable bool
	PID      int32
	Arg      int32
}

var (
	SynthRead    func(i int32, buf uintptr, count uint64, off int64) uint64
	SynthLink    func(i int32) int
	SynthRefresh func(dir int32)
	// SynthLookup may make the entry named SynthName[:n] of synthetic
	// directory dir when a lookup finds none (a hidden one). The name
	// is in a global, not a slice argument: a slice passed through a
	// function value escapes, and would move the walk's buffer to the
	// heap (ARCHITECTURE.md).
	SynthLookup func(dir int32, n int)
	// SynthJump says whether synthetic link i leads to no path but to
	// an open file (/proc/PID/fd/N of a pipe or socket): the walk then
	// ends at the link itself, and the caller opens or stats what it
	// names (Linux's nd_jump_link).
	SynthJump func(i int32) bool
	// SynthWrite takes a write to a Writable synthetic file.
	SynthWrite func(i int32, buf uintptr, count uint64) uint64
)

// SynthName holds the name SynthLookup is asked for.
var SynthName [NameMax]byte

// LinkBuf holds the target SynthLink made (under the kernel lock, used
// before the next call).
var LinkBuf [PathMax]byte

// IsSynth says whether inode i is synthetic.
func IsSynth(i int32) bool { return Inodes[i].Synth.Kind != 0 }

// MakeSynth makes a synthetic inode of mode named nm in directory dir.
func MakeSynth(dir int32, nm []byte, mode uint32, s Synth) (int32, unix.Errno) {
	i, e := makeNode(dir, nm, mode)
	if e == 0 {
		Inodes[i].Synth = s
	}
	return i, e
}

// NewSynthRoot makes a synthetic instance of type t: its superblock
// and its root directory (with no name; it shows where it is mounted).
func NewSynthRoot(t Type, s Synth) (uint8, int32, unix.Errno) {
	sb, e := NewSuper(t, 0o555)
	if e != 0 {
		return 0, -1, e
	}
	root := Supers[sb].Root
	Inodes[root].Synth = s
	return sb, root, 0
}

// RemoveSynth removes the name dentry-less callers know by directory
// and name (a synthetic entry SynthRefresh finds stale), with
// everything under it.
func RemoveSynth(dir int32, nm []byte) {
	k := lookupName(dir, nm)
	if k < 0 {
		return
	}
	removeTree(dentries[k].inode)
	dropName(k)
}

// removeTree drops every name under directory top (a synthetic tree,
// or an instance being freed: no mount inside). It loops instead of
// recursing: the app may have made a tree deeper than a kernel stack.
func removeTree(top int32) {
	if !Inodes[top].IsDir() {
		return
	}
	for i := top; ; {
		k := Inodes[i].first
		if k < 0 { // i is empty now
			if i == top {
				return
			}
			d := Inodes[i].dentry
			i = dentries[d].dir
			dropName(d)
			continue
		}
		if c := dentries[k].inode; Inodes[c].IsDir() && Inodes[c].first >= 0 {
			i = c // empty it first
			continue
		}
		dropName(k)
	}
}

// SynthEntries calls fn with each entry of synthetic directory dir (its
// inode and name) until fn answers false.
func SynthEntries(dir int32, fn func(i int32, nm []byte) bool) {
	for k := Inodes[dir].first; k >= 0; {
		next := dentries[k].next // fn may remove k
		if !fn(dentries[k].inode, dentries[k].nameIn(k)) {
			return
		}
		k = next
	}
}

// LookupIn returns the inode named nm in directory dir, or -1.
func LookupIn(dir int32, nm []byte) int32 {
	if k := lookupName(dir, nm); k >= 0 {
		return dentries[k].inode
	}
	return -1
}

// refresh updates synthetic directory dir before it is looked in.
func refresh(dir int32) {
	if Inodes[dir].Synth.Kind != 0 && SynthRefresh != nil {
		SynthRefresh(dir)
	}
}

// readOnly answers a change to the entries of directory dir: EPERM for
// a synthetic one (Linux's proc has no mkdir, unlink or rename: vfs_mkdir
// and its kin answer EPERM), else 0.
func readOnly(dir int32) unix.Errno {
	if Inodes[dir].Synth.Kind != 0 {
		return unix.EPERM
	}
	return 0
}
