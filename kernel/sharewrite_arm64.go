package kernel

import (
	"encoding/binary"

	"github.com/gometal/gometal/drivers/virtio"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/ninep"

	"golang.org/x/sys/unix"
)

// Writing a share: the 9p type's fs.Writer. Each change is one 9P2000.L
// message (two or three with the walks to the directories it names) that
// the host carries out before the tree changes (kernel/fs/storewrite.go),
// as Linux's v9fs sends them (fs/9p/vfs_inode_dotl.c): Tlcreate, Tmkdir,
// Tsymlink, Tmknod, Tunlinkat, Trenameat, Tlink, Tsetattr, Twrite (the
// data in a descriptor of its own, straight from the page cache), Tfsync.
// The host's answer is the call's: EACCES, ENOSPC, ENOTEMPTY, EXDEV as
// the host's file system gives them. QEMU serves the share with
// security_model=none, so what is made belongs to the user QEMU runs as
// and a chown changes nothing there.

// Tlopen and Tlcreate flags (Linux's O_* values, which 9P2000.L uses).
const (
	p9OpenWrite = unix.O_WRONLY
	p9Create    = unix.O_WRONLY | unix.O_CREAT | unix.O_EXCL
)

// The file written last keeps its fid open for writing (shareMount's
// write fields), as the file read last keeps one for reading: writing a
// file through costs one Twrite a run of 32 pages. A change to the namespace lets
// both go, since a removed or replaced file's number may come back.

// Create makes nm in directory dir on the host, then asks the host what
// it made.
func (*ninepStore) Create(dir int32, nm []byte, mode, rdev uint32, target []byte, st *fs.Stored) unix.Errno {
	s, m := shareOf(dir)
	dropShareFids(s, m)
	dfid, e := s.walkTo(dir)
	if e != 0 {
		return e
	}
	req := pageBytes(s.req)
	perm := mode & 0o7777
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		// The directory's fid becomes the new file's, open for
		// writing: kept as the write fid once the host says which
		// file it is.
		if _, e = s.rpc(ninep.EncLcreate(req, shareRPCTag, dfid, nm, p9Create, perm, 0), ninep.Tlcreate); e == 0 {
			if e = s.getattr(dfid, st); e == 0 {
				m.wOpen, m.wNum, m.wFid = true, st.Ino, dfid
				return 0
			}
		}
		s.clunk(dfid)
		return e
	case unix.S_IFDIR:
		_, e = s.rpc(ninep.EncMkdir(req, shareRPCTag, dfid, nm, perm, 0), ninep.Tmkdir)
	case unix.S_IFLNK:
		_, e = s.rpc(ninep.EncSymlink(req, shareRPCTag, dfid, nm, target, 0), ninep.Tsymlink)
	default: // a FIFO, a socket, a device node
		_, e = s.rpc(ninep.EncMknod(req, shareRPCTag, dfid, nm, mode, rdev>>8, rdev&0xff, 0), ninep.Tmknod)
	}
	if e == 0 {
		e = s.statChild(dfid, nm, st)
	}
	s.clunk(dfid)
	return e
}

// Remove is Tunlinkat of nm in dir.
func (*ninepStore) Remove(dir int32, nm []byte, rmdir bool) unix.Errno {
	s, m := shareOf(dir)
	dropShareFids(s, m)
	dfid, e := s.walkTo(dir)
	if e != 0 {
		return e
	}
	var flags uint32
	if rmdir {
		flags = ninep.UnlinkDir
	}
	_, e = s.rpc(ninep.EncUnlinkat(pageBytes(s.req), shareRPCTag, dfid, nm, flags), ninep.Tunlinkat)
	s.clunk(dfid)
	return e
}

// Rename is Trenameat between the two directories.
func (*ninepStore) Rename(fromDir int32, fromName []byte, toDir int32, toName []byte) unix.Errno {
	s, m := shareOf(fromDir)
	dropShareFids(s, m)
	from, e := s.walkTo(fromDir)
	if e != 0 {
		return e
	}
	to, e := s.walkTo(toDir)
	if e == 0 {
		_, e = s.rpc(ninep.EncRenameat(pageBytes(s.req), shareRPCTag, from, fromName, to, toName), ninep.Trenameat)
		s.clunk(to)
	}
	s.clunk(from)
	return e
}

// Link is Tlink of file i into dir as nm.
func (*ninepStore) Link(i, dir int32, nm []byte) unix.Errno {
	s, _ := shareOf(dir)
	fid, e := s.walkTo(i)
	if e != 0 {
		return e
	}
	dfid, e := s.walkTo(dir)
	if e == 0 {
		_, e = s.rpc(ninep.EncLink(pageBytes(s.req), shareRPCTag, dfid, fid, nm), ninep.Tlink)
		s.clunk(dfid)
	}
	s.clunk(fid)
	return e
}

// Setattr is Tsetattr of inode i.
func (*ninepStore) Setattr(i int32, a *fs.Attr) unix.Errno {
	s, _ := shareOf(i)
	fid, e := s.walkTo(i)
	if e != 0 {
		return e
	}
	var sa ninep.SetAttr
	if a.Valid&fs.AttrMode != 0 {
		sa.Valid |= ninep.SetattrMode
		sa.Mode = a.Mode
	}
	if a.Valid&fs.AttrSize != 0 {
		sa.Valid |= ninep.SetattrSize
		sa.Size = uint64(a.Size)
	}
	if a.Valid&fs.AttrAtime != 0 {
		sa.Valid |= ninep.SetattrATime | ninep.SetattrATimeSet
		sa.ATimeSec, sa.ATimeNsec = uint64(a.Atime/1e9), uint64(a.Atime%1e9)
	}
	if a.Valid&fs.AttrMtime != 0 {
		sa.Valid |= ninep.SetattrMTime | ninep.SetattrMTimeSet
		sa.MTimeSec, sa.MTimeNsec = uint64(a.Mtime/1e9), uint64(a.Mtime%1e9)
	}
	_, e = s.rpc(ninep.EncSetattr(pageBytes(s.req), shareRPCTag, fid, &sa), ninep.Tsetattr)
	s.clunk(fid)
	return e
}

