package ninep

// The T-messages, each as net/9p/client.c's p9_client_* writes it (the
// field order is include/net/9p/9p.h's and the 9P2000.L spec's,
// github.com/chaos/diod protocol.md). Each writes into b and returns the
// message's length, 0 if it does not fit.

// EncVersion is Tversion: msize[4] version[s], with NoTag.
func EncVersion(b []byte, msize uint32) int {
	e := Enc{B: b}
	e.Begin(Tversion, NoTag)
	e.U32(msize)
	e.StrS(Version)
	return e.Finish(0)
}

// EncAttach is Tattach: fid[4] afid[4] uname[s] aname[s] n_uname[4],
// without authentication (afid NoFid), as user uid.
func EncAttach(b []byte, tag uint16, fid uint32, aname []byte, uid uint32) int {
	e := Enc{B: b}
	e.Begin(Tattach, tag)
	e.U32(fid)
	e.U32(NoFid)
	e.StrS("") // uname: n_uname says who
	e.Str(aname)
	e.U32(uid)
	return e.Finish(0)
}

// EncWalk is Twalk: fid[4] newfid[4] nwname[2] nwname*(wname[s]); name
// i is path[starts[i]:ends[i]] (a path's components need not be copied
// apart). n is at most MaxWalk; 0 names clones fid into newfid.
func EncWalk(b []byte, tag uint16, fid, newfid uint32, path []byte, starts, ends *[MaxWalk]int, n int) int {
	e := Enc{B: b}
	if n > MaxWalk {
		return 0
	}
	e.Begin(Twalk, tag)
	e.U32(fid)
	e.U32(newfid)
	e.U16(uint16(n))
	for i := 0; i < n; i++ {
		e.Str(path[starts[i]:ends[i]])
	}
	return e.Finish(0)
}

// EncWalk1 is Twalk of one name (or none: a clone when name is empty).
func EncWalk1(b []byte, tag uint16, fid, newfid uint32, name []byte) int {
	e := Enc{B: b}
	e.Begin(Twalk, tag)
	e.U32(fid)
	e.U32(newfid)
	if len(name) == 0 {
		e.U16(0)
	} else {
		e.U16(1)
		e.Str(name)
	}
	return e.Finish(0)
}

// EncFid is a message whose body is only a fid: Tclunk, Treadlink,
// Tstatfs.
func EncFid(b []byte, typ uint8, tag uint16, fid uint32) int {
	e := Enc{B: b}
	e.Begin(typ, tag)
	e.U32(fid)
	return e.Finish(0)
}

// EncGetattr is Tgetattr: fid[4] request_mask[8].
func EncGetattr(b []byte, tag uint16, fid uint32, mask uint64) int {
	e := Enc{B: b}
	e.Begin(Tgetattr, tag)
	e.U32(fid)
	e.U64(mask)
	return e.Finish(0)
}

// EncSetattr is Tsetattr: fid[4] valid[4] mode[4] uid[4] gid[4] size[8]
// atime_sec[8] atime_nsec[8] mtime_sec[8] mtime_nsec[8].
func EncSetattr(b []byte, tag uint16, fid uint32, a *SetAttr) int {
	e := Enc{B: b}
	e.Begin(Tsetattr, tag)
	e.U32(fid)
	e.U32(a.Valid)
	e.U32(a.Mode)
	e.U32(a.UID)
	e.U32(a.GID)
	e.U64(a.Size)
	e.U64(a.ATimeSec)
	e.U64(a.ATimeNsec)
	e.U64(a.MTimeSec)
	e.U64(a.MTimeNsec)
	return e.Finish(0)
}

// EncLopen is Tlopen: fid[4] flags[4] (Linux open flags).
func EncLopen(b []byte, tag uint16, fid, flags uint32) int {
	e := Enc{B: b}
	e.Begin(Tlopen, tag)
	e.U32(fid)
	e.U32(flags)
	return e.Finish(0)
}

