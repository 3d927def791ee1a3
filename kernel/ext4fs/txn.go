package ext4fs

import (
	"github.com/gometal/gometal/kernel/bcache"
	"github.com/gometal/gometal/kernel/ext4"
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// A journaled transaction (jbd2's, one at a time and checkpointed at
// once): the metadata blocks one change dirties, logged to the journal
// and committed before any of them is written home, so that a crash at
// any moment leaves the change wholly done or wholly undone once the
// next mount replays the journal (replay.go). The journal is empty
// between transactions; commit runs four steps, each durable (a flush)
// before the next:
//
//  1. the logged copies and their descriptor blocks from the journal's
//     first log block, the journal superblock's log start (s_start,
//     s_sequence) and needs_recovery on the volume;
//  2. the commit block: from here a crash keeps the change (replayed);
//  3. the blocks written home;
//  4. the journal marked empty with the next sequence, needs_recovery off.
//
// Built and host-tested (txn_test.go: e2fsck checks every step's crash);
// ext4's fs.Writer, which will make its changes through it, is not yet
// (docs/ARCHITECTURE.md, "Storage").

// maxTxnBlocks bounds one transaction's blocks (a create dirties a
// handful: bitmaps, group descriptors, the inode table block, the
// directory block, the superblock).
const maxTxnBlocks = 64

// txn is the running transaction, in package memory (a block each).
type txn struct {
	v     *volume
	n     int
	homes [maxTxnBlocks]uint64
	bufs  [maxTxnBlocks][mm.PageSize]byte
	tags  [maxTxnBlocks]ext4.JournalTag
}

var (
	tx      txn
	logBuf  [mm.PageSize]byte // a copy as logged (escaped)
	journal struct {
		v    *volume // the volume whose journal jnl is open for writing
		open bool
	}
)

// openJournal readies v's journal for transactions: it must be empty
// (replayed at mount), and it gets the features ext4's mount turns on
// (checksums v3 with metadata_csum, 64-bit tags with 64bit), written
// and flushed.
func openJournal(v *volume) unix.Errno {
	r := &v.r
	b, inodeOK, e := readJournal(v)
	if !inodeOK || e != ext4.OK || jnl.Start != 0 {
		return unix.EINVAL
	}
	blk := blockBuf[:r.BlockSize]
	copy(blk, b)
	if !jnl.UseFeatures(blk, r.RoCompat&ext4.RoCompatMetadataCsum != 0, r.Incompat&ext4.Incompat64bit != 0) {
		return unix.EINVAL
	}
	if e := writeLog(v, 0, blk); e != 0 {
		return e
	}
	if e := bcache.Flush(v.disk); e != 0 {
		return e
	}
	journal.v, journal.open = v, true
	return 0
}

// begin starts a transaction on v.
func (t *txn) begin(v *volume) { t.v, t.n = v, 0 }

// get returns the transaction's copy of block home, to change: read
// through the buffer cache the first time it is got.
func (t *txn) get(home uint64) ([]byte, unix.Errno) {
	bs := t.v.r.BlockSize
	for k := 0; k < t.n; k++ {
		if t.homes[k] == home {
			return t.bufs[k][:bs], 0
		}
	}
	if t.n == maxTxnBlocks {
		return nil, unix.EFBIG
	}
	b, e := t.v.src.Block(home)
	if e != ext4.OK {
		return nil, unix.EIO
	}
	k := t.n
	t.n++
	t.homes[k] = home
	copy(t.bufs[k][:bs], b)
	return t.bufs[k][:bs], 0
}

// commitThrough values: how far commit goes (the tests stop it short,
// as a crash would).
const (
	txnLogged    = 1 // step 1 done
	txnCommitted = 2 // step 2 done: the change survives a crash
	txnHome      = 3 // step 3 done
	txnDone      = 4 // all of it
)

// commit runs the transaction's steps through step upTo (txnDone in use),
// sec.nsec its commit time.
func (t *txn) commit(upTo int, sec uint64, nsec uint32) unix.Errno {
	v := t.v
	if !journal.open || journal.v != v {
		return unix.EROFS
	}
	bs := v.r.BlockSize
	seq := jnl.Sequence
	per := jnl.TagsPerBlock()
	// The log's length: the copies, a descriptor per per of them, the
	// commit block; an empty journal holds it from its first block.
	need := uint32(t.n + (t.n+per-1)/per + 1)
	if per == 0 || need >= jnl.MaxLen-jnl.First {
		return unix.EFBIG
	}
	at := jnl.First
	for done := 0; done < t.n; {
		k := min(per, t.n-done)
		desc := at
		at = jnl.NextLogBlock(at)
		for i := done; i < done+k; i++ {
			lb := logBuf[:bs]
			copy(lb, t.bufs[i][:bs])
			t.tags[i] = jnl.LogCopy(lb, seq, t.homes[i])
			if e := writeLog(v, at, lb); e != 0 {
				return e
			}
			at = jnl.NextLogBlock(at)
		}
		jnl.PutDescriptor(logBuf[:bs], seq, t.tags[done:done+k])
		if e := writeLog(v, desc, logBuf[:bs]); e != 0 {
			return e
		}
		done += k
	}
	if e := markJournal(v, jnl.First, seq, true); e != 0 {
		return e
	}
	if e := bcache.Flush(v.disk); e != 0 || upTo < txnCommitted {
		return e
	}
	jnl.PutCommit(logBuf[:bs], seq, sec, nsec)
	if e := writeLog(v, at, logBuf[:bs]); e != 0 {
		return e
	}
	if e := bcache.Flush(v.disk); e != 0 || upTo < txnHome {
		return e
	}
	spb := uint64(bs / bcache.SectorSize)
	for k := 0; k < t.n; k++ {
		if e := bcache.Write(v.disk, v.start+t.homes[k]*spb, t.bufs[k][:bs]); e != 0 {
			return e
		}
	}
	if e := bcache.Flush(v.disk); e != 0 || upTo < txnDone {
		return e
	}
	if e := markJournal(v, 0, seq+1, false); e != 0 {
		return e
	}
	return bcache.Flush(v.disk)
}

// writeLog writes b as journal block n.
func writeLog(v *volume, n uint32, b []byte) unix.Errno {
	phys, e := jsrc.phys(uint64(n))
	if e != ext4.OK {
		return unix.EIO
	}
	return bcache.Write(v.disk, v.start+phys*uint64(v.r.BlockSize/bcache.SectorSize), b)
}

// markJournal sets the journal superblock's log start and sequence
// (start 0: empty) and needs_recovery on the volume to match (the
// caller flushes after). An emptied journal is flushed before
// needs_recovery goes, so that no crash leaves a volume that says it
// needs no recovery over a journal that still holds a log.
func markJournal(v *volume, start, seq uint32, recover bool) unix.Errno {
	b, e := jsrc.Block(0)
	if e != ext4.OK {
		return unix.EIO
	}
	blk := blockBuf[:v.r.BlockSize]
	copy(blk, b)
	jnl.MarkLog(blk, start, seq)
	if e := writeLog(v, 0, blk); e != 0 {
		return e
	}
	if !recover {
		if e := bcache.Flush(v.disk); e != 0 {
			return e
		}
	}
	sb, ee := bcache.Get(v.disk, v.start+sbOffset/bcache.SectorSize, sbSize)
	if ee != 0 {
		return ee
	}
	copy(sbBuf[:], sb)
	if recover {
		ext4.SetRecover(sbBuf[:])
	} else {
		ext4.ClearRecover(sbBuf[:])
	}
	return bcache.Write(v.disk, v.start+sbOffset/bcache.SectorSize, sbBuf[:])
}
