package virtio

import "github.com/gometal/gometal/drivers/cpu"

// The 9P transport device (device ID 9, "9P transport", in virtio 1.2
// §5's table; the spec gives it no section of its own, so Linux's
// net/9p/trans_virtio.c and QEMU's hw/9pfs/virtio-9p-device.c are its
// definition): a mount tag in config
// space (struct virtio_9p_config: tag_len[2] tag[tag_len]) and one
// virtqueue, "requests", on which each 9P message goes out as a chain of
// buffers the device reads (the T-message, a Twrite's data after its
// header) followed by buffers it writes (the R-message, an Rread's data
// after its header). The device answers each chain once, in any order;
// the used length is the bytes it wrote.
const (
	DeviceP9 = 9

	p9FeatureMountTag = 0 // VIRTIO_9P_MOUNT_TAG: config holds the tag

	// P9MaxTag is the longest mount tag kept (QEMU's limit is
	// MAX_TAG_LEN 255, hw/9pfs/virtio-9p-device.c).
	P9MaxTag = 255

	// P9MaxSegs is the most buffers one request chains: the T-message,
	// the R-message's header, and a data page each for a Tread or Twrite
	// of 32 pages (the kernel's msize), with one more for data that
	// crosses a page boundary. The queue is cut into QueueSize/P9MaxSegs
	// slots of that many descriptors each, so that a request's chain
	// never needs a free list: one request in flight, which is all the
	// kernel sends (each message waited for under the kernel lock).
	P9MaxSegs = 35
	P9Slots   = QueueSize / P9MaxSegs

	descNext = 1 // VIRTQ_DESC_F_NEXT: the chain continues at next
)

// P9Seg is one buffer of a request: its physical address, its length,
// and whether the device writes it (an answer buffer) or reads it.
type P9Seg struct {
	PA    uintptr
	Len   uint32
	Write bool
}

// P9 is a virtio-9p device.
type P9 struct {
	base   uintptr
	q      Queue
	Tag    [P9MaxTag]byte
	TagLen int
	busy   [P9Slots]bool
	done   [P9Slots]bool
	got    [P9Slots]uint32 // bytes the device wrote, once done

	Requests uint64
}

// Init brings up the device at base with one page from getPage for its
// queue, and reads its mount tag. It returns false, with the device
// marked failed, if a step fails or the device has no tag (QEMU always
// gives one: mount_tag is required).
func (d *P9) Init(base uintptr, getPage func() uintptr) bool {
	feats, ok := negotiate(base, 1<<p9FeatureMountTag)
	if !ok {
		return false
	}
	*d = P9{base: base}
	qp := getPage()
	if feats&(1<<p9FeatureMountTag) == 0 || qp == 0 || !d.q.setup(base, 0, qp, false) {
		cpu.Write32(base+regStatus, statusFailed)
		return false
	}
	n := int(configByte(base, 0)) | int(configByte(base, 1))<<8
	if n > P9MaxTag {
		n = P9MaxTag
	}
	for i := 0; i < n; i++ {
		d.Tag[i] = configByte8(base, uintptr(2+i))
	}
	d.TagLen = n
	driverOK(base)
	return true
}

// Submit hands the device one request, its n buffers chained in order
// (every buffer the device reads before every one it writes, §2.7.4.2).
// It returns the request's slot, for Done; ok is false if every slot is
// busy or the chain is malformed.
func (d *P9) Submit(segs *[P9MaxSegs]P9Seg, n int) (slot int, ok bool) {
	if n < 2 || n > P9MaxSegs || segs[0].Write || !segs[n-1].Write {
		return 0, false
	}
	for i := 1; i < n; i++ {
		if segs[i-1].Write && !segs[i].Write {
			return 0, false
		}
	}
	slot = -1
	for i := range d.busy {
		if !d.busy[i] {
			slot = i
			break
		}
	}
	if slot < 0 {
		return 0, false
	}
	d.busy[slot], d.done[slot] = true, false
	head := uint16(slot * P9MaxSegs)
	for i := 0; i < n; i++ {
		id := head + uint16(i)
		desc := d.q.va + uintptr(id)*descBytes
		*(*uint64)(cpu.Ptr(desc)) = uint64(segs[i].PA)
		*(*uint32)(cpu.Ptr(desc + 8)) = segs[i].Len
		var flags uint32
		if segs[i].Write {
			flags = descWrite
		}
		if i < n-1 {
			flags |= descNext | uint32(id+1)<<16 // next, in the high half
		}
		*(*uint32)(cpu.Ptr(desc + 12)) = flags
	}
	d.q.postHead(head)
	d.q.notify()
	d.Requests++
	return slot, true
}

// Interrupt acknowledges the device's interrupt and takes every answer
// it gave back; the caller then wakes whoever waits on Done.
func (d *P9) Interrupt() {
	ackInterrupt(d.base)
	d.reap()
}

func (d *P9) reap() {
	for {
		id, n, ok := d.q.used()
		if !ok {
			return
		}
		slot := int(id) / P9MaxSegs
		if int(id)%P9MaxSegs != 0 || slot >= P9Slots || !d.busy[slot] {
			continue // a device that says nonsense: ignore the entry
		}
		d.done[slot], d.got[slot] = true, n
	}
}

// Done reports whether the request in slot is answered and how many
// bytes the device wrote; once it says so the slot is free again. It
// reaps the used ring itself, so a caller may poll it with interrupts
// off (at boot).
func (d *P9) Done(slot int) (n uint32, ok bool) {
	d.reap()
	if slot < 0 || slot >= P9Slots || !d.done[slot] {
		return 0, false
	}
	d.busy[slot], d.done[slot] = false, false
	return d.got[slot], true
}

// configByte8 reads one byte of config space with a byte access. The
// tag's last bytes need it: QEMU answers a 4-byte read that reaches past
// the end of config space with all ones (hw/virtio/virtio.c,
// virtio_config_modern_readl), and the tag ends config space. It is
// not inlined so the loop's loads stay single byte loads, in order.
//
//go:noinline
func configByte8(base uintptr, off uintptr) byte {
	return *(*byte)(cpu.Ptr(base + regConfig + off))
}
