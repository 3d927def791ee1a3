package virtio

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
)

// The network device (virtio 1.2 §5.1).
const (
	netFeatureMAC = 5 // VIRTIO_NET_F_MAC: the device has a MAC in config

	// netHdrLen is struct virtio_net_hdr as a VERSION_1 device uses it,
	// num_buffers included (§5.1.6): before every frame either way. With
	// no offload features it is all zero on transmit. None is asked for:
	// QEMU offers checksum offload (VIRTIO_NET_F_CSUM, GUEST_CSUM) only
	// when its backend takes a vnet header (a tap device), and clears
	// them for user networking (hw/net/virtio-net.c,
	// virtio_net_get_features: !peer_has_vnet_hdr), the only backend
	// gometal's runner uses; the stack computes every checksum.
	netHdrLen = 12

	// bufBytes is one packet buffer: a header and the largest Ethernet
	// frame without FCS (1514), rounded so two fit a page. Without
	// VIRTIO_NET_F_MRG_RXBUF a receive buffer must hold a whole frame
	// (§5.1.6.3.1: at least 1526 bytes).
	bufBytes = 2048
	pageSize = 4096

	// MaxFrame is the largest frame Send takes.
	MaxFrame = bufBytes - netHdrLen

	rxQueue = 0
	txQueue = 1
)

// Net is a virtio network device: one receive and one transmit queue,
// each with QueueSize buffers of its own.
type Net struct {
	base  uintptr
	MAC   [6]byte
	rx    Queue
	tx    Queue
	rxBuf [QueueSize]uintptr // physical address of each descriptor's buffer
	txBuf [QueueSize]uintptr
	// txFree are the transmit descriptors the device has given back (or
	// never had), a stack: the device may finish them in any order.
	txFree  [QueueSize]uint16
	txFreeN int

	RxFrames, TxFrames, TxFull uint64
}

// Init brings up the network device at base (a kernel address) with
// pages from getPage (physical addresses of zeroed pages, 0 when out):
// feature negotiation, both queues, every receive buffer posted. It
// returns false, with the device marked failed, if any step fails.
func (d *Net) Init(base uintptr, getPage func() uintptr) bool {
	feats, ok := negotiate(base, 1<<netFeatureMAC)
	if !ok {
		return false
	}
	d.base = base
	rxq, txq := getPage(), getPage()
	if rxq == 0 || txq == 0 || !d.rx.setup(base, rxQueue, rxq, false) || !d.tx.setup(base, txQueue, txq, true) {
		cpu.Write32(base+regStatus, statusFailed)
		return false
	}
	for i := 0; i < QueueSize; i += pageSize / bufBytes {
		rp, tp := getPage(), getPage()
		if rp == 0 || tp == 0 {
			cpu.Write32(base+regStatus, statusFailed)
			return false
		}
		for j := 0; j < pageSize/bufBytes; j++ {
			d.rxBuf[i+j] = rp + uintptr(j)*bufBytes
			d.txBuf[i+j] = tp + uintptr(j)*bufBytes
		}
	}
	if feats&(1<<netFeatureMAC) != 0 {
		for i := range d.MAC {
			d.MAC[i] = configByte(base, uintptr(i)) // struct virtio_net_config: mac first
		}
	} else {
		// No MAC from the device: a locally administered one (IEEE 802
		// §8.2: bit 1 of the first octet), as Linux makes with
		// eth_random_addr, here from the counter.
		c := cpu.ReadCNTVCT()
		d.MAC = [6]byte{0x02, 0x67, 0x6d, byte(c >> 16), byte(c >> 8), byte(c)}
	}
	for i := uint16(0); i < QueueSize; i++ {
		d.rx.post(i, d.rxBuf[i], bufBytes, true)
		d.txFree[i] = i
	}
	d.txFreeN = QueueSize
	driverOK(base)
	d.rx.notify()
	return true
}

// Interrupt acknowledges the device's interrupt; the caller then drains
// Recv.
func (d *Net) Interrupt() { ackInterrupt(d.base) }

// Recv returns the next received frame, in place in its buffer, and the
// buffer's id, which goes back to the device with Repost once the frame
// is consumed. ok is false when nothing is waiting.
func (d *Net) Recv() (frame []byte, id uint16, ok bool) {
	for {
		id, n, ok := d.rx.used()
		if !ok {
			return nil, 0, false
		}
		if id >= QueueSize || n < netHdrLen || n > bufBytes {
			// A device that says nonsense loses this buffer's frame, not
			// the kernel.
			if id < QueueSize {
				d.Repost(id)
				d.RxNotify()
			}
			continue
		}
		d.RxFrames++
		b := unsafe.Slice((*byte)(cpu.Ptr(cpu.KVA(d.rxBuf[id]))), bufBytes)
		return b[netHdrLen:n], id, true
	}
}

// Repost gives receive buffer id back to the device; the device hears
// of it at the next RxNotify.
func (d *Net) Repost(id uint16) {
	d.rx.post(id, d.rxBuf[id], bufBytes, true)
}

// RxNotify tells the device that buffers came back (§2.7.13.3: once for
// a batch). Under QEMU the notify is a trap into its device model, which
// then delivers what waited for buffers: one per drained batch, not one
// per frame.
func (d *Net) RxNotify() { d.rx.notify() }

// Send copies frame into a transmit buffer behind a zero header and hands
// it to the device. It returns false if frame is too long or every
// buffer is still the device's.
func (d *Net) Send(frame []byte) bool {
	for {
		id, _, ok := d.tx.used()
		if !ok {
			break
		}
		if id < QueueSize && d.txFreeN < QueueSize {
			d.txFree[d.txFreeN] = id
			d.txFreeN++
		}
	}
	if len(frame) > MaxFrame || d.txFreeN == 0 {
		d.TxFull++
		return false
	}
	d.txFreeN--
	id := d.txFree[d.txFreeN]
	b := unsafe.Slice((*byte)(cpu.Ptr(cpu.KVA(d.txBuf[id]))), bufBytes)
	clear(b[:netHdrLen])
	n := copy(b[netHdrLen:], frame)
	d.tx.post(id, d.txBuf[id], uint32(netHdrLen+n), false)
	d.tx.notify()
	d.TxFrames++
	return true
}