// Write sends the run in Twrites on the file's write fid (one, unless
// the host takes less) until the host has taken it all.
func (*ninepStore) Write(i int32, off int64, pas *[fs.StoreRun]uintptr, in, n uint32) unix.Errno {
	s, m := shareOf(i)
	if e := openWriteFid(s, m, i); e != 0 {
		return e
	}
	for done := uint32(0); done < n; {
		got, e := s.twrite(m.wFid, uint64(off)+uint64(done), pas, in+done, n-done)
		if e != 0 {
			return e
		}
		if got == 0 {
			return unix.EIO // the host took nothing and said no error
		}
		done += got
	}
	return 0
}

// Sync is Tfsync (the host fsyncs its file): on the file's write fid
// when it is the file written last, else on a fid opened for reading
// for the call (fsync of a descriptor opened read-only is Linux's too).
func (*ninepStore) Sync(i int32, dataOnly bool) unix.Errno {
	if fs.Inodes[i].Mode&unix.S_IFMT != unix.S_IFREG {
		return 0 // the host's own directories: each change was its call
	}
	s, m := shareOf(i)
	if m.wOpen && m.wNum == fs.Inodes[i].Ino {
		_, e := s.rpc(ninep.EncFsync(pageBytes(s.req), shareRPCTag, m.wFid, dataOnly), ninep.Tfsync)
		return e
	}
	fid, e := s.openTo(i, p9OpenRead)
	if e != 0 {
		return e
	}
	_, e = s.rpc(ninep.EncFsync(pageBytes(s.req), shareRPCTag, fid, dataOnly), ninep.Tfsync)
	s.clunk(fid)
	return e
}

// openWriteFid makes m's write fid file i's, opened for writing.
func openWriteFid(s *share, m *shareMount, i int32) unix.Errno {
	if m.wOpen && m.wNum == fs.Inodes[i].Ino {
		return 0
	}
	if m.wOpen {
		s.clunk(m.wFid)
		m.wOpen = false
	}
	fid, e := s.openTo(i, p9OpenWrite)
	if e != 0 {
		return e
	}
	m.wOpen, m.wNum, m.wFid = true, fs.Inodes[i].Ino, fid
	return 0
}

// dropShareFids lets go of the fids m keeps open (the file read last,
// the file written last).
func dropShareFids(s *share, m *shareMount) {
	if m.open {
		s.clunk(m.openFid)
		m.open = false
	}
	if m.wOpen {
		s.clunk(m.wFid)
		m.wOpen = false
	}
}

// twrite sends one Twrite of count bytes at off: the run's bytes from
// byte at of its pages on (pas[at/PageSize] from at%PageSize), each page
// a descriptor the device reads after the header's. It returns how many
// the host took.
func (s *share) twrite(fid uint32, off uint64, pas *[fs.StoreRun]uintptr, at, count uint32) (uint32, unix.Errno) {
	const eio = unix.EIO
	count = min(count, s.conn.Msize-ninep.WriteHeaderLen)
	n := ninep.EncWriteHeader(pageBytes(s.req), shareRPCTag, fid, off, count)
	if n == 0 {
		return 0, eio
	}
	var segs [virtio.P9MaxSegs]virtio.P9Seg
	segs[0] = virtio.P9Seg{PA: s.req, Len: uint32(n)}
	k := 1
	for left, pos := count, at; left > 0; k++ {
		pg, in := pos/mm.PageSize, pos%mm.PageSize
		if int(pg) >= len(pas) || k >= len(segs)-1 {
			return 0, eio // more than a run: not sent by writeData
		}
		l := min(left, mm.PageSize-in)
		segs[k] = virtio.P9Seg{PA: pas[pg] + uintptr(in), Len: l}
		left, pos = left-l, pos+l
	}
	segs[k] = virtio.P9Seg{PA: s.ans, Len: shareWriteAnswerLen, Write: true}
	if !s.exchange(&segs, k+1) {
		return 0, eio
	}
	// Rwrite: size[4] type[1] tag[2] count[4]; Rlerror: ecode[4] where
	// count is.
	h := pageBytes(s.ans)[:shareWriteAnswerLen]
	le := binary.LittleEndian
	if le.Uint16(h[5:]) != shareRPCTag || le.Uint32(h[0:]) != shareWriteAnswerLen {
		return 0, eio
	}
	switch h[4] {
	case ninep.Twrite + 1:
		if got := le.Uint32(h[7:]); got <= count {
			return got, 0
		}
	case ninep.Rlerror:
		if e := le.Uint32(h[7:]); e != 0 {
			return 0, unix.Errno(e)
		}
	}
	return 0, eio
}

// shareWriteAnswerLen is Rwrite's length (and Rlerror's).
const shareWriteAnswerLen = 11

// Forget: the host keeps an open file with no name itself.
func (*ninepStore) Forget(i int32) {}
