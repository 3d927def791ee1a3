package virtio

import "github.com/gometal/gometal/drivers/cpu"

// The block device (virtio 1.2 §5.2): one request queue; a request is a
// chain of descriptors, the header (type, sector), the data pages, and a
// status byte the device writes (§5.2.6).
const (
	DeviceBlk = 2

	blkFeatureSizeMax = 1  // VIRTIO_BLK_F_SIZE_MAX: config size_max bounds a segment
	blkFeatureSegMax  = 2  // VIRTIO_BLK_F_SEG_MAX: config seg_max bounds the data descriptors
	blkFeatureRO      = 5  // VIRTIO_BLK_F_RO: the device is read-only
	blkFeatureBlkSize = 6  // VIRTIO_BLK_F_BLK_SIZE: config blk_size is the optimal block size
	blkFeatureFlush   = 9  // VIRTIO_BLK_F_FLUSH: VIRTIO_BLK_T_FLUSH is there
	featureIndirect   = 28 // VIRTIO_F_INDIRECT_DESC (§6): a descriptor may point to a table of them

	blkTypeIn    = 0 // read
	blkTypeOut   = 1 // write
	blkTypeFlush = 4

	descIndirect = 4 // VIRTQ_DESC_F_INDIRECT: the buffer is a descriptor table (§2.7.5.3)

	// Status bytes (§5.2.6).
	BlkOK     = 0
	BlkIOErr  = 1
	BlkUnsupp = 2

	// SectorSize is the unit of the sector field and of capacity,
	// whatever the device's block size (§5.2.4: "in 512-byte sectors").
	SectorSize = 512

	// MaxSegments bounds the data pages of one request: with the
	// header and the status, a direct chain fills at most the whole
	// queue (and an indirect table fits its slot's page: blkTableOff).
	MaxSegments = QueueSize - 2

	// BlkSlots is how many requests a disk has in flight at most: each
	// slot has a page of its own for the header, the status and, with
	// indirect descriptors, the chain's table, and takes one descriptor
	// of the ring. Linux's virtio_blk keeps as many as the queue holds;
	// 16 runs of 128 KiB (fs.StoreRun) keep QEMU's I/O thread busy.
	// Without VIRTIO_F_INDIRECT_DESC a request's direct chain may fill
	// the ring, and one slot is used.
	BlkSlots = 16

	blkHdrBytes  = 16 // struct virtio_blk_req's head: le32 type, le32 reserved, le64 sector
	blkStatusOff = 64 // where a slot's page holds its status byte
	blkTableOff  = 128
	// A slot's indirect table (header, MaxSegments pages, status)
	// must fit its page after blkTableOff.
	_ = uint(pageSize - blkTableOff - (MaxSegments+2)*descBytes)
	_ = uint(32 - BlkSlots) // TakeDone's mask
)

// Blk is a virtio block device with one request queue and up to
// BlkSlots requests in flight. A request is submitted (Submit) and
// completes in any order; Reap takes the device's answers, from the
// device's interrupt or from a caller polling (Wait), and marks their
// slots done for Status to tell.
type Blk struct {
	base     uintptr
	q        Queue
	Sectors  uint64 // capacity in 512-byte sectors
	ReadOnly bool
	Flush    bool   // VIRTIO_BLK_F_FLUSH: Flush reaches the host's disk
	BlkSize  uint32 // the device's block size (512 unless it says)
	segMax   uint32
	slots    int // BlkSlots with indirect descriptors, else 1
	page     [BlkSlots]uintptr
	busy     [BlkSlots]bool
	done     [BlkSlots]bool
	// loud marks the requests whose submitter sleeps until the
	// interrupt: the ring asks for no interrupt while every request in
	// flight is one a caller polls for (availNoIntr).
	loud     [BlkSlots]bool
	newDone  uint32 // slots answered since TakeDone
	Requests uint64
	Errors   uint64
	// MaxInFlight is the most requests the device held at once.
	MaxInFlight int
	inFlight    int
}

