package ext4

import "encoding/binary"

// The journal's format (jbd2: include/linux/jbd2.h, fs/jbd2/recovery.c),
// kept here beside the rest of the format so that mount can replay it
// without an import cycle. Every field is big-endian. The journal is a
// ring of blocks [First, MaxLen) (logical blocks of the journal inode);
// a transaction is descriptor blocks (each a list of tags: home block,
// flags, checksum), the logged copies that follow them, revoke blocks,
// and a commit block. Recovery replays, in order, every transaction whose
// commit block is found and good, skipping any home block a revoke of the
// same or a later transaction names.
const (
	jbdMagic = 0xC03B3998

	jbdDescriptor = 1
	jbdCommit     = 2
	jbdSuperV1    = 3
	jbdSuperV2    = 4
	jbdRevoke     = 5

	jbdCompatChecksum   = 0x1
	JbdIncompatRevoke   = 0x1
	JbdIncompat64bit    = 0x2
	JbdIncompatAsync    = 0x4
	JbdIncompatCsumV2   = 0x8
	JbdIncompatCsumV3   = 0x10
	JbdIncompatFastComm = 0x20
	jbdKnownIncompat    = JbdIncompatRevoke | JbdIncompat64bit | JbdIncompatAsync |
		JbdIncompatCsumV2 | JbdIncompatCsumV3

	jbdHeaderSize     = 12
	jbdSuperSize      = 1024 // sizeof(journal_superblock_t)
	jbdSuperCsumOff   = 0xFC
	jbdCsumTypeCrc32c = 4 // JBD2_CRC32C_CHKSUM
	jbdTailSize       = 4 // struct jbd2_journal_block_tail
	jbdRevokeHdrSize  = 16
	jbdCommitCsumOff  = 16 // h_chksum[0]

	// Tag flags (JBD2_FLAG_*).
	jbdFlagEscape   = 1
	jbdFlagSameUUID = 2
	jbdFlagLastTag  = 8
	jbdUUIDSize     = 16
)

// Journal is a parsed journal superblock.
type Journal struct {
	BlockSize uint32
	MaxLen    uint32 // blocks in the journal
	First     uint32 // first log block
	Sequence  uint32 // first transaction expected at Start
	Start     uint32 // first block of the log; 0: the journal is empty
	Errno     int32
	Compat    uint32
	Incompat  uint32
	RoCompat  uint32
	UUID      [16]byte
	Version   uint8 // 1 or 2
	CsumSeed  uint32
	tagSize   uint32
}

func (j *Journal) csumV2or3() bool {
	return j.Incompat&(JbdIncompatCsumV2|JbdIncompatCsumV3) != 0
}

// ParseJournal parses and checks the journal superblock (the journal's
// block 0; blockSize the file system's, blocks the journal inode's length
// in blocks) as journal_load and jbd2_journal_check_used_features do: a
// journal longer than its file is "journal file too short".
func ParseJournal(b []byte, blockSize uint32, blocks uint64, j *Journal) Errno {
	if len(b) < jbdSuperSize {
		return EINVAL
	}
	be := binary.BigEndian
	if be.Uint32(b[0:]) != jbdMagic {
		return EUCLEAN
	}
	*j = Journal{}
	switch be.Uint32(b[4:]) {
	case jbdSuperV1:
		j.Version = 1
	case jbdSuperV2:
		j.Version = 2
	default:
		return EUCLEAN
	}
	j.BlockSize = be.Uint32(b[12:])
	j.MaxLen = be.Uint32(b[16:])
	j.First = be.Uint32(b[20:])
	j.Sequence = be.Uint32(b[24:])
	j.Start = be.Uint32(b[28:])
	j.Errno = int32(be.Uint32(b[32:]))
	if j.Version == 2 {
		j.Compat = be.Uint32(b[36:])
		j.Incompat = be.Uint32(b[40:])
		j.RoCompat = be.Uint32(b[44:])
		copy(j.UUID[:], b[48:64])
	}
	if j.BlockSize != blockSize || j.MaxLen < 2 || uint64(j.MaxLen) > blocks || j.First == 0 || j.First >= j.MaxLen ||
		(j.Start != 0 && (j.Start < j.First || j.Start >= j.MaxLen)) {
		return EUCLEAN
	}
	if j.Incompat&^jbdKnownIncompat != 0 || j.RoCompat != 0 {
		return EOPNOTSUPP // fast commits, or a feature jbd2 does not know
	}
	if j.Incompat&JbdIncompatCsumV2 != 0 && j.Incompat&JbdIncompatCsumV3 != 0 {
		return EUCLEAN // "Can't enable checksumming v2 and v3 at the same time"
	}
	if j.csumV2or3() {
		if j.Compat&jbdCompatChecksum != 0 || b[80] != jbdCsumTypeCrc32c {
			return EUCLEAN
		}
		if superCsum(b) != be.Uint32(b[jbdSuperCsumOff:]) {
			return EBADMSG
		}
		j.CsumSeed = Crc32c(^uint32(0), j.UUID[:])
	}
	j.setTagSize()
	return OK
}

