package virtio

import "github.com/gometal/gometal/drivers/cpu"

// The block device (virtio 1.2 §5.2): one request queue; a request is a
// chain of descriptors, the header (type, sector), the data pages, and a
// status byte the device writes (§5.2.6).
const (
	DeviceBlk = 2

	blkFeatureSizeMax = 1 // VIRTIO_BLK_F_SIZE_MAX: config size_max bounds a segment
	blkFeatureSegMax  = 2 // VIRTIO_BLK_F_SEG_MAX: config seg_max bounds the data descriptors
	blkFeatureRO      = 5 // VIRTIO_BLK_F_RO: the device is read-only
	blkFeatureBlkSize = 6 // VIRTIO_BLK_F_BLK_SIZE: config blk_size is the optimal block size
	blkFeatureFlush   = 9 // VIRTIO_BLK_F_FLUSH: VIRTIO_BLK_T_FLUSH is there

	blkTypeIn    = 0 // read
	blkTypeOut   = 1 // write
	blkTypeFlush = 4

	// Status bytes (§5.2.6).
	BlkOK     = 0
	BlkIOErr  = 1
	BlkUnsupp = 2

	// SectorSize is the unit of the sector field and of capacity,
	// whatever the device's block size (§5.2.4: "in 512-byte sectors").
	SectorSize = 512

	// MaxSegments bounds the data pages of one request: with the
	// header and the status, a chain fills at most the whole queue.
	MaxSegments = QueueSize - 2

	blkHdrBytes = 16 // struct virtio_blk_req's head: le32 type, le32 reserved, le64 sector
)

// Blk is a virtio block device with one request queue. Requests are made
// one at a time (Do), the caller waiting for the device by polling the
// used ring: a first driver, correct and simple; requests in flight
// together, completed by the interrupt, are what the block layer's
// design asks next (docs/ARCHITECTURE.md, "Storage").
type Blk struct {
	base     uintptr
	q        Queue
	hdr      uintptr // a page: the request header at 0, the status byte at 64
	Sectors  uint64  // capacity in 512-byte sectors
	ReadOnly bool
	Flush    bool   // VIRTIO_BLK_F_FLUSH: Flush reaches the host's disk
	BlkSize  uint32 // the device's block size (512 unless it says)
	segMax   uint32
	Requests uint64
	Errors   uint64
}

// InitBlk brings up the block device at base (a kernel address) with
// pages from getPage. It returns false, with the device marked failed,
// if any step fails.
func (d *Blk) InitBlk(base uintptr, getPage func() uintptr) bool {
	feats, ok := negotiate(base, 1<<blkFeatureRO|1<<blkFeatureBlkSize|1<<blkFeatureFlush|1<<blkFeatureSegMax)
	if !ok {
		return false
	}
	*d = Blk{base: base, BlkSize: SectorSize, segMax: MaxSegments}
	qp, hp := getPage(), getPage()
	if qp == 0 || hp == 0 || !d.q.setup(base, 0, qp, true) {
		cpu.Write32(base+regStatus, statusFailed)
		return false
	}
	d.hdr = hp
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

// Read reads into the pages pas (physical addresses, each a whole page
// but the last, which holds the rest of n bytes) n bytes from sector.
func (d *Blk) Read(sector uint64, pas *[MaxSegments]uintptr, n uint32) uint8 {
	return d.do(blkTypeIn, sector, pas, n)
}

// Write writes n bytes from the pages pas at sector.
func (d *Blk) Write(sector uint64, pas *[MaxSegments]uintptr, n uint32) uint8 {
	return d.do(blkTypeOut, sector, pas, n)
}

// FlushCache asks the device to make every write it completed durable
// (§5.2.6.2: VIRTIO_BLK_T_FLUSH); a device without the feature writes
// through, and this is a no-op.
func (d *Blk) FlushCache() uint8 {
	if !d.Flush {
		return BlkOK
	}
	return d.do(blkTypeFlush, 0, nil, 0)
}

// do makes one request and waits for it: the header, up to segMax data
// descriptors of a page each, and the status byte, as one chain from
// descriptor 0 (only one request is ever in the queue).
func (d *Blk) do(typ uint32, sector uint64, pas *[MaxSegments]uintptr, n uint32) uint8 {
	d.Requests++
	h := cpu.KVA(d.hdr)
	*(*uint32)(cpu.Ptr(h)) = typ
	*(*uint32)(cpu.Ptr(h + 4)) = 0
	*(*uint64)(cpu.Ptr(h + 8)) = sector
	status := h + 64
	*(*uint8)(cpu.Ptr(status)) = 0xff // not yet written by the device
	id := uint16(0)
	d.q.desc(id, d.hdr, blkHdrBytes, descNext, id+1)
	id++
	for seg, left := 0, n; left > 0; seg++ {
		k := left
		if k > pageSize {
			k = pageSize
		}
		var flags uint16 = descNext
		if typ == blkTypeIn {
			flags |= descWrite
		}
		d.q.desc(id, pas[seg], k, flags, id+1)
		id++
		left -= k
	}
	d.q.desc(id, d.hdr+64, 1, descWrite, 0)
	d.q.postHead(0)
	d.q.notifyAlways()
	for {
		if _, _, ok := d.q.used(); ok {
			break
		}
		// QEMU completes the request in its I/O thread; WFE under QEMU
		// (TCG, and KVM's trap of it) yields the vCPU meanwhile instead
		// of spinning on the ring. The queue asks for no interrupt.
		cpu.WFE()
	}
	ackInterrupt(d.base)
	st := *(*uint8)(cpu.Ptr(status))
	if st != BlkOK {
		d.Errors++
	}
	return st
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
