package kernel

import (
	"encoding/binary"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/drivers/virtio"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/ninep"

	"golang.org/x/sys/unix"
)

// A host share mounted in the tree: 9p as kernel/fs's second backed
// file system (fs.Store; writing it is sharewrite_arm64.go). Each message is sent and
// its answer polled under the kernel lock, as the disks' requests are
// (docs/ARCHITECTURE.md, "Storage"). The tree is a cache of the host's
// directory: a directory is read (Treaddir, then Twalk, Tgetattr and
// Treadlink for each entry) on its first lookup or listing, a file's
// pages on their first use, straight into the page cache (Tread's data
// in a descriptor of its own). Nothing is held per inode on the host: a
// file is walked to by its path from the share's root when it is read,
// and the last file read stays open (one fid), so reading a file
// through costs one Tread for 32 pages. What the host changes after the guest
// read it is not seen (Linux's 9p with cache=loose behaves alike).

// sharePathMax bounds the path from a share's root to a file it walks
// to (Linux's v9fs walks from the parent's fid, with no bound).
const sharePathMax = 4 * fs.PathMax

// ninepMagic is V9FS_MAGIC, statfs's f_type.
const ninepMagic = 0x01021997

// shareRPCTag is the tag of every message after the greeting: one is
// in flight at a time.
const shareRPCTag = 1

// p9OpenRead is Tlopen's flags for reading (9P2000.L's are Linux's
// O_* numbers: O_RDONLY).
const p9OpenRead = 0

// shareMount is what a mounted share keeps.
type shareMount struct {
	super uint8
	// The last file read, kept open: its inode, inode number and fid.
	openIno int32
	openNum uint64
	openFid uint32
	open    bool
	// The last file written (or created), open for writing: its inode
	// number and fid (sharewrite_arm64.go).
	wNum  uint64
	wFid  uint32
	wOpen bool
}

var (
	shareMounts [maxShares]shareMount
	// shareOfSuper is 1 + the share of each fs instance, 0 for none.
	shareOfSuper [fs.MaxSupers]int8
	shareStore   ninepStore
	// sharePath is a path being walked (longer than PATH_MAX may be: a
	// program makes a tree deeper than that a name at a time, and
	// removes it so); shareDir an Rreaddir's entries, copied out of the
	// answer page the next messages reuse.
	sharePath [sharePathMax]byte
	shareDir  [mm.PageSize]byte
	shareAttr ninep.Attr
)

// ShareInstance is mount(2)'s 9p: the instance showing the share tagged
// tag (one a share), ENOENT when no started share has that tag (as
// Linux's "no channels available for device"), EROFS when asked to
// write a share the host serves read-only (-v HOST:GUEST:ro). The
// instance takes changes unless the share is read-only; a read-only
// mount of a writable share is read-only by its mount flag.
func ShareInstance(tag []byte, readOnly bool) (uint8, unix.Errno) {
	k := -1
	for i := range shares {
		s := &shares[i]
		if s.started && string(s.dev.Tag[:s.dev.TagLen]) == string(tag) {
			k = i
			break
		}
	}
	if k < 0 {
		return 0, unix.ENOENT
	}
	s := &shares[k]
	_, shareRO, _ := sharePlace(tag)
	if !readOnly && shareRO {
		if Log(3, "9p: ") {
			PutBytes(tag)
			Puts(": the host serves this share read-only (-v HOST:GUEST:ro): mount it read-only (-o ro)")
			InfoEnd()
		}
		return 0, unix.EROFS
	}
	if m := &shareMounts[k]; m.super != 0 {
		return m.super, 0
	}
	var st fs.Stored
	if e := s.getattr(s.conn.Root, &st); e != 0 {
		return 0, e
	}
	sb, e := fs.NewStoredSuper(fs.Type9p, 0, &st)
	if e != 0 {
		return 0, e
	}
	fs.Stores[fs.Type9p] = &shareStore
	fs.Revalidators[fs.Type9p] = &shareStore
	fs.Writers[fs.Type9p] = &shareStore
	fs.Supers[sb].ReadOnly = shareRO
	shareMounts[k] = shareMount{super: sb}
	shareOfSuper[sb] = int8(k + 1)
	return sb, 0
}

