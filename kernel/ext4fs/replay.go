package ext4fs

import (
	"github.com/gometal/gometal/kernel/bcache"
	"github.com/gometal/gometal/kernel/block"
	"github.com/gometal/gometal/kernel/ext4"
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// The journal's recovery at mount (fs/jbd2/recovery.c; ext4_load_journal).
// A volume whose superblock says needs_recovery was not unmounted cleanly:
// its journal holds committed transactions whose blocks may not all have
// reached their home. Mount replays them before it reads anything else,
// as Linux does even for a read-only mount of a writable device:
//
//  1. plan: ext4.Journal.PlanReplay's three passes over the journal inode
//     (scan to the last good commit, collect revokes, list for each home
//     block its newest logged copy no later revoke names);
//  2. write each such copy home (unescaped), then flush;
//  3. mark the journal empty with the next sequence past the replayed
//     ones (jbd2's ++end_transaction), then flush;
//  4. take needs_recovery off the superblock, then flush.
//
// Each step is durable before the next starts, so a crash anywhere leaves
// a volume the next mount replays again to the same result: writing a
// block home twice changes nothing. A read-only device cannot be
// recovered (EROFS, "try mounting with noload"), as Linux answers.

// Bounds of a replay's plan, in kernel memory: a journal with more
// distinct home blocks or revokes than this is refused (EFBIG from the
// planner) and left for e2fsck. mke2fs gives a volume under 1 GiB a
// journal of at most 16,384 blocks (ext2fs_default_journal_size), most
// of them never in one unreplayed log.
const (
	maxReplayWrites  = 8192
	maxReplayRevokes = 4096
)

var (
	replayWrites  [maxReplayWrites]ext4.JournalWrite
	replayRevokes [maxReplayRevokes]ext4.JournalRevoke
	replayPlan    ext4.ReplayPlan
	jnl           ext4.Journal
	jnlInode      ext4.Inode
	jsrc          journalSource
	// blockBuf is the block being written home, sbBuf the superblock.
	blockBuf [mm.PageSize]byte
	sbBuf    [sbSize]byte
)

// readJournal reads v's journal inode into jnlInode and its superblock
// into jnl (jsrc serving the journal's blocks), and returns the
// superblock's block; inodeOK is false when the journal inode cannot be
// read, e the superblock's parse (ParseJournal's answer) otherwise.
func readJournal(v *volume) (sb []byte, inodeOK bool, e ext4.Errno) {
	r := &v.r
	if r.JournalInum == 0 || r.Inode(r.JournalInum, &jnlInode) != ext4.OK {
		return nil, false, ext4.EINVAL
	}
	jnl = ext4.Journal{}
	jsrc.v = v
	sb, e = jsrc.Block(0)
	if e == ext4.OK {
		e = ext4.ParseJournal(sb, r.BlockSize, jnlInode.Size/uint64(r.BlockSize), &jnl)
	}
	return sb, true, e
}

// journalSource serves the journal inode's logical blocks (what the
// planner calls journal block n) from the volume.
type journalSource struct{ v *volume }

func (s *journalSource) Block(n uint64) ([]byte, ext4.Errno) {
	phys, e := s.phys(n)
	if e != ext4.OK {
		return nil, e
	}
	return s.v.src.Block(phys)
}

// phys is where journal block n lies on the volume.
func (s *journalSource) phys(n uint64) (uint64, ext4.Errno) {
	if n >= uint64(jnl.MaxLen) && jnl.MaxLen != 0 || n > uint64(^uint32(0)) {
		return 0, ext4.EUCLEAN
	}
	var m ext4.Mapping
	if e := s.v.r.MapBlock(&jnlInode, uint32(n), &m); e != ext4.OK {
		return 0, e
	}
	if m.Hole || m.Unwritten || m.Phys >= s.v.r.BlocksCount {
		return 0, ext4.EUCLEAN // the journal has no holes (jbd2_journal_bmap)
	}
	return m.Phys, ext4.OK
}

// recover replays v's journal (the steps above); the reason for a
// refusal goes to the log.
func recoverJournal(v *volume) unix.Errno {
	r := &v.r
	if block.Disks[v.disk].ReadOnly {
		say(v, levelErr, "write access unavailable, cannot proceed (try mounting with noload)")
		return unix.EROFS
	}
	say(v, levelInfo, "recovering the journal")
	bs := uint64(r.BlockSize)
	if r.BlocksCount > v.sectors/(bs/bcache.SectorSize) {
		say(v, levelErr, "block count exceeds the size of the device")
		return unix.EINVAL
	}
	_, inodeOK, e := readJournal(v)
	if !inodeOK {
		say(v, levelErr, "the journal inode cannot be read: e2fsck it")
		return unix.EINVAL
	}
	switch e {
	case ext4.OK:
	case ext4.EOPNOTSUPP:
		say(v, levelErr, "the journal uses a feature this kernel does not know (fast commits?): e2fsck it")
		return unix.EINVAL
	default:
		return refuse(v, e, "the journal superblock cannot be read", "the journal superblock is corrupt: e2fsck it")
	}
	switch e := jnl.PlanReplay(&jsrc, replayWrites[:], replayRevokes[:], &replayPlan); e {
	case ext4.OK:
	case ext4.EFBIG:
		say(v, levelErr, "the journal holds more than this kernel replays at once: e2fsck it")
		return unix.EINVAL
	default:
		return refuse(v, e, "I/O error reading the journal", "the journal is corrupt: e2fsck it")
	}
	spb := bs / bcache.SectorSize
	for _, w := range replayPlan.Writes {
		if w.Home >= r.BlocksCount {
			say(v, levelErr, "the journal names a block outside the file system: e2fsck it")
			return unix.EINVAL
		}
		lb, e := jsrc.Block(uint64(w.JBlock))
		if e != ext4.OK {
			say(v, levelErr, "I/O error reading the journal")
			return unix.EIO
		}
		blk := blockBuf[:bs]
		copy(blk, lb)
		if w.Escaped {
			ext4.Unescape(blk)
		}
		if bcache.Write(v.disk, v.start+w.Home*spb, blk) != 0 {
			say(v, levelErr, "I/O error writing the journal's blocks home")
			return unix.EIO
		}
	}
	if bcache.Flush(v.disk) != 0 {
		say(v, levelErr, "I/O error flushing the replayed blocks")
		return unix.EIO
	}
	// The journal is empty from here on, with the next sequence past
	// the replayed ones, and the volume no longer needs recovery.
	if markJournal(v, 0, replayPlan.EndSeq+1, false) != 0 || bcache.Flush(v.disk) != 0 {
		say(v, levelErr, "I/O error marking the journal empty")
		return unix.EIO
	}
	if replayPlan.BadData != 0 {
		say(v, levelErr, "journal blocks with a bad checksum were not replayed: e2fsck it")
	}
	say(v, levelInfo, "recovery complete")
	return 0
}

// refuse logs why the replay cannot go on and answers mount: ioLine and
// EIO for a read the device failed, else badLine and EINVAL (what is on
// the disk is not a journal this kernel can replay).
func refuse(v *volume, e ext4.Errno, ioLine, badLine string) unix.Errno {
	if e == ext4.EIO {
		say(v, levelErr, ioLine)
		return unix.EIO
	}
	say(v, levelErr, badLine)
	return unix.EINVAL
}
