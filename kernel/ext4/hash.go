package ext4

import "encoding/binary"

// The htree's name hash (fs/ext4/hash.c) and the lookup through the index
// (dx_probe, ext4_dx_find_entry in fs/ext4/namei.c). dx_root_info names
// the hash (legacy, half_md4, tea); the superblock's
// EXT2_FLAGS_UNSIGNED_HASH picks the variant that reads name bytes as
// unsigned (mke2fs on an unsigned-char machine, as ARM64 is).
const (
	HashLegacy          = 0
	HashHalfMD4         = 1
	HashTea             = 2
	HashLegacyUnsigned  = 3
	HashHalfMD4Unsigned = 4
	HashTeaUnsigned     = 5

	flagsUnsignedHash = 0x0002 // EXT2_FLAGS_UNSIGNED_HASH
	htreeEOF32        = 0x7fffffff
	teaDelta          = 0x9E3779B9
	md4K2             = 0o13240474631
	md4K3             = 0o15666365641
	// maxDxLevels is ext4_dir_htree_level with large_dir (3), else 2.
	maxDxLevels      = 3
	dxInfoLevelsOff  = 30
	dxInfoHashVerOff = 28
)

func rol32(x uint32, s uint) uint32 { return x<<s | x>>(32-s) }

func teaTransform(buf *[4]uint32, in *[8]uint32) {
	var sum uint32
	b0, b1 := buf[0], buf[1]
	a, b, c, d := in[0], in[1], in[2], in[3]
	for n := 0; n < 16; n++ {
		sum += teaDelta
		b0 += ((b1 << 4) + a) ^ (b1 + sum) ^ ((b1 >> 5) + b)
		b1 += ((b0 << 4) + c) ^ (b0 + sum) ^ ((b0 >> 5) + d)
	}
	buf[0] += b0
	buf[1] += b1
}

func md4F(x, y, z uint32) uint32 { return z ^ (x & (y ^ z)) }
func md4G(x, y, z uint32) uint32 { return (x & y) + ((x ^ y) & z) }
func md4H(x, y, z uint32) uint32 { return x ^ y ^ z }

// halfMD4Transform is half_md4_transform: MD4's three rounds over eight
// words.
func halfMD4Transform(buf *[4]uint32, in *[8]uint32) {
	a, b, c, d := buf[0], buf[1], buf[2], buf[3]
	// Round 1: F, words in order, shifts 3 7 11 19.
	a = rol32(a+md4F(b, c, d)+in[0], 3)
	d = rol32(d+md4F(a, b, c)+in[1], 7)
	c = rol32(c+md4F(d, a, b)+in[2], 11)
	b = rol32(b+md4F(c, d, a)+in[3], 19)
	a = rol32(a+md4F(b, c, d)+in[4], 3)
	d = rol32(d+md4F(a, b, c)+in[5], 7)
	c = rol32(c+md4F(d, a, b)+in[6], 11)
	b = rol32(b+md4F(c, d, a)+in[7], 19)
	// Round 2: G, words 1 3 5 7 0 2 4 6, shifts 3 5 9 13.
	a = rol32(a+md4G(b, c, d)+in[1]+md4K2, 3)
	d = rol32(d+md4G(a, b, c)+in[3]+md4K2, 5)
	c = rol32(c+md4G(d, a, b)+in[5]+md4K2, 9)
	b = rol32(b+md4G(c, d, a)+in[7]+md4K2, 13)
	a = rol32(a+md4G(b, c, d)+in[0]+md4K2, 3)
	d = rol32(d+md4G(a, b, c)+in[2]+md4K2, 5)
	c = rol32(c+md4G(d, a, b)+in[4]+md4K2, 9)
	b = rol32(b+md4G(c, d, a)+in[6]+md4K2, 13)
	// Round 3: H, words 3 7 2 6 1 5 0 4, shifts 3 9 11 15.
	a = rol32(a+md4H(b, c, d)+in[3]+md4K3, 3)
	d = rol32(d+md4H(a, b, c)+in[7]+md4K3, 9)
	c = rol32(c+md4H(d, a, b)+in[2]+md4K3, 11)
	b = rol32(b+md4H(c, d, a)+in[6]+md4K3, 15)
	a = rol32(a+md4H(b, c, d)+in[1]+md4K3, 3)
	d = rol32(d+md4H(a, b, c)+in[5]+md4K3, 9)
	c = rol32(c+md4H(d, a, b)+in[0]+md4K3, 11)
	b = rol32(b+md4H(c, d, a)+in[4]+md4K3, 15)
	buf[0] += a
	buf[1] += b
	buf[2] += c
	buf[3] += d
}