// SharePlace is the k-th share's tag and the guest path the command line
// gave it (gometal.9p=TAG:GUEST[:ro]); ok is false past the last share
// started.
func SharePlace(k int) (tag, guest []byte, ro, ok bool) {
	if k >= maxShares || !shares[k].started {
		return nil, nil, false, false
	}
	s := &shares[k]
	tag = s.dev.Tag[:s.dev.TagLen]
	guest, ro, _ = sharePlace(tag)
	return tag, guest, ro, true
}

// ninepStore is the 9p type's fs.Store.
type ninepStore struct{}

func shareOf(i int32) (*share, *shareMount) {
	k := shareOfSuper[fs.Inodes[i].Super] - 1
	return &shares[k], &shareMounts[k]
}

// Fill makes directory dir's entries from the host's directory.
func (*ninepStore) Fill(dir int32) unix.Errno {
	s, _ := shareOf(dir)
	dfid, e := s.walkTo(dir)
	if e != 0 {
		return e
	}
	// Tlopen makes a fid I/O-only (no walks from it): one for the
	// listing, the other to walk to each entry.
	lfid, e := s.openTo(dir, p9OpenRead)
	if e == 0 {
		e = s.fillFrom(dir, dfid, lfid)
		s.clunk(lfid)
	}
	s.clunk(dfid)
	return e
}

func (s *share) fillFrom(dir int32, dfid, lfid uint32) unix.Errno {
	req := pageBytes(s.req)
	off := uint64(0)
	for {
		d, e := s.rpc(ninep.EncReaddir(req, shareRPCTag, lfid, off, mm.PageSize-ninep.ReadHeaderLen), ninep.Treaddir)
		if e != 0 {
			return e
		}
		data := ninep.DecData(&d)
		if d.Bad {
			return unix.EIO
		}
		if len(data) == 0 {
			return 0
		}
		// The entries' names must outlive the messages sent for each.
		ents := ninep.Dec{B: shareDir[:copy(shareDir[:], data)]}
		var de ninep.Dirent
		for ninep.NextDirent(&ents, &de) {
			off = de.Offset
			if string(de.Name) == "." || string(de.Name) == ".." {
				continue
			}
			if e := s.fillEntry(dir, dfid, de.Name); e != 0 {
				return e
			}
		}
		if ents.Bad {
			return unix.EIO
		}
	}
}

// fillEntry makes entry name of dir from what the host says of it.
func (s *share) fillEntry(dir int32, dfid uint32, name []byte) unix.Errno {
	if fs.KeepEntry(dir, name) {
		return 0 // read again: a name the tree has is asked about when walked to
	}
	var st fs.Stored
	if e := s.statChild(dfid, name, &st); e != 0 {
		if e == unix.ENOENT {
			return 0 // gone since the listing
		}
		return e
	}
	_, e := fs.MakeStored(dir, name, &st)
	return e
}

// Revalidate is fs.Revalidator's: what the host says of inode i now,
// walked to from the root by its path (Twalk, Tgetattr, Tclunk), as
// Linux's v9fs asks at every lookup with cache=none. The host's
// programs change the shared directory while the guest runs.
func (*ninepStore) Revalidate(i int32, st *fs.Stored) unix.Errno {
	s, _ := shareOf(i)
	fid, e := s.walkTo(i)
	if e != 0 {
		return e
	}
	e = s.getattr(fid, st)
	s.clunk(fid)
	return e
}

// shareRunPages is the most whole pages one Tread carries: what msize
// leaves after Rread's header (three of 16 KiB's four pages).
const shareRunPages = (shareMsize - ninep.ReadHeaderLen) / mm.PageSize