// EncLcreate is Tlcreate: fid[4] name[s] flags[4] mode[4] gid[4]. The
// fid, a directory's, becomes the new file's, open.
func EncLcreate(b []byte, tag uint16, fid uint32, name []byte, flags, mode, gid uint32) int {
	e := Enc{B: b}
	e.Begin(Tlcreate, tag)
	e.U32(fid)
	e.Str(name)
	e.U32(flags)
	e.U32(mode)
	e.U32(gid)
	return e.Finish(0)
}

// EncRead is Tread: fid[4] offset[8] count[4].
func EncRead(b []byte, tag uint16, fid uint32, off uint64, count uint32) int {
	return encIO(b, Tread, tag, fid, off, count, 0)
}

// EncReaddir is Treaddir: fid[4] offset[8] count[4].
func EncReaddir(b []byte, tag uint16, fid uint32, off uint64, count uint32) int {
	return encIO(b, Treaddir, tag, fid, off, count, 0)
}

// EncWriteHeader is Twrite's header: fid[4] offset[8] count[4]; the
// count bytes of data follow it, in b or in a buffer of their own (the
// size field counts them either way). It returns WriteHeaderLen.
func EncWriteHeader(b []byte, tag uint16, fid uint32, off uint64, count uint32) int {
	return encIO(b, Twrite, tag, fid, off, count, int(count))
}

// encIO is the fid[4] offset[8] count[4] the three share.
func encIO(b []byte, typ uint8, tag uint16, fid uint32, off uint64, count uint32, extra int) int {
	e := Enc{B: b}
	e.Begin(typ, tag)
	e.U32(fid)
	e.U64(off)
	e.U32(count)
	return e.Finish(extra)
}

// EncMkdir is Tmkdir: dfid[4] name[s] mode[4] gid[4].
func EncMkdir(b []byte, tag uint16, dfid uint32, name []byte, mode, gid uint32) int {
	e := Enc{B: b}
	e.Begin(Tmkdir, tag)
	e.U32(dfid)
	e.Str(name)
	e.U32(mode)
	e.U32(gid)
	return e.Finish(0)
}

// EncMknod is Tmknod: dfid[4] name[s] mode[4] major[4] minor[4] gid[4].
func EncMknod(b []byte, tag uint16, dfid uint32, name []byte, mode, major, minor, gid uint32) int {
	e := Enc{B: b}
	e.Begin(Tmknod, tag)
	e.U32(dfid)
	e.Str(name)
	e.U32(mode)
	e.U32(major)
	e.U32(minor)
	e.U32(gid)
	return e.Finish(0)
}

// EncSymlink is Tsymlink: fid[4] name[s] symtgt[s] gid[4].
func EncSymlink(b []byte, tag uint16, dfid uint32, name, target []byte, gid uint32) int {
	e := Enc{B: b}
	e.Begin(Tsymlink, tag)
	e.U32(dfid)
	e.Str(name)
	e.Str(target)
	e.U32(gid)
	return e.Finish(0)
}

// EncLink is Tlink: dfid[4] fid[4] name[s].
func EncLink(b []byte, tag uint16, dfid, fid uint32, name []byte) int {
	e := Enc{B: b}
	e.Begin(Tlink, tag)
	e.U32(dfid)
	e.U32(fid)
	e.Str(name)
	return e.Finish(0)
}

// EncRenameat is Trenameat: olddirfid[4] oldname[s] newdirfid[4]
// newname[s].
func EncRenameat(b []byte, tag uint16, olddfid uint32, oldname []byte, newdfid uint32, newname []byte) int {
	e := Enc{B: b}
	e.Begin(Trenameat, tag)
	e.U32(olddfid)
	e.Str(oldname)
	e.U32(newdfid)
	e.Str(newname)
	return e.Finish(0)
}

