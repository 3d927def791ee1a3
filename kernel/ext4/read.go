package ext4

// The read path: the parsers above composed over a source of blocks. A
// Source hands out blocks already in memory (later the kernel's buffer
// cache; a file image in the tests); one that is not answers EAGAIN, the
// Reader records it in Missing and every call returns EAGAIN, so a system
// call starts the read, waits and runs again ("gather, then change",
// docs/ARCHITECTURE.md).

// Source gives the bytes of block n (BlockSize long), EAGAIN when the
// block is not in memory, or EIO.
type Source interface {
	Block(n uint64) ([]byte, Errno)
}

// Reader reads one volume.
type Reader struct {
	Super
	Src     Source
	Missing uint64 // the block an EAGAIN was for
}

// PathMax is Linux's PATH_MAX; MaxSymlinks its MAXSYMLINKS (namei.c).
const (
	PathMax     = 4096
	MaxSymlinks = 40
)

// Mount parses the superblock (its 1024 bytes, from byte 1024 of the
// device) and refuses a volume Support says cannot be mounted.
func (r *Reader) Mount(sb []byte, src Source) (Mountable, string, Errno) {
	if e := ParseSuper(sb, &r.Super); e != OK {
		return MountNo, "bad superblock", e
	}
	r.Src = src
	m, why := r.Support()
	if m == MountNo {
		return m, why, EOPNOTSUPP
	}
	return m, why, OK
}

func (r *Reader) block(n uint64) ([]byte, Errno) {
	if n >= r.BlocksCount {
		return nil, EUCLEAN
	}
	b, e := r.Src.Block(n)
	if e == EAGAIN {
		r.Missing = n
	}
	if e == OK && len(b) < int(r.BlockSize) {
		return nil, EIO
	}
	return b, e
}

// Inode reads and parses inode ino.
func (r *Reader) Inode(ino uint32, in *Inode) Errno {
	g, off, e := r.InodeLocation(ino)
	if e != OK {
		return e
	}
	db, doff := r.GroupDescLocation(g)
	b, e := r.block(db)
	if e != OK {
		return e
	}
	var gd GroupDesc
	if e := r.ParseGroupDesc(g, b[doff:], &gd); e != OK {
		return e
	}
	b, e = r.block(gd.InodeTable + off/uint64(r.BlockSize))
	if e != OK {
		return e
	}
	o := off % uint64(r.BlockSize)
	return r.ParseInode(ino, b[o:o+uint64(r.InodeSize)], in)
}

// MapBlock maps logical block lblk of in, walking the extent tree.
func (r *Reader) MapBlock(in *Inode, lblk uint32, m *Mapping) Errno {
	var w ExtentWalk
	e := r.Map(in, lblk, &w, m)
	for i := 0; e == EAGAIN && i < MaxExtentDepth; i++ {
		b, be := r.block(w.Next)
		if be != OK {
			return be
		}
		e = w.Step(b, m)
	}
	if e == EAGAIN {
		return EUCLEAN // deeper than the header said: a corrupt tree
	}
	return e
}

// maxFileBlocks is the largest logical block count: 2^32 blocks.
const maxFileBlocks = maxLogicalBlock + 1

// ReadAt copies in's bytes from off into p, up to the end of the file;
// holes and unwritten extents read as zeros.
func (r *Reader) ReadAt(in *Inode, off uint64, p []byte) (int, Errno) {
	if in.IsDir() {
		return 0, EINVAL
	}
	if off >= in.Size {
		return 0, OK
	}
	if rest := in.Size - off; uint64(len(p)) > rest {
		p = p[:rest]
	}
	bs := uint64(r.BlockSize)
	n := 0
	for n < len(p) {
		pos := off + uint64(n)
		lblk := pos >> r.LogBlockSize
		if lblk >= maxFileBlocks {
			return n, EFBIG
		}
		var m Mapping
		if e := r.MapBlock(in, uint32(lblk), &m); e != OK {
			return n, e
		}
		// Copy the whole run the mapping covers, block by block.
		for k := uint64(0); k < uint64(m.Len) && n < len(p); k++ {
			bo := (off + uint64(n)) % bs
			chunk := p[n:]
			if uint64(len(chunk)) > bs-bo {
				chunk = chunk[:bs-bo]
			}
			if m.Hole || m.Unwritten {
				for i := range chunk {
					chunk[i] = 0
				}
			} else {
				b, e := r.block(m.Phys + k)
				if e != OK {
					return n, e
				}
				copy(chunk, b[bo:])
			}
			n += len(chunk)
		}
	}
	return n, OK
}

// Readlink copies the target of symlink in into p and returns its length.
// A fast symlink keeps it in i_block (ext4_inode_is_fast_symlink: no
// extents flag and shorter than i_block); a slow one in its data block.
func (r *Reader) Readlink(in *Inode, p []byte) (int, Errno) {
	if !in.IsSymlink() {
		return 0, EINVAL
	}
	if in.Size == 0 || in.Size >= PathMax {
		return 0, EUCLEAN
	}
	if in.Flags&FlagInlineData != 0 {
		return 0, EOPNOTSUPP
	}
	if in.Flags&FlagExtents == 0 {
		if in.Size >= fastSymlinkMaxLen {
			return 0, EOPNOTSUPP // a block-mapped slow symlink
		}
		return copy(p, in.Block[:in.Size]), OK
	}
	if uint64(len(p)) > in.Size {
		p = p[:in.Size]
	}
	return r.ReadAt(in, 0, p)
}

// DirPos is a position in a directory: its logical block and the offset of
// the next entry in it (Linux's f_pos is the byte offset).
type DirPos struct {
	Off uint64
}