// StartPages: a share's messages are polled (fs.Store).
func (*ninepStore) StartPages(int32, int64, *[fs.StoreRun]uintptr, int) (int32, int, unix.Errno) {
	return -1, 0, 0
}

// ReadPages reads inode i's pages from off: up to shareRunPages in one
// Tread, its data landing in the pages (a descriptor each); a short
// answer that is not the file's end leaves the pages it did not cover
// to a later read, and one that covered no whole page is finished a
// Tread at a time.
func (*ninepStore) ReadPages(i int32, off int64, pas *[fs.StoreRun]uintptr, n int) (int, unix.Errno) {
	s, m := shareOf(i)
	if e := openShareFile(s, m, i); e != 0 {
		return 0, e
	}
	if k := min(n, shareRunPages); k > 1 {
		got, e := s.readRun(m.openFid, uint64(off), pas, k)
		if e != 0 {
			return 0, e
		}
		if got == uint32(k)*mm.PageSize || off+int64(got) >= fs.Inodes[i].Size {
			// Whole, or the file's end: the rest of the run is zeros
			// (the pages come unzeroed: fs.Store).
			for j := int(got / mm.PageSize); j < k; j++ {
				clear(pageBytes(pas[j])[max(int(got)-j*mm.PageSize, 0):])
			}
			return k, 0
		}
		if full := int(got / mm.PageSize); full > 0 {
			return full, 0
		}
	}
	pa := pas[0]
	done := uint32(0)
	for done < mm.PageSize {
		got, e := s.read(m.openFid, uint64(off)+uint64(done), pa+uintptr(done), mm.PageSize-done)
		if e != 0 {
			return 0, e
		}
		if got == 0 {
			break // the end: the rest of the page is zeros
		}
		done += got
	}
	clear(pageBytes(pa)[done:])
	return 1, 0
}

// openShareFile makes m's open file inode i's: the last file read stays
// open, so reading a file through walks to it once.
func openShareFile(s *share, m *shareMount, i int32) unix.Errno {
	if m.open && m.openIno == i && m.openNum == fs.Inodes[i].Ino {
		return 0
	}
	if m.open {
		s.clunk(m.openFid)
		m.open = false
	}
	fid, e := s.openTo(i, p9OpenRead)
	if e != 0 {
		return e
	}
	m.open, m.openIno, m.openNum, m.openFid = true, i, fs.Inodes[i].Ino, fid
	return 0
}

// Statfs asks the host (Tstatfs of the root).
func (*ninepStore) Statfs(sb uint8, st *unix.Statfs_t) {
	s := &shares[shareOfSuper[sb]-1]
	st.Type = ninepMagic
	d, e := s.rpc(ninep.EncFid(pageBytes(s.req), ninep.Tstatfs, shareRPCTag, s.conn.Root), ninep.Tstatfs)
	if e != 0 {
		return
	}
	var r ninep.Statfs
	if ninep.DecStatfs(&d, &r); d.Bad {
		return
	}
	st.Bsize, st.Frsize = int64(r.Bsize), int64(r.Bsize)
	st.Blocks, st.Bfree, st.Bavail = r.Blocks, r.Bfree, r.Bavail
	st.Files, st.Ffree = r.Files, r.Free
	st.Namelen = int64(r.Namelen)
}

// Release lets the share go: its open files are clunked.
func (*ninepStore) Release(sb uint8) {
	k := shareOfSuper[sb] - 1
	if k < 0 {
		return
	}
	dropShareFids(&shares[k], &shareMounts[k])
	shareMounts[k] = shareMount{}
	shareOfSuper[sb] = 0
}

// rpc sends the n-byte T-message of type typ in the request page and
// returns its answer.
func (s *share) rpc(n int, typ uint8) (ninep.Dec, unix.Errno) {
	d, e := s.call(n, typ, shareRPCTag)
	return d, unix.Errno(e)
}