// EncUnlinkat is Tunlinkat: dirfid[4] name[s] flags[4] (UnlinkDir for
// rmdir).
func EncUnlinkat(b []byte, tag uint16, dfid uint32, name []byte, flags uint32) int {
	e := Enc{B: b}
	e.Begin(Tunlinkat, tag)
	e.U32(dfid)
	e.Str(name)
	e.U32(flags)
	return e.Finish(0)
}

// EncFsync is Tfsync: fid[4] datasync[4].
func EncFsync(b []byte, tag uint16, fid uint32, datasync bool) int {
	e := Enc{B: b}
	e.Begin(Tfsync, tag)
	e.U32(fid)
	var ds uint32
	if datasync {
		ds = 1
	}
	e.U32(ds)
	return e.Finish(0)
}

// The R-message bodies. Each reads from a Dec Answer returned; a short
// body sets d.Bad.

// DecVersion is Rversion: msize[4] version[s].
func DecVersion(d *Dec) (msize uint32, version []byte) {
	msize = d.U32()
	return msize, d.Str()
}

// DecWalk is Rwalk: nwqid[2] nwqid*(qid[13]); it returns how many names
// were walked and the last one's qid. Fewer than asked means the walk
// stopped at a name that does not exist (and newfid was not made).
func DecWalk(d *Dec) (n int, last Qid) {
	n = int(d.U16())
	if n > MaxWalk {
		d.Bad = true
		return 0, last
	}
	for i := 0; i < n; i++ {
		last = d.Qid()
	}
	return n, last
}

// DecOpen is Rlopen and Rlcreate: qid[13] iounit[4].
func DecOpen(d *Dec) (q Qid, iounit uint32) {
	q = d.Qid()
	return q, d.U32()
}

// DecGetattr is Rgetattr.
func DecGetattr(d *Dec, a *Attr) {
	a.Valid = d.U64()
	a.Qid = d.Qid()
	a.Mode = d.U32()
	a.UID = d.U32()
	a.GID = d.U32()
	a.Nlink = d.U64()
	a.Rdev = d.U64()
	a.Size = d.U64()
	a.Blksize = d.U64()
	a.Blocks = d.U64()
	a.ATimeSec, a.ATimeNsec = d.U64(), d.U64()
	a.MTimeSec, a.MTimeNsec = d.U64(), d.U64()
	a.CTimeSec, a.CTimeNsec = d.U64(), d.U64()
	a.BTimeSec, a.BTimeNsec = d.U64(), d.U64()
	a.Gen, a.DataV = d.U64(), d.U64()
}

// DecStatfs is Rstatfs.
func DecStatfs(d *Dec, s *Statfs) {
	s.Type = d.U32()
	s.Bsize = d.U32()
	s.Blocks = d.U64()
	s.Bfree = d.U64()
	s.Bavail = d.U64()
	s.Files = d.U64()
	s.Free = d.U64()
	s.Fsid = d.U64()
	s.Namelen = d.U32()
}

// DecData is Rread and Rreaddir: count[4] data; it returns the data
// (inside the answer's buffer).
func DecData(d *Dec) []byte { return d.take(int(d.U32())) }

// DecCount is Rwrite: count[4].
func DecCount(d *Dec) uint32 { return d.U32() }

// DecQid is Rmkdir, Rsymlink, Rmknod and Rattach: qid[13].
func DecQid(d *Dec) Qid { return d.Qid() }

// DecReadlink is Rreadlink: target[s].
func DecReadlink(d *Dec) []byte { return d.Str() }

// NextDirent reads the next entry of an Rreaddir's data, held in d (a
// Dec over DecData's result): qid[13] offset[8] type[1] name[s]. ok is
// false at the end or on a malformed entry (d.Bad then).
func NextDirent(d *Dec, de *Dirent) (ok bool) {
	if d.Left() == 0 {
		return false
	}
	de.Qid = d.Qid()
	de.Offset = d.U64()
	de.Type = d.U8()
	de.Name = d.Str()
	return !d.Bad
}