// nameByte is a name byte as the hash reads it: signed char or unsigned.
func nameByte(c byte, unsigned bool) uint32 {
	if unsigned {
		return uint32(c)
	}
	return uint32(int32(int8(c)))
}

// str2hashbuf packs up to num*4 name bytes into words, padded with the
// length (str2hashbuf_signed/unsigned).
func str2hashbuf(msg []byte, in *[8]uint32, num int, unsigned bool) {
	l := uint32(len(msg))
	pad := l | l<<8
	pad |= pad << 16
	val := pad
	if len(msg) > num*4 {
		msg = msg[:num*4]
	}
	k := 0
	for i, c := range msg {
		val = nameByte(c, unsigned) + val<<8
		if i%4 == 3 {
			in[k] = val
			k++
			val = pad
			num--
		}
	}
	if num--; num >= 0 {
		in[k] = val
		k++
	}
	for num--; num >= 0; num-- {
		in[k] = pad
		k++
	}
}

func dxHackHash(name []byte, unsigned bool) uint32 {
	hash0, hash1 := uint32(0x12a3fe2d), uint32(0x37abe8f9)
	for _, c := range name {
		hash := hash1 + (hash0 ^ nameByte(c, unsigned)*7152373)
		if hash&0x80000000 != 0 {
			hash -= 0x7fffffff
		}
		hash1, hash0 = hash0, hash
	}
	return hash0 << 1
}

// DirHash is __ext4fs_dirhash: the major hash (low bit clear) and the
// minor one of name under hash version v with the superblock's seed.
func DirHash(name []byte, v uint8, seed *[4]uint32) (hash, minor uint32, e Errno) {
	buf := [4]uint32{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476}
	if seed != nil && (seed[0]|seed[1]|seed[2]|seed[3]) != 0 {
		buf = *seed
	}
	unsigned := v >= HashLegacyUnsigned
	switch v {
	case HashLegacy, HashLegacyUnsigned:
		hash = dxHackHash(name, unsigned)
	case HashHalfMD4, HashHalfMD4Unsigned:
		hashChunks(name, &buf, false, unsigned)
		hash, minor = buf[1], buf[2]
	case HashTea, HashTeaUnsigned:
		hashChunks(name, &buf, true, unsigned)
		hash, minor = buf[0], buf[1]
	default:
		return 0, 0, EOPNOTSUPP
	}
	hash &^= 1
	if hash == htreeEOF32<<1 {
		hash = (htreeEOF32 - 1) << 1
	}
	return hash, minor, OK
}

// hashChunks runs half_md4 over 32-byte chunks of name (8 words) or TEA
// over 16-byte ones (4 words), as __ext4fs_dirhash's loops.
func hashChunks(name []byte, buf *[4]uint32, tea, unsigned bool) {
	words, chunk := 8, 32
	if tea {
		words, chunk = 4, 16
	}
	for p := name; len(p) > 0; {
		var in [8]uint32
		str2hashbuf(p, &in, words, unsigned)
		if tea {
			teaTransform(buf, &in)
		} else {
			halfMD4Transform(buf, &in)
		}
		if len(p) <= chunk {
			break
		}
		p = p[chunk:]
	}
}

