package ext4fs

import (
	"github.com/gometal/gometal/kernel/bcache"
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/ext4"
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// A journaled transaction (jbd2's, one at a time and checkpointed at
// once): the metadata blocks changes dirty, logged to the journal and
// committed before any of them is written home, so that a crash at any
// moment leaves each change wholly done or wholly undone once the next
// mount replays the journal (replay.go). The journal is empty between
// transactions; commit runs four steps, each durable (a flush) before
// the next:
//
//  1. the logged copies and their descriptor blocks from the journal's
//     first log block, the journal superblock's log start (s_start,
//     s_sequence) and needs_recovery on the volume;
//  2. the commit block: from here a crash keeps the changes (replayed);
//  3. the blocks written home;
//  4. the journal marked empty with the next sequence, needs_recovery off.
//
// The transaction runs across changes, as jbd2's does: each change
// (writer.go) begins by joining it and gets the blocks it changes; the
// volume's reads see the transaction's copies (source.Block). It commits
// when a change might not fit in what is left of it, when it is older
// than commitAfter, before a write's data goes to blocks it freed, and
// on fsync, sync, syncfs, unmount and the end of the run. A change
// never spans two transactions, so each is atomic.

// maxTxnBlocks bounds one transaction's blocks; opBlocks is the most one
// change may get (a create dirties a handful: bitmaps, group
// descriptors, inode table blocks, a directory block, an extent leaf, the
// superblock; a truncate a bitmap and descriptor a group it frees in).
const (
	maxTxnBlocks = 192
	opBlocks     = 64
	// commitAfter is jbd2's default commit interval (5 s,
	// JBD2_DEFAULT_MAX_COMMIT_AGE), in ns.
	commitAfter = 5e9
)

// txn is the running transaction, in package memory (a block each).
type txn struct {
	v       *volume // nil: none running
	n       int
	freed   bool  // blocks were freed in it: not to get data before it commits
	started int64 // ns, Now's
	homes   [maxTxnBlocks]uint64
	bufs    [maxTxnBlocks][mm.PageSize]byte
	tags    [maxTxnBlocks]ext4.JournalTag
}

var (
	tx      txn
	logBuf  [mm.PageSize]byte // a copy as logged (escaped)
	journal struct {
		v    *volume // the volume whose journal jnl is open for writing
		open bool
	}
)

// now is the time in ns since the epoch.
func now() int64 { return clock.Realtime() }

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

// begin joins the running transaction for a change on v, committing
// the one running first when the change might not fit in it, it is
// another volume's or old, or (forData) it freed blocks the change may
// write data to before it commits (ordered mode's rule: a freed block
// is not reused for data until the free is durable).
func (t *txn) begin(v *volume, forData bool) unix.Errno {
	if t.v != nil && (t.v != v || t.n > maxTxnBlocks-opBlocks || now()-t.started > commitAfter || forData && t.freed) {
		if e := t.commitNow(); e != 0 {
			return e
		}
	}
	if t.v == nil {
		t.v, t.n, t.freed, t.started = v, 0, false, now()
	}
	return 0
}

// join is begin for the second half of a change that began in the same
// system call (Forget after Remove): the running transaction is joined
// without a commit between, so that the two halves are one atomic
// change. (begin left room for both.)
func (t *txn) join(v *volume) unix.Errno {
	if t.v == v && t.n < maxTxnBlocks-opBlocks/2 {
		return 0
	}
	return t.begin(v, false)
}

// get returns the transaction's copy of block home, to change: read
// through the buffer cache the first time it is got. The superblock's
// copy says needs_recovery, as the volume does while the journal holds
// the transaction (step 1), so that writing it home (step 3) does not
// take the flag off before step 4.
func (t *txn) get(home uint64) ([]byte, unix.Errno) {
	return t.getAs(home, true)
}

// getNew is get of a block just allocated: its old bytes are not read.
func (t *txn) getNew(home uint64) ([]byte, unix.Errno) {
	b, e := t.getAs(home, false)
	if e == 0 {
		clear(b)
	}
	return b, e
}

func (t *txn) getAs(home uint64, read bool) ([]byte, unix.Errno) {
	bs := t.v.r.BlockSize
	if b := t.copyOf(home); b != nil {
		return b, 0
	}
	if t.n == maxTxnBlocks {
		return nil, unix.EFBIG
	}
	k := t.n
	if read {
		b, e := t.v.src.disk(home)
		if e != ext4.OK {
			return nil, unix.EIO
		}
		copy(t.bufs[k][:bs], b)
		if home == sbOffset/uint64(bs) {
			ext4.SetRecover(t.bufs[k][sbOffset%bs : sbOffset%bs+sbSize])
		}
	}
	t.n++
	t.homes[k] = home
	return t.bufs[k][:bs], 0
}

// copyOf is the transaction's copy of block home, nil if it has none.
func (t *txn) copyOf(home uint64) []byte {
	for k := 0; k < t.n; k++ {
		if t.homes[k] == home {
			return t.bufs[k][:t.v.r.BlockSize]
		}
	}
	return nil
}

// commitNow commits the running transaction, if any, through its last
// step. A failure leaves the volume read-only (errors=remount-ro): the
// changes not committed are gone, and the tree is read again.
func (t *txn) commitNow() unix.Errno {
	v := t.v
	if v == nil {
		return 0
	}
	if t.n == 0 {
		t.v = nil
		return 0
	}
	ns := now()
	e := t.commit(txnDone, uint64(ns/1e9), uint32(ns%1e9))
	t.v, t.n = nil, 0
	if e != 0 {
		failVolume(v, "the journal could not be written: read-only now")
	}
	return e
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
	if recover {
		// The volume says needs_recovery before the journal says it
		// holds a log: a crash between the two leaves a flag over an
		// empty journal (replayed as nothing), never a log e2fsck and
		// the mount would skip.
		if e := markRecover(v, true); e != 0 {
			return e
		}
	}
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
	if recover {
		return 0
	}
	if e := bcache.Flush(v.disk); e != 0 {
		return e
	}
	return markRecover(v, false)
}

// markRecover sets or clears needs_recovery in the volume's superblock.
func markRecover(v *volume, recover bool) unix.Errno {
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