// setTagSize is journal_tag_bytes: what one descriptor tag takes.
func (j *Journal) setTagSize() {
	switch {
	case j.Incompat&JbdIncompatCsumV3 != 0:
		j.tagSize = 16
	default:
		j.tagSize = 12
		if j.Incompat&JbdIncompatCsumV2 != 0 {
			j.tagSize += 2
		}
		if j.Incompat&JbdIncompat64bit == 0 {
			j.tagSize -= 4
		}
	}
}

// JournalWrite is one home block replay writes: the logged copy at
// journal block JBlock, from transaction Seq; Escaped means its first four
// bytes must become the jbd2 magic again (JBD2_FLAG_ESCAPE).
type JournalWrite struct {
	Home    uint64
	JBlock  uint32
	Seq     uint32
	Escaped bool
}

// JournalRevoke is a home block revoked by transaction Seq (the latest
// one that revokes it).
type JournalRevoke struct {
	Block uint64
	Seq   uint32
}

// ReplayPlan is what PlanReplay found: transactions [FirstSeq, EndSeq)
// committed, and the writes and revokes in the caller's slices.
type ReplayPlan struct {
	FirstSeq, EndSeq uint32
	Writes           []JournalWrite
	Revokes          []JournalRevoke
	BadData          int // logged blocks whose tag checksum failed: not written
}

// wrap is the next log block after b, around the ring.
func (j *Journal) wrap(b uint32) uint32 {
	if b+1 >= j.MaxLen {
		return j.First
	}
	return b + 1
}

// logBlock reads journal block n and checks the header's magic and
// sequence; ok false ends the log.
func (j *Journal) logBlock(src Source, n uint32, seq uint32) (b []byte, kind uint32, ok bool, e Errno) {
	b, e = src.Block(uint64(n))
	if e != OK {
		return nil, 0, false, e
	}
	if len(b) < int(j.BlockSize) {
		return nil, 0, false, EIO
	}
	be := binary.BigEndian
	if be.Uint32(b[0:]) != jbdMagic || be.Uint32(b[8:]) != seq {
		return b, 0, false, OK
	}
	return b, be.Uint32(b[4:]), true, OK
}

// blockTailOK checks a descriptor or revoke block's jbd2_journal_block_tail.
func (j *Journal) blockTailOK(b []byte) bool {
	if !j.csumV2or3() {
		return true
	}
	var zero [jbdTailSize]byte
	t := j.BlockSize - jbdTailSize
	c := Crc32c(j.CsumSeed, b[:t])
	c = Crc32c(c, zero[:])
	return c == binary.BigEndian.Uint32(b[t:])
}

func (j *Journal) commitOK(b []byte) bool {
	if !j.csumV2or3() {
		return true
	}
	var zero [4]byte
	c := Crc32c(j.CsumSeed, b[:jbdCommitCsumOff])
	c = Crc32c(c, zero[:])
	c = Crc32c(c, b[jbdCommitCsumOff+4:j.BlockSize])
	return c == binary.BigEndian.Uint32(b[jbdCommitCsumOff:])
}

// tag is one parsed descriptor tag.
type tag struct {
	home  uint64
	flags uint32
	csum  uint32
	next  uint32 // offset of the next tag
}

