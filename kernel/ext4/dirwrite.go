package ext4

import "encoding/binary"

// New directory blocks, and turning an htree directory back into a
// linear one (the write side adds names linearly: an index block read
// linearly holds no names, so once its index blocks are plain empty
// blocks and EXT4_INDEX_FL is off, every name is where a linear lookup
// finds it, as e2fsck's own rehash starts from).

// InitDirBlock makes b an empty directory block: one unused entry
// covering it, then the checksum tail with metadata_csum
// (ext4_init_dirblock's shape). It returns the end of the entries.
func (s *Super) InitDirBlock(b []byte) uint32 {
	b = b[:s.BlockSize]
	clear(b)
	end := s.BlockSize
	if s.HasCsum() {
		end -= direntTailLen
		t := b[end:]
		s.putRecLen(t[4:], direntTailLen)
		t[7] = ftDirCsum
	}
	s.putRecLen(b[4:], end)
	return end
}

// InitDotsBlock makes b a new directory's first block: "." for self,
// ".." for parent (ext4_init_dot_dotdot). It returns the end.
func (s *Super) InitDotsBlock(b []byte, self, parent uint32) uint32 {
	end := s.InitDirBlock(b)
	le := binary.LittleEndian
	ft := uint8(0)
	if s.Incompat&IncompatFiletype != 0 {
		ft = FtDir
	}
	le.PutUint32(b[0:], self)
	s.putRecLen(b[4:], 12)
	b[6], b[7], b[8] = 1, ft, '.'
	le.PutUint32(b[12:], parent)
	s.putRecLen(b[16:], end-12)
	b[18], b[19], b[20], b[21] = 2, ft, '.', '.'
	return end
}

// SetDotDot points a directory's ".." (the second entry of its first
// block, linear or dx_root alike) at parent. EUCLEAN when it is not
// there.
func (s *Super) SetDotDot(b []byte, parent uint32) Errno {
	if b[12+6] != 2 || b[12+8] != '.' || b[12+9] != '.' {
		return EUCLEAN
	}
	binary.LittleEndian.PutUint32(b[12:], parent)
	return OK
}

// DxRoot reads an index root (block 0 of an indexed directory): its
// levels below the root, and the blocks its entries point at, into out
// (as many as fit). EUCLEAN when it is not a well-formed root.
func (s *Super) DxRoot(b []byte, out []uint32) (levels int, n int, e Errno) {
	countOff, _, _, e := s.dxTail(b)
	if e != OK || countOff != dxRootCount {
		return 0, 0, EUCLEAN
	}
	n, e = s.DxNode(b, out)
	return int(b[dxInfoLevelsOff]), n, e
}

// DxNode reads the blocks an index block's entries point at into out.
func (s *Super) DxNode(b []byte, out []uint32) (int, Errno) {
	countOff, count, _, e := s.dxTail(b)
	if e != OK {
		return 0, EUCLEAN
	}
	n := 0
	for i := uint32(0); i < count && n < len(out); i++ {
		out[n] = binary.LittleEndian.Uint32(b[countOff+i*dxEntrySize+4:])
		n++
	}
	return n, OK
}

// DirTypeOf is the entry file type of mode (ext4_type_by_mode), 0
// without the filetype feature.
func (s *Super) DirTypeOf(mode uint32) uint8 {
	if s.Incompat&IncompatFiletype == 0 {
		return FtUnknown
	}
	switch mode & SIFMT {
	case SIFREG:
		return FtReg
	case SIFDIR:
		return FtDir
	case SIFCHR:
		return FtChrdev
	case SIFBLK:
		return FtBlkdev
	case SIFIFO:
		return FtFifo
	case SIFSOCK:
		return FtSock
	case SIFLNK:
		return FtSymlink
	}
	return FtUnknown
}

// DirEmpty says whether a directory block holds no names but "." and
// ".." (ext4_empty_dir's test, a block at a time).
func (s *Super) DirEmpty(b []byte, end uint32) (bool, Errno) {
	var d DirEntry
	for off := uint32(0); off < end; {
		next, e := s.DirNext(b, off, end, &d)
		if e != OK {
			return false, e
		}
		if d.Ino != 0 && string(d.Name) != "." && string(d.Name) != ".." {
			return false, OK
		}
		off = next
	}
	return true, OK
}

// DirFind answers the inode and type of name in a block, ENOENT when it
// is not there.
func (s *Super) DirFind(b []byte, end uint32, name []byte) (uint32, uint8, Errno) {
	var d DirEntry
	if _, _, e := s.findEntry(b, end, name, &d); e != OK {
		return 0, 0, e
	}
	return d.Ino, d.Type, OK
}

// DirSetEntry points name's entry in a block at ino with type typ (a
// rename over an existing name), answering the inode it named; ENOENT
// when the block does not hold it.
func (s *Super) DirSetEntry(b []byte, end uint32, name []byte, ino uint32, typ uint8) (uint32, Errno) {
	var d DirEntry
	off, _, e := s.findEntry(b, end, name, &d)
	if e != OK {
		return 0, e
	}
	binary.LittleEndian.PutUint32(b[off:], ino)
	if s.Incompat&IncompatFiletype != 0 {
		b[off+7] = typ
	}
	return d.Ino, OK
}

// SetLeafBlockCsum sets a leaf block's tail checksum whatever the
// directory's index flag says (a block just made a leaf; SetDirBlockCsum
// for a leaf whose tail it has checked).
func (s *Super) SetLeafBlockCsum(in *Inode, b []byte) {
	if !s.HasCsum() {
		return
	}
	bs := s.BlockSize
	binary.LittleEndian.PutUint32(b[bs-direntTailLen+8:], Crc32c(in.CsumSeed, b[:bs-direntTailLen]))
}