// walk makes a new fid for path (relative to the root, "" the root
// itself), at most ninep.MaxWalk names a message.
func (s *share) walk(path []byte) (uint32, unix.Errno) {
	fid, ok := s.conn.NewFid()
	if !ok {
		return 0, unix.ENFILE
	}
	from := s.conn.Root
	var starts, ends [ninep.MaxWalk]int
	i, made := 0, false
	for {
		n := 0
		for n < ninep.MaxWalk && i < len(path) {
			for i < len(path) && path[i] == '/' {
				i++
			}
			j := i
			for j < len(path) && path[j] != '/' {
				j++
			}
			if j > i {
				starts[n], ends[n] = i, j
				n++
			}
			i = j
		}
		d, e := s.rpc(ninep.EncWalk(pageBytes(s.req), shareRPCTag, from, fid, path, &starts, &ends, n), ninep.Twalk)
		got, _ := ninep.DecWalk(&d)
		if e == 0 && (d.Bad || got != n) {
			e = unix.ENOENT // the walk stopped at a name not there
		}
		if e != 0 {
			if made {
				s.clunk(fid)
			} else {
				s.conn.FreeFid(fid)
			}
			return 0, e
		}
		made, from = true, fid
		if i >= len(path) {
			return fid, 0
		}
	}
}

// walkTo makes a fid for stored inode i, walked from the root by its
// path.
func (s *share) walkTo(i int32) (uint32, unix.Errno) {
	n, ok := fs.StoredPath(i, sharePath[:])
	if !ok {
		return 0, unix.ENAMETOOLONG
	}
	return s.walk(sharePath[:n])
}

// statChild fills st from what the host says of dfid's entry name.
func (s *share) statChild(dfid uint32, name []byte, st *fs.Stored) unix.Errno {
	fid, ok := s.conn.NewFid()
	if !ok {
		return unix.ENFILE
	}
	d, e := s.rpc(ninep.EncWalk1(pageBytes(s.req), shareRPCTag, dfid, fid, name), ninep.Twalk)
	if n, _ := ninep.DecWalk(&d); e != 0 || n != 1 {
		s.conn.FreeFid(fid)
		if e == 0 {
			e = unix.ENOENT
		}
		return e
	}
	e = s.getattr(fid, st)
	s.clunk(fid)
	return e
}

func (s *share) clunk(fid uint32) {
	s.rpc(ninep.EncFid(pageBytes(s.req), ninep.Tclunk, shareRPCTag, fid), ninep.Tclunk)
	s.conn.FreeFid(fid) // the server forgets it either way
}

// openTo makes a fid for stored inode i, walked to and opened with
// flags (Tlopen's: Linux's O_* values).
func (s *share) openTo(i int32, flags uint32) (uint32, unix.Errno) {
	fid, e := s.walkTo(i)
	if e != 0 {
		return 0, e
	}
	if _, e := s.rpc(ninep.EncLopen(pageBytes(s.req), shareRPCTag, fid, flags), ninep.Tlopen); e != 0 {
		s.clunk(fid)
		return 0, e
	}
	return fid, 0
}

// getattr fills st from Tgetattr of fid (and Treadlink for a symlink).
func (s *share) getattr(fid uint32, st *fs.Stored) unix.Errno {
	d, e := s.rpc(ninep.EncGetattr(pageBytes(s.req), shareRPCTag, fid, ninep.GetattrBasic), ninep.Tgetattr)
	if e != 0 {
		return e
	}
	a := &shareAttr
	if ninep.DecGetattr(&d, a); d.Bad {
		return unix.EIO
	}
	*st = fs.Stored{Num: 1, Ino: a.Qid.Path, Mode: a.Mode, Links: uint32(a.Nlink), UID: a.UID, GID: a.GID,
		Size: int64(a.Size), BlocksUsed: int64(a.Blocks),
		Mtime: int64(a.MTimeSec)*1e9 + int64(a.MTimeNsec), Atime: int64(a.ATimeSec)*1e9 + int64(a.ATimeNsec),
		Ctime: int64(a.CTimeSec)*1e9 + int64(a.CTimeNsec)}
	switch a.Mode & unix.S_IFMT {
	case unix.S_IFCHR, unix.S_IFBLK:
		st.Rdev = unix.Major(a.Rdev)<<8 | unix.Minor(a.Rdev)&0xff
	case unix.S_IFLNK:
		d, e := s.rpc(ninep.EncFid(pageBytes(s.req), ninep.Treadlink, shareRPCTag, fid), ninep.Treadlink)
		if e != 0 {
			return e
		}
		t := ninep.DecReadlink(&d)
		if d.Bad {
			return unix.EIO
		}
		st.Link = fs.LinkBuf[:copy(fs.LinkBuf[:], t)]
	}
	return 0
}