// parseTag reads the tag at off of a descriptor block; ok false when no
// tag fits (the block's end, less its tail).
func (j *Journal) parseTag(b []byte, off uint32, t *tag) bool {
	end := j.BlockSize
	if j.csumV2or3() {
		end -= jbdTailSize
	}
	if off+j.tagSize > end {
		return false
	}
	be := binary.BigEndian
	x := b[off:]
	t.home = uint64(be.Uint32(x[0:]))
	if j.Incompat&JbdIncompatCsumV3 != 0 {
		t.flags = be.Uint32(x[4:])
		if j.Incompat&JbdIncompat64bit != 0 {
			t.home |= uint64(be.Uint32(x[8:])) << 32
		}
		t.csum = be.Uint32(x[12:])
	} else {
		t.csum = uint32(be.Uint16(x[4:]))
		t.flags = uint32(be.Uint16(x[6:]))
		if j.Incompat&JbdIncompat64bit != 0 {
			t.home |= uint64(be.Uint32(x[8:])) << 32
		}
	}
	t.next = off + j.tagSize
	if t.flags&jbdFlagSameUUID == 0 {
		t.next += jbdUUIDSize
	}
	if t.next > end {
		return false
	}
	return true
}

// dataCsumOK is jbd2_block_tag_csum_verify: crc32c of the sequence
// (big-endian) and the logged block, 32 bits in v3, the low 16 in v2.
func (j *Journal) dataCsumOK(d []byte, seq uint32, t *tag) bool {
	if !j.csumV2or3() {
		return true
	}
	var s [4]byte
	binary.BigEndian.PutUint32(s[:], seq)
	c := Crc32c(Crc32c(j.CsumSeed, s[:]), d[:j.BlockSize])
	if j.Incompat&JbdIncompatCsumV3 != 0 {
		return c == t.csum
	}
	return uint16(c) == uint16(t.csum)
}

// scan passes of do_one_pass.
const (
	passScan = iota
	passRevoke
	passReplay
)

// PlanReplay plans the recovery of a journal whose Start is not 0: the
// three passes of fs/jbd2/recovery.c over src (journal block n is the
// journal inode's logical block n). The scan finds the last transaction
// whose commit block is there and good (a bad descriptor or commit
// checksum ends the log there, as a torn write does); the revoke pass
// collects the revoke records of those transactions; the replay pass
// lists, for each home block, the newest logged copy no later revoke
// names. writes and revokes are the caller's storage (no heap); too small
// is EFBIG. Each pass reads at most MaxLen blocks, so a corrupt journal
// cannot make it loop.
func (j *Journal) PlanReplay(src Source, writes []JournalWrite, revokes []JournalRevoke, p *ReplayPlan) Errno {
	*p = ReplayPlan{FirstSeq: j.Sequence, EndSeq: j.Sequence}
	if j.Start == 0 {
		return OK
	}
	end, e := j.pass(src, passScan, j.Sequence, p, writes, revokes)
	if e != OK {
		return e
	}
	p.EndSeq = end
	if _, e := j.pass(src, passRevoke, end, p, writes, revokes); e != OK {
		return e
	}
	_, e = j.pass(src, passReplay, end, p, writes, revokes)
	return e
}

