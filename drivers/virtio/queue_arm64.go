package virtio

import (
	"sync/atomic"
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
)

// A split virtqueue (virtio 1.2 §2.7) laid out in one page: the
// descriptor table (16 bytes an entry), the available ring (the driver's:
// flags, idx, ring[QueueSize], used_event) and the used ring (the
// device's: flags, idx, ring[QueueSize] of {id, len}, avail_event), each
// at the alignment §2.7 asks (16, 2, 4).
const (
	QueueSize = 64

	descBytes    = 16
	availOffset  = descBytes * QueueSize                    // 1024
	usedOffset   = (availOffset + 6 + 2*QueueSize + 3) &^ 3 // 1160
	queueBytes   = usedOffset + 6 + 8*QueueSize             // 1678, in one page
	_            = uint(4096 - queueBytes)                  // compile-time check: fits a page
	descWrite    = 2                                        // VIRTQ_DESC_F_WRITE: the device writes this buffer
	availNoIntr  = 1                                        // VIRTQ_AVAIL_F_NO_INTERRUPT: no interrupt when used
	usedNoNotify = 1                                        // VIRTQ_USED_F_NO_NOTIFY: the device needs no notify now
)

// Queue is one virtqueue of a device.
type Queue struct {
	base     uintptr // the device's registers
	index    uint32
	va       uintptr // the queue's page, kernel address
	availIdx uint16  // next free slot of the available ring (free-running)
	lastUsed uint16  // next used-ring entry to read (free-running)
	flags    uint16  // the available ring's flags
}

// setup gives queue index of the device at base the page at pa (§4.2.3.2:
// select, check it is not in use, size, addresses, ready).
func (q *Queue) setup(base uintptr, index uint32, pa uintptr, quiet bool) bool {
	cpu.Write32(base+regQueueSel, index)
	if cpu.Read32(base+regQueueReady) != 0 || cpu.Read32(base+regQueueNumMax) < QueueSize {
		return false
	}
	*q = Queue{base: base, index: index, va: cpu.KVA(pa)}
	if quiet {
		q.flags = availNoIntr
		atomic.StoreUint32(q.word(availOffset), availNoIntr)
	}
	cpu.Write32(base+regQueueNum, QueueSize)
	write64(base+regQueueDescLo, uint64(pa))
	write64(base+regQueueDriverLo, uint64(pa+availOffset))
	write64(base+regQueueDeviceLo, uint64(pa+usedOffset))
	cpu.Write32(base+regQueueReady, 1)
	return true
}

func write64(reg uintptr, v uint64) {
	cpu.Write32(reg, uint32(v))
	cpu.Write32(reg+4, uint32(v>>32))
}

func (q *Queue) word(off uintptr) *uint32 { return (*uint32)(cpu.Ptr(q.va + off)) }

// post makes the n bytes at pa available to the device in descriptor id
// (one descriptor a buffer: no chains), for it to write (deviceWrites) or
// read. The index store is a store-release: the descriptor and the ring
// entry are visible before the device can see the new index (§2.7.13).
func (q *Queue) post(id uint16, pa uintptr, n uint32, deviceWrites bool) {
	d := q.va + uintptr(id)*descBytes
	*(*uint64)(cpu.Ptr(d)) = uint64(pa)
	*(*uint32)(cpu.Ptr(d + 8)) = n
	var flags uint32
	if deviceWrites {
		flags = descWrite
	}
	*(*uint32)(cpu.Ptr(d + 12)) = flags // flags, next = 0
	slot := q.va + availOffset + 4 + 2*uintptr(q.availIdx%QueueSize)
	*(*uint16)(unsafe.Pointer(cpu.Ptr(slot))) = id
	q.availIdx++
	atomic.StoreUint32(q.word(availOffset), uint32(q.flags)|uint32(q.availIdx)<<16)
}

// notify tells the device the available ring moved (§4.2.3.3), unless
// the device said it needs no notify now (VIRTQ_USED_F_NO_NOTIFY,
// §2.7.10): a device that is still working through the ring (QEMU's
// virtio-net while it transmits) finds the new buffers itself, and under
// QEMU each notify is a trap into its device model that takes QEMU's
// global lock. The barrier is a full one, so that the ring's index is
// written before the flag is read (§2.7.13.3.1: else the device could
// clear the flag, look, and miss the buffer, while we skip the notify);
// the device reads memory when it sees the register write, and finds
// the ring as written.
func (q *Queue) notify() {
	cpu.BarrierISH()
	if atomic.LoadUint32(q.word(usedOffset))&usedNoNotify != 0 {
		return
	}
	cpu.Write32(q.base+regQueueNotify, q.index)
}

// used returns the next buffer the device gave back: its descriptor id
// and, for a buffer it wrote, how many bytes. The index load is a
// load-acquire, so the entry is read after it (§2.7.14).
func (q *Queue) used() (id uint16, n uint32, ok bool) {
	idx := uint16(atomic.LoadUint32(q.word(usedOffset)) >> 16)
	if idx == q.lastUsed {
		return 0, 0, false
	}
	e := q.va + usedOffset + 4 + 8*uintptr(q.lastUsed%QueueSize)
	q.lastUsed++
	return uint16(*(*uint32)(cpu.Ptr(e))), *(*uint32)(cpu.Ptr(e + 4)), true
}

// postHead makes the chain that starts at descriptor head available (its
// descriptors already written: a block request, a 9P message), with a
// store-release of the index as post does.
func (q *Queue) postHead(head uint16) {
	slot := q.va + availOffset + 4 + 2*uintptr(q.availIdx%QueueSize)
	*(*uint16)(unsafe.Pointer(cpu.Ptr(slot))) = head
	q.availIdx++
	atomic.StoreUint32(q.word(availOffset), uint32(q.flags)|uint32(q.availIdx)<<16)
}
