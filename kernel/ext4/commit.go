package ext4

import "encoding/binary"

// The journal's write side (fs/jbd2/commit.c, jbd2_journal_commit_transaction):
// the blocks a transaction puts in the log, each the inverse of what the
// replay planner parses (journal.go), so that jbd2's own recovery (and
// e2fsck's) replays them. A transaction is laid out from a log block on,
// around the ring (NextLogBlock):
//
//	descriptor: header, then a tag a logged block (its home, flags, the
//	            checksum of its logged copy); the first tag is followed by
//	            the journal's UUID, the others say SAME_UUID, the last
//	            says LAST_TAG; with checksums v2/v3 a tail holds the
//	            block's checksum
//	copies:     the new contents of each home block, in the tags' order,
//	            a copy starting with the jbd2 magic escaped (its first
//	            word zeroed, the tag saying ESCAPE) so no copy looks like
//	            a journal block
//	...more descriptors and copies when the tags do not fit one block
//	commit:     header, its checksum (v2/v3) and the commit time
//
// Written in that order, with the device flushed before the commit block
// (and after it), the transaction is in the log only once its commit is:
// a crash before leaves a log the replay stops short of.

// JournalTag is one logged block of a transaction: its home block, the
// checksum of its logged copy, and whether the copy was escaped.
type JournalTag struct {
	Home    uint64
	Csum    uint32
	Escaped bool
}

// Commit block fields (struct commit_header).
const (
	jbdCommitSecOff  = 48 // h_commit_sec, be64
	jbdCommitNsecOff = 56 // h_commit_nsec, be32
)

// Journal superblock fields the writer sets (journal_superblock_t).
const (
	jbdIncompatOff = 40
	jbdCsumTypeOff = 80
)

// UseFeatures turns on, in journal superblock b (a version 2 one, the
// journal empty), what a volume's writer logs with, as ext4's mount does
// before its first transaction (set_journal_csum_feature_set, and 64bit
// for a 64bit volume): csumV3 (metadata_csum: JbdIncompatCsumV3, the
// crc32c type, v2 and v1 checksums off) and is64 (JbdIncompat64bit), and
// the revoke records. false for a version 1 superblock, which has no
// features.
func (j *Journal) UseFeatures(b []byte, csumV3, is64 bool) bool {
	if j.Version != 2 {
		return false
	}
	j.Incompat |= JbdIncompatRevoke
	if csumV3 {
		j.Incompat = j.Incompat&^JbdIncompatCsumV2 | JbdIncompatCsumV3
		j.Compat &^= jbdCompatChecksum
		b[jbdCsumTypeOff] = jbdCsumTypeCrc32c
		j.CsumSeed = Crc32c(^uint32(0), j.UUID[:])
	}
	if is64 {
		j.Incompat |= JbdIncompat64bit
	}
	be := binary.BigEndian
	be.PutUint32(b[jbdIncompatOff-4:], j.Compat)
	be.PutUint32(b[jbdIncompatOff:], j.Incompat)
	j.setTagSize()
	j.setSuperCsum(b)
	return true
}

// NextLogBlock is the log block after b, around the ring [First, MaxLen).
func (j *Journal) NextLogBlock(b uint32) uint32 { return j.wrap(b) }

// TagsPerBlock is how many tags one descriptor block holds: the header,
// the first tag with the UUID, then tags alone, less the tail.
func (j *Journal) TagsPerBlock() int {
	room := j.BlockSize - jbdHeaderSize
	if j.csumV2or3() {
		room -= jbdTailSize
	}
	if room < j.tagSize+jbdUUIDSize {
		return 0
	}
	return 1 + int((room-j.tagSize-jbdUUIDSize)/j.tagSize)
}

// LogCopy readies d, a copy of a home block's new contents for the log:
// a copy that starts with the jbd2 magic is escaped, and the tag gets the
// checksum of the copy as logged (jbd2_block_tag_csum_set, over the
// escaped bytes, as the replay checks them before unescaping).
func (j *Journal) LogCopy(d []byte, seq uint32, home uint64) JournalTag {
	t := JournalTag{Home: home}
	be := binary.BigEndian
	if be.Uint32(d) == jbdMagic {
		be.PutUint32(d, 0)
		t.Escaped = true
	}
	if j.csumV2or3() {
		var s [4]byte
		be.PutUint32(s[:], seq)
		t.Csum = Crc32c(Crc32c(j.CsumSeed, s[:]), d[:j.BlockSize])
	}
	return t
}