// ReadDir returns the next used entry of directory dir at *pos and moves
// *pos past it; ENOENT at the end. The entry's Name aliases a block of the
// Source, valid until it is given back.
func (r *Reader) ReadDir(dir *Inode, pos *DirPos, d *DirEntry) Errno {
	if !dir.IsDir() {
		return ENOTDIR
	}
	if dir.Flags&FlagInlineData != 0 {
		return EOPNOTSUPP
	}
	bs := uint64(r.BlockSize)
	for pos.Off < dir.Size {
		lblk := pos.Off >> r.LogBlockSize
		if lblk >= maxFileBlocks {
			return EUCLEAN
		}
		var m Mapping
		if e := r.MapBlock(dir, uint32(lblk), &m); e != OK {
			return e
		}
		if m.Hole || m.Unwritten {
			// ext4_bread of a directory hole: "Directory hole found".
			return EUCLEAN
		}
		b, e := r.block(m.Phys)
		if e != OK {
			return e
		}
		_, end, e := r.CheckDirBlock(dir, uint32(lblk), b)
		if e != OK {
			return e
		}
		// Walk from the block's start to the position, so a position in
		// the middle of an entry (a stale f_pos) resyncs as
		// ext4_readdir's version check does.
		want := uint32(pos.Off % bs)
		off := uint32(0)
		for off < end {
			next, e := r.DirNext(b, off, end, d)
			if e != OK {
				return e
			}
			if off >= want && d.Ino != 0 {
				pos.Off = lblk*bs + uint64(next)
				return OK
			}
			off = next
		}
		pos.Off = (lblk + 1) * bs
	}
	return ENOENT
}

// Lookup finds name in directory dir and returns its inode number:
// through the htree's hash when the directory has one, else (or when the
// index is bad, as Linux falls back on ERR_BAD_DX_DIR) by reading every
// block (an htree's index blocks hold no names).
func (r *Reader) Lookup(dir *Inode, name []byte) (uint32, Errno) {
	if len(name) > MaxNameLen {
		return 0, ENAMETOOLONG
	}
	if !dir.IsDir() {
		return 0, ENOTDIR
	}
	// "." and ".." are only in block 0, outside the index
	// (__ext4_find_entry).
	dots := string(name) == "." || string(name) == ".."
	if !dots && dir.Flags&FlagIndex != 0 && r.Compat&CompatDirIndex != 0 && dir.Flags&FlagInlineData == 0 {
		ino, e := r.dxLookup(dir, name)
		if e != EUCLEAN {
			return ino, e
		}
	}
	return r.linearLookup(dir, name)
}

func (r *Reader) linearLookup(dir *Inode, name []byte) (uint32, Errno) {
	var pos DirPos
	var d DirEntry
	for {
		e := r.ReadDir(dir, &pos, &d)
		if e != OK {
			return 0, e
		}
		if string(d.Name) == string(name) {
			if d.Ino == 0 {
				return 0, EUCLEAN
			}
			return d.Ino, OK
		}
	}
}

// Resolve walks path (absolute, or relative to the root) from the root
// inode and fills in with its last component's inode, following symlinks
// in the middle, and at the end when follow is set, at most MaxSymlinks
// times (ELOOP), as namei does.
func (r *Reader) Resolve(path []byte, follow bool, in *Inode) Errno {
	var buf [PathMax]byte
	var link [PathMax]byte
	if len(path) >= PathMax {
		return ENAMETOOLONG
	}
	n := copy(buf[:], path)
	p := buf[:n]
	if e := r.Inode(RootIno, in); e != OK {
		return e
	}
	links := 0
	for {
		for len(p) > 0 && p[0] == '/' {
			p = p[1:]
		}
		if len(p) == 0 {
			return OK
		}
		i := 0
		for i < len(p) && p[i] != '/' {
			i++
		}
		comp, rest := p[:i], p[i:]
		if !in.IsDir() {
			return ENOTDIR
		}
		ino, e := r.Lookup(in, comp)
		if e != OK {
			return e
		}
		parent := in.Ino
		if e := r.Inode(ino, in); e != OK {
			return e
		}
		last := true
		for _, c := range rest {
			if c != '/' {
				last = false
				break
			}
		}
		if !in.IsSymlink() || (last && !follow) {
			p = rest
			continue
		}
		if links++; links > MaxSymlinks {
			return ELOOP
		}
		ln, e := r.Readlink(in, link[:])
		if e != OK {
			return e
		}
		if ln+len(rest) >= PathMax {
			return ENAMETOOLONG
		}
		// The new path is the target then what was left; rest is a
		// tail of buf, so move it first.
		copy(buf[ln:], rest)
		copy(buf[:ln], link[:ln])
		p = buf[:ln+len(rest)]
		start := parent
		if link[0] == '/' {
			start = RootIno
		}
		if e := r.Inode(start, in); e != OK {
			return e
		}
	}
}

// Stat is what stat(2) reports from an inode.
type Stat struct {
	Ino                  uint32
	Mode                 uint16
	Nlink                uint32
	UID, GID             uint32
	Size                 uint64
	Blocks               uint64
	RdevMajor, RdevMinor uint32
	Atime, Mtime, Ctime  Time
	Crtime               Time
}

// StatOf fills st from in. A directory's link count of 1 with dir_nlink
// means "more than 65000" and is reported as 1, as Linux does.
func StatOf(in *Inode, st *Stat) {
	*st = Stat{Ino: in.Ino, Mode: in.Mode, Nlink: uint32(in.Links), UID: in.UID, GID: in.GID,
		Size: in.Size, Blocks: in.Blocks, Atime: in.Atime, Mtime: in.Mtime, Ctime: in.Ctime, Crtime: in.Crtime}
	if t := in.Mode & SIFMT; t == SIFCHR || t == SIFBLK {
		st.RdevMajor, st.RdevMinor = in.Rdev()
	}
}