// InitBlk brings up the block device at base (a kernel address) with
// pages from getPage. It returns false, with the device marked failed,
// if any step fails.
func (d *Blk) InitBlk(base uintptr, getPage func() uintptr) bool {
	feats, ok := negotiate(base, 1<<blkFeatureRO|1<<blkFeatureBlkSize|1<<blkFeatureFlush|1<<blkFeatureSegMax|1<<featureIndirect)
	if !ok {
		return false
	}
	*d = Blk{base: base, BlkSize: SectorSize, segMax: MaxSegments, slots: 1}
	if feats&(1<<featureIndirect) != 0 {
		d.slots = BlkSlots
	}
	qp := getPage()
	for i := 0; i < d.slots && qp != 0; i++ {
		if d.page[i] = getPage(); d.page[i] == 0 {
			qp = 0
		}
	}
	if qp == 0 || !d.q.setup(base, 0, qp, true) {
		cpu.Write32(base+regStatus, statusFailed)
		return false
	}
	// Config (§5.2.4): capacity at 0 (le64), seg_max at 12, blk_size at 20.
	d.Sectors = uint64(configWord(base, 0)) | uint64(configWord(base, 4))<<32
	if feats&(1<<blkFeatureSegMax) != 0 {
		if s := configWord(base, 12); s > 0 && s < d.segMax {
			d.segMax = s
		}
	}
	if feats&(1<<blkFeatureBlkSize) != 0 {
		if b := configWord(base, 20); b >= SectorSize && b&(b-1) == 0 {
			d.BlkSize = b
		}
	}
	d.ReadOnly = feats&(1<<blkFeatureRO) != 0
	d.Flush = feats&(1<<blkFeatureFlush) != 0
	driverOK(base)
	return true
}

// SegMax is how many data pages one request may carry.
func (d *Blk) SegMax() int { return int(d.segMax) }

// Slots is how many requests the device may hold at once.
func (d *Blk) Slots() int { return d.slots }

// Read reads into the pages pas (physical addresses, each a whole page
// but the last, which holds the rest of n bytes) n bytes from sector,
// and waits for it.
func (d *Blk) Read(sector uint64, pas *[MaxSegments]uintptr, n uint32) uint8 {
	return d.do(blkTypeIn, sector, pas, n)
}

// Write writes n bytes from the pages pas at sector, and waits for it.
func (d *Blk) Write(sector uint64, pas *[MaxSegments]uintptr, n uint32) uint8 {
	return d.do(blkTypeOut, sector, pas, n)
}

// FlushCache asks the device to make every write it completed durable
// (§5.2.6.2: VIRTIO_BLK_T_FLUSH), and waits; a device without the
// feature writes through, and this is a no-op.
func (d *Blk) FlushCache() uint8 {
	if !d.Flush {
		return BlkOK
	}
	return d.do(blkTypeFlush, 0, nil, 0)
}

// do makes one request and polls for it: a slot (polling for one when
// every slot is taken by requests others wait for), then its answer.
func (d *Blk) do(typ uint32, sector uint64, pas *[MaxSegments]uintptr, n uint32) uint8 {
	slot, ok := d.submit(typ, sector, pas, n, false)
	for !ok {
		d.pollOnce()
		slot, ok = d.submit(typ, sector, pas, n, false)
	}
	return d.Wait(slot)
}

// Submit hands the device a read (or a write) of n bytes at sector into
// (from) the pages pas and returns its slot, for Status; ok is false
// when every slot is in flight. The device interrupts when it completes
// (the caller's interrupt handler calls Reap).
func (d *Blk) Submit(write bool, sector uint64, pas *[MaxSegments]uintptr, n uint32) (slot int, ok bool) {
	typ := uint32(blkTypeIn)
	if write {
		typ = blkTypeOut
	}
	return d.submit(typ, sector, pas, n, true)
}

func (d *Blk) submit(typ uint32, sector uint64, pas *[MaxSegments]uintptr, n uint32, loud bool) (int, bool) {
	slot := -1
	for i := 0; i < d.slots; i++ {
		if !d.busy[i] {
			slot = i
			break
		}
	}
	if slot < 0 || n > d.segMax*pageSize {
		return 0, false
	}
	d.busy[slot], d.done[slot], d.loud[slot] = true, false, loud
	d.Requests++
	d.inFlight++
	d.MaxInFlight = max(d.MaxInFlight, d.inFlight)
	pg := d.page[slot]
	h := cpu.KVA(pg)
	*(*uint32)(cpu.Ptr(h)) = typ
	*(*uint32)(cpu.Ptr(h + 4)) = 0
	*(*uint64)(cpu.Ptr(h + 8)) = sector
	*(*uint8)(cpu.Ptr(h + blkStatusOff)) = 0xff // not yet written by the device
	d.chain(slot, 0, pg, blkHdrBytes, descNext)
	id := uint16(1)
	for seg, left := 0, n; left > 0; seg++ {
		k := min(left, pageSize)
		var flags uint16 = descNext
		if typ == blkTypeIn {
			flags |= descWrite
		}
		d.chain(slot, id, pas[seg], k, flags)
		id++
		left -= k
	}
	d.chain(slot, id, pg+blkStatusOff, 1, descWrite)
	head := uint16(0)
	if d.slots > 1 {
		// Ring descriptor slot points to the slot's table (§2.7.5.3.1:
		// the driver sets no other flag with VIRTQ_DESC_F_INDIRECT).
		head = uint16(slot)
		d.q.desc(head, pg+blkTableOff, uint32(id+1)*descBytes, descIndirect, 0)
	}
	// Ask for an interrupt only while a request someone waits on by
	// sleeping is in flight (a hint the device may ignore, §2.7.7).
	d.q.flags = availNoIntr
	for i := 0; i < d.slots; i++ {
		if d.busy[i] && d.loud[i] {
			d.q.flags = 0
		}
	}
	d.q.postHead(head)
	d.q.notifyAlways()
	return slot, true
}