// PutDescriptor writes descriptor block b of transaction seq holding tags
// (at most TagsPerBlock; the copies follow it in the same order).
func (j *Journal) PutDescriptor(b []byte, seq uint32, tags []JournalTag) {
	be := binary.BigEndian
	clear(b[:j.BlockSize])
	j.putHeader(b, jbdDescriptor, seq)
	off := uint32(jbdHeaderSize)
	for k, t := range tags {
		flags := uint32(0)
		if t.Escaped {
			flags |= jbdFlagEscape
		}
		if k > 0 {
			flags |= jbdFlagSameUUID
		}
		if k == len(tags)-1 {
			flags |= jbdFlagLastTag
		}
		x := b[off:]
		be.PutUint32(x[0:], uint32(t.Home))
		if j.Incompat&JbdIncompatCsumV3 != 0 {
			be.PutUint32(x[4:], flags)
			if j.Incompat&JbdIncompat64bit != 0 {
				be.PutUint32(x[8:], uint32(t.Home>>32))
			}
			be.PutUint32(x[12:], t.Csum)
		} else {
			be.PutUint16(x[4:], uint16(t.Csum))
			be.PutUint16(x[6:], uint16(flags))
			if j.Incompat&JbdIncompat64bit != 0 {
				be.PutUint32(x[8:], uint32(t.Home>>32))
			}
		}
		off += j.tagSize
		if k == 0 {
			copy(b[off:], j.UUID[:])
			off += jbdUUIDSize
		}
	}
	j.setTail(b)
}

// PutCommit writes the commit block of transaction seq, committed at
// sec.nsec (jbd2's h_commit_sec, h_commit_nsec), with its checksum
// (jbd2_commit_block_csum_set: h_chksum_type and size stay 0 for v2/v3).
func (j *Journal) PutCommit(b []byte, seq uint32, sec uint64, nsec uint32) {
	be := binary.BigEndian
	clear(b[:j.BlockSize])
	j.putHeader(b, jbdCommit, seq)
	be.PutUint64(b[jbdCommitSecOff:], sec)
	be.PutUint32(b[jbdCommitNsecOff:], nsec)
	if j.csumV2or3() {
		be.PutUint32(b[jbdCommitCsumOff:], Crc32c(j.CsumSeed, b[:j.BlockSize]))
	}
}

// MarkLog makes journal superblock b (the journal's block 0) say the log
// starts at block start with transaction seq (jbd2_journal_update_sb_log_tail),
// with its checksum: a mount after a crash replays from there. Start 0
// says the log is empty and seq is the next transaction, as recovery and
// a checkpoint leave it (jbd2_mark_journal_empty; after a replay seq is
// one past the last replayed, jbd2_journal_recover's ++end_transaction):
// a later log can never be mistaken for the transactions before.
func (j *Journal) MarkLog(b []byte, start, seq uint32) {
	be := binary.BigEndian
	be.PutUint32(b[24:], seq)
	be.PutUint32(b[28:], start)
	j.setSuperCsum(b)
	j.Sequence, j.Start = seq, start
}

// putHeader writes a journal block's header (journal_header_t).
func (j *Journal) putHeader(b []byte, kind, seq uint32) {
	be := binary.BigEndian
	be.PutUint32(b[0:], jbdMagic)
	be.PutUint32(b[4:], kind)
	be.PutUint32(b[8:], seq)
}

// setTail stores a descriptor (or revoke) block's checksum in its tail
// (jbd2_descriptor_block_csum_set).
func (j *Journal) setTail(b []byte) {
	if !j.csumV2or3() {
		return
	}
	t := j.BlockSize - jbdTailSize
	binary.BigEndian.PutUint32(b[t:], 0)
	binary.BigEndian.PutUint32(b[t:], Crc32c(j.CsumSeed, b[:j.BlockSize]))
}