// dxLookup finds name through dir's htree (dx_probe, then
// ext4_dx_find_entry's leaf search and ext4_htree_next_block for names
// whose hash continues in the next leaf). EUCLEAN means the index is bad
// and the caller falls back to a linear search, as Linux does on
// ERR_BAD_DX_DIR.
func (r *Reader) dxLookup(dir *Inode, name []byte) (uint32, Errno) {
	le := binary.LittleEndian
	b, e := r.dirBlock(dir, 0)
	if e != OK {
		return 0, e
	}
	hv := b[dxInfoHashVerOff]
	if hv <= HashTea && r.Flags&flagsUnsignedHash != 0 {
		hv += HashLegacyUnsigned
	}
	levels := int(b[dxInfoLevelsOff])
	if levels >= maxDxLevels || (levels >= 2 && r.Incompat&IncompatLargedir == 0) {
		return 0, EUCLEAN
	}
	hash, _, e := DirHash(name, hv, &r.HashSeed)
	if e != OK {
		return 0, EUCLEAN
	}
	var path dxPath
	lblk, b, e := r.dxProbe(dir, b, hash, levels, &path)
	if e != OK {
		return 0, e
	}
	// Search the leaf; while the next index entry continues our hash,
	// the next leaf too.
	for tries := 0; tries < 1<<16; tries++ {
		_, end, e := r.CheckDirBlock(dir, lblk, b)
		if e != OK {
			return 0, e
		}
		var d DirEntry
		switch _, _, e := r.findEntry(b, end, name, &d); e {
		case OK:
			return d.Ino, OK
		case ENOENT:
		default:
			return 0, e
		}
		// ext4_htree_next_block: step the deepest level that has an
		// entry left, reload the path below it.
		lvl := levels
		for lvl >= 0 && path[lvl].at+1 >= path[lvl].count {
			lvl--
		}
		if lvl < 0 {
			return 0, ENOENT
		}
		path[lvl].at++
		ib, e := r.dirBlock(dir, path[lvl].lblk)
		if e != OK {
			return 0, e
		}
		countOff, _, _, e := r.dxTail(ib)
		if e != OK {
			return 0, EUCLEAN
		}
		ent := ib[countOff+path[lvl].at*dxEntrySize:]
		if le.Uint32(ent)&^1 != hash {
			return 0, ENOENT
		}
		lblk = le.Uint32(ent[4:])
		for l := lvl + 1; l <= levels; l++ {
			if ib, e = r.dirBlock(dir, lblk); e != OK {
				return 0, e
			}
			countOff, count, _, e := r.dxTail(ib)
			if e != OK || count == 0 {
				return 0, EUCLEAN
			}
			path[l].lblk, path[l].at, path[l].count = lblk, 0, count
			lblk = le.Uint32(ib[countOff+4:])
		}
		if b, e = r.dirBlock(dir, lblk); e != OK {
			return 0, e
		}
	}
	return 0, EUCLEAN
}

// dxPath is the index entries a lookup took on its way down, a level
// each: the index block, the entry's place in it, and how many it has.
type dxPath [maxDxLevels + 1]struct {
	lblk  uint32
	at    uint32 // index of the entry taken
	count uint32
}

// dxProbe is Linux's dx_probe: from the root (root, block 0) down
// levels+1 steps, taking at each level the last entry whose hash is <=
// hash, recorded in path; it returns the leaf (its logical block and
// bytes). EUCLEAN for an index that is not well formed.
func (r *Reader) dxProbe(dir *Inode, root []byte, hash uint32, levels int, path *dxPath) (uint32, []byte, Errno) {
	// lab:fs begin
	le := binary.LittleEndian
	b, lblk := root, uint32(0)
	for lvl := 0; ; lvl++ {
		countOff, count, _, e := r.dxTail(b)
		if e != OK || count == 0 {
			return 0, nil, EUCLEAN
		}
		at := uint32(0)
		for i := uint32(1); i < count; i++ {
			if le.Uint32(b[countOff+i*dxEntrySize:]) > hash {
				break
			}
			at = i
		}
		path[lvl].lblk, path[lvl].at, path[lvl].count = lblk, at, count
		lblk = le.Uint32(b[countOff+at*dxEntrySize+4:])
		if b, e = r.dirBlock(dir, lblk); e != OK {
			return 0, nil, e
		}
		if lvl == levels {
			return lblk, b, OK
		}
	}
	// lab:fs stub
	// // TODO(lab fs): from root (block 0) down levels+1 steps to the
	// // leaf. r.dxTail(b) gives where a block's (hash, block) pairs
	// // start (countOff) and how many there are (count; 0 is EUCLEAN);
	// // pair i is a le32 hash at countOff+i*dxEntrySize, then a le32
	// // block (pair 0's hash is not stored: it covers everything below
	// // pair 1's). Take the last pair whose hash is <= hash, record
	// // path[lvl] = {lblk, at, count}, read its block with r.dirBlock;
	// // after the step at lvl == levels that block is the leaf. Until
	// // then: EUCLEAN, and Lookup falls back on reading every block.
	// _, _, _, _, _ = dir, root, hash, levels, path
	// _ = binary.LittleEndian
	// return 0, nil, EUCLEAN
	// lab:fs end
}

// dirBlock reads block lblk of directory dir; a hole is corruption.
func (r *Reader) dirBlock(dir *Inode, lblk uint32) ([]byte, Errno) {
	if uint64(lblk)<<r.LogBlockSize >= dir.Size {
		return nil, EUCLEAN
	}
	var m Mapping
	if e := r.MapBlock(dir, lblk, &m); e != OK {
		return nil, e
	}
	if m.Hole || m.Unwritten {
		return nil, EUCLEAN
	}
	b, e := r.block(m.Phys)
	if e != OK {
		return nil, e
	}
	if r.isDxBlock(dir, lblk, b) {
		if _, _, e := r.CheckDirBlock(dir, lblk, b); e != OK {
			return nil, e
		}
	}
	return b, OK
}