// chain writes descriptor id of slot's chain: in the slot's indirect
// table, or, with one slot, in the ring itself from descriptor 0. The
// last one (flags without descNext) ends the chain.
func (d *Blk) chain(slot int, id uint16, pa uintptr, n uint32, flags uint16) {
	next := id + 1
	if flags&descNext == 0 {
		next = 0
	}
	if d.slots == 1 {
		d.q.desc(id, pa, n, flags, next)
		return
	}
	t := cpu.KVA(d.page[slot]) + blkTableOff + uintptr(id)*descBytes
	*(*uint64)(cpu.Ptr(t)) = uint64(pa)
	*(*uint32)(cpu.Ptr(t + 8)) = n
	*(*uint32)(cpu.Ptr(t + 12)) = uint32(flags) | uint32(next)<<16
}

// Interrupt acknowledges the device's interrupt and takes its answers
// (Reap); the caller then asks TakeDone which requests completed.
func (d *Blk) Interrupt() {
	ackInterrupt(d.base)
	d.Reap()
}

// Reap takes every answer the device gave back: each answered slot is
// done, and counted in the mask TakeDone hands out.
func (d *Blk) Reap() {
	for {
		id, _, ok := d.q.used()
		if !ok {
			return
		}
		slot := int(id)
		if d.slots == 1 {
			slot = 0
		}
		if slot >= d.slots || !d.busy[slot] || d.done[slot] {
			continue // a device that says nonsense: ignore the entry
		}
		d.done[slot] = true
		d.inFlight--
		d.newDone |= 1 << slot
	}
}

// TakeDone returns the slots that completed since it was last asked
// (bit i: slot i), for the kernel to wake their waiters.
func (d *Blk) TakeDone() uint32 {
	m := d.newDone
	d.newDone = 0
	return m
}

// Status tells whether the request in slot completed and, if so, its
// status byte; once it says so the slot is free again.
func (d *Blk) Status(slot int) (st uint8, done bool) {
	if slot < 0 || slot >= d.slots || !d.done[slot] {
		return 0, false
	}
	st = *(*uint8)(cpu.Ptr(cpu.KVA(d.page[slot]) + blkStatusOff))
	d.busy[slot], d.done[slot], d.loud[slot] = false, false, false
	d.newDone &^= 1 << slot
	if st != BlkOK {
		d.Errors++
	}
	return st, true
}

// Wait polls until the request in slot completes and returns its
// status (Status's). QEMU completes a request in its I/O thread; WFE
// under QEMU (TCG, and KVM's trap of it) yields the vCPU meanwhile
// instead of spinning on the ring. It leaves the interrupt to the
// handler (Interrupt): a request in flight that the polling answered
// may have sleepers only the handler can wake (the kernel's
// blkCompleted), and while every request is polled for the ring asks
// for none.
func (d *Blk) Wait(slot int) uint8 {
	for {
		d.Reap()
		if st, ok := d.Status(slot); ok {
			return st
		}
		cpu.WFE()
	}
}

// pollOnce waits a moment for any answer (do, when every slot is busy).
func (d *Blk) pollOnce() {
	d.Reap()
	if d.newDone == 0 {
		cpu.WFE()
	}
}

// desc fills descriptor id of q: the buffer at pa of n bytes, flags and,
// with descNext, the next descriptor of the chain.
func (q *Queue) desc(id uint16, pa uintptr, n uint32, flags uint16, next uint16) {
	d := q.va + uintptr(id)*descBytes
	*(*uint64)(cpu.Ptr(d)) = uint64(pa)
	*(*uint32)(cpu.Ptr(d + 8)) = n
	*(*uint32)(cpu.Ptr(d + 12)) = uint32(flags) | uint32(next)<<16
}

// notifyAlways tells the device the ring moved (a request waited for at
// once gains nothing from skipping it).
func (q *Queue) notifyAlways() {
	cpu.BarrierISH()
	cpu.Write32(q.base+regQueueNotify, q.index)
}

// configWord reads the 32-bit device configuration word at off.
func configWord(base uintptr, off uintptr) uint32 { return cpu.Read32(base + regConfig + off) }