// read sends Tread of count bytes at off and has the data land in
// physical memory at pa (a descriptor of its own, after the 11-byte
// header's), returning how many came.
func (s *share) read(fid uint32, off uint64, pa uintptr, count uint32) (uint32, unix.Errno) {
	var segs [virtio.P9MaxSegs]virtio.P9Seg
	segs[2] = virtio.P9Seg{PA: pa, Len: count, Write: true}
	return s.tread(fid, off, &segs, 3, count)
}

// readRun sends one Tread of k whole pages at off, the data landing in
// pas[:k] (a descriptor a page), returning how many bytes came.
func (s *share) readRun(fid uint32, off uint64, pas *[fs.StoreRun]uintptr, k int) (uint32, unix.Errno) {
	var segs [virtio.P9MaxSegs]virtio.P9Seg
	for j := 0; j < k; j++ {
		segs[2+j] = virtio.P9Seg{PA: pas[j], Len: mm.PageSize, Write: true}
	}
	return s.tread(fid, off, &segs, 2+k, uint32(k)*mm.PageSize)
}

// exchange sends the message segs[:nseg] describe (the T-message and
// its data first, then the answer's buffers) and polls for its answer,
// at most shareWaitNanos: false when the device took no request or
// gave no answer.
func (s *share) exchange(segs *[virtio.P9MaxSegs]virtio.P9Seg, nseg int) bool {
	cpu.Progress.Add(1) // work, for the kernel lock's waiters (drivers/cpu/spinlock.go)
	slot, ok := s.dev.Submit(segs, nseg)
	if !ok {
		return false
	}
	deadline := cpu.ReadCNTVCT() + timer.NanosToTicks(shareWaitNanos)
	for {
		if _, ok := s.dev.Done(slot); ok {
			return true
		}
		if cpu.ReadCNTVCT() > deadline {
			return false
		}
	}
}

// tread sends Tread of count bytes at off with the data descriptors
// segs[2:nseg] filled in: the T-message and Rread's header take the
// first two.
func (s *share) tread(fid uint32, off uint64, segs *[virtio.P9MaxSegs]virtio.P9Seg, nseg int, count uint32) (uint32, unix.Errno) {
	const eio = unix.EIO
	n := ninep.EncRead(pageBytes(s.req), shareRPCTag, fid, off, count)
	if n == 0 {
		return 0, eio
	}
	segs[0] = virtio.P9Seg{PA: s.req, Len: uint32(n)}
	segs[1] = virtio.P9Seg{PA: s.ans, Len: ninep.ReadHeaderLen, Write: true}
	if !s.exchange(segs, nseg) {
		return 0, eio
	}
	// Rread: size[4] type[1] tag[2] count[4]; Rlerror: the same length,
	// ecode[4] where count is.
	h := pageBytes(s.ans)[:ninep.ReadHeaderLen]
	le := binary.LittleEndian
	if le.Uint16(h[5:]) != shareRPCTag {
		return 0, eio
	}
	switch h[4] {
	case ninep.Tread + 1:
		got := le.Uint32(h[7:])
		if got > count || le.Uint32(h[0:]) != ninep.ReadHeaderLen+got {
			return 0, eio
		}
		return got, 0
	case ninep.Rlerror:
		if e := le.Uint32(h[7:]); e != 0 {
			return 0, unix.Errno(e)
		}
	}
	return 0, eio
}