// pass walks the log from Start. In the scan it returns the first
// sequence not committed; the others stop at end.
func (j *Journal) pass(src Source, pass int, end uint32, p *ReplayPlan, writes []JournalWrite, revokes []JournalRevoke) (uint32, Errno) {
	seq := j.Sequence
	blk := j.Start
	for steps := uint32(0); steps < j.MaxLen; steps++ {
		if pass != passScan && seq == end {
			return seq, OK
		}
		b, kind, ok, e := j.logBlock(src, blk, seq)
		if e != OK {
			return seq, e
		}
		if !ok {
			return seq, OK
		}
		switch kind {
		case jbdDescriptor:
			if !j.blockTailOK(b) {
				return seq, OK
			}
			var t tag
			off := uint32(jbdHeaderSize)
			for j.parseTag(b, off, &t) {
				blk = j.wrap(blk)
				steps++
				if pass == passReplay {
					d, e := src.Block(uint64(blk))
					if e != OK {
						return seq, e
					}
					if len(d) < int(j.BlockSize) {
						return seq, EIO
					}
					if !j.dataCsumOK(d, seq, &t) {
						p.BadData++
					} else if e := p.addWrite(writes, &t, blk, seq); e != OK {
						return seq, e
					}
				}
				off = t.next
				if t.flags&jbdFlagLastTag != 0 {
					break
				}
			}
		case jbdCommit:
			if !j.commitOK(b) {
				return seq, OK
			}
			seq++
		case jbdRevoke:
			if !j.blockTailOK(b) {
				return seq, OK
			}
			if pass == passRevoke {
				if e := p.addRevokes(j, b, seq, revokes); e != OK {
					return seq, e
				}
			}
		default:
			// recovery.c: an unknown block type ends the log.
			return seq, OK
		}
		blk = j.wrap(blk)
	}
	return seq, OK
}

// addRevokes records a revoke block's entries (4 or 8 bytes, up to
// r_count) at sequence seq: the latest revoke of a block wins.
func (p *ReplayPlan) addRevokes(j *Journal, b []byte, seq uint32, revokes []JournalRevoke) Errno {
	be := binary.BigEndian
	count := be.Uint32(b[jbdHeaderSize:])
	rec := uint32(4)
	if j.Incompat&JbdIncompat64bit != 0 {
		rec = 8
	}
	max := j.BlockSize
	if j.csumV2or3() {
		max -= jbdTailSize
	}
	if count > max || count < jbdRevokeHdrSize {
		return EUCLEAN
	}
	for off := uint32(jbdRevokeHdrSize); off+rec <= count; off += rec {
		var blk uint64
		if rec == 8 {
			blk = be.Uint64(b[off:])
		} else {
			blk = uint64(be.Uint32(b[off:]))
		}
		found := false
		for i := range p.Revokes {
			if p.Revokes[i].Block == blk {
				p.Revokes[i].Seq = seq
				found = true
				break
			}
		}
		if found {
			continue
		}
		if len(p.Revokes) == len(revokes) {
			return EFBIG
		}
		revokes[len(p.Revokes)] = JournalRevoke{Block: blk, Seq: seq}
		p.Revokes = revokes[:len(p.Revokes)+1]
	}
	return OK
}

// addWrite plans a logged copy unless a revoke at seq or later names its
// home (jbd2_journal_test_revoke), replacing an earlier transaction's.
func (p *ReplayPlan) addWrite(writes []JournalWrite, t *tag, jblk, seq uint32) Errno {
	for i := range p.Revokes {
		if p.Revokes[i].Block == t.home && int32(p.Revokes[i].Seq-seq) >= 0 {
			return OK
		}
	}
	w := JournalWrite{Home: t.home, JBlock: jblk, Seq: seq, Escaped: t.flags&jbdFlagEscape != 0}
	for i := range p.Writes {
		if p.Writes[i].Home == t.home {
			p.Writes[i] = w
			return OK
		}
	}
	if len(p.Writes) == len(writes) {
		return EFBIG
	}
	writes[len(p.Writes)] = w
	p.Writes = writes[:len(p.Writes)+1]
	return OK
}

// superCsum is jbd2_superblock_csum: crc32c from ~0 of the superblock
// with its checksum field taken as zero.
func superCsum(b []byte) uint32 {
	var zero [4]byte
	c := Crc32c(^uint32(0), b[:jbdSuperCsumOff])
	c = Crc32c(c, zero[:])
	return Crc32c(c, b[jbdSuperCsumOff+4:jbdSuperSize])
}

// setSuperCsum stores the journal superblock's checksum (v2/v3).
func (j *Journal) setSuperCsum(b []byte) {
	if j.csumV2or3() {
		binary.BigEndian.PutUint32(b[jbdSuperCsumOff:], superCsum(b))
	}
}

// Unescape restores a logged block's first word (JBD2_FLAG_ESCAPE: the
// block began with the magic, which the journal stores as zero).
func Unescape(b []byte) { binary.BigEndian.PutUint32(b[0:], jbdMagic) }
