package kernel

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/drivers/virtio"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/ninep"
)

// Host directory shares: the virtio-9p devices the board has (QEMU
// -device virtio-9p-device,mount_tag=TAG, which gometal run -v adds).
// At boot each is started and greeted, polled as the network's DHCP is:
// Tversion (9P2000.L) and Tattach of the share's root, so that a share
// the host cannot serve is reported before init runs. The mount (read-only
// so far) is sharefs_arm64.go's.

const (
	maxShares = 8

	// shareMsize is the message size asked for: 32 pages of data and a
	// page for the header, Linux's v9fs default (128 KiB since 6.0) with
	// the header's room, so that a Tread of a whole readahead run
	// (fs.StoreRun pages, each its own descriptor straight into the page
	// cache) or a Twrite of a write(2)'s 32 pages is one message, and
	// its pages and the two headers fit a chain of virtio.P9MaxSegs
	// descriptors.
	shareMsize = 33 * mm.PageSize

	// shareWaitNanos bounds the wait for the host's answer at boot.
	shareWaitNanos = 2e9
)

type share struct {
	dev     virtio.P9
	conn    ninep.Conn
	req     uintptr // physical address of the T-message page
	ans     uintptr // and of the R-message page
	started bool
}

var shares [maxShares]share

// shareArgs are the gometal.9p=TAG:GUEST[:ro] words of the command line
// (gometal run -v), pointing into the bootargs: where each tag's share
// belongs.
var (
	shareArgs  [maxShares][]byte
	shareArgsN int
)

func shareBootarg(v []byte) {
	if shareArgsN < maxShares {
		shareArgs[shareArgsN] = v
		shareArgsN++
	}
}

// sharePlace finds the command line's word for tag: the guest path and
// whether the share is read-only.
func sharePlace(tag []byte) (guest []byte, ro, ok bool) {
	for _, w := range shareArgs[:shareArgsN] {
		if len(w) <= len(tag) || w[len(tag)] != ':' || string(w[:len(tag)]) != string(tag) {
			continue
		}
		guest = w[len(tag)+1:]
		if n := len(guest); n >= 3 && string(guest[n-3:]) == ":ro" {
			return guest[:n-3], true, true
		}
		return guest, false, true
	}
	return nil, false, false
}

// initShares finds, starts and greets every virtio-9p device.
func initShares() {
	k := 0
	for n, addr, modern := nextVirtio(-1, virtio.DeviceP9); n >= 0 && k < maxShares; n, addr, modern = nextVirtio(n, virtio.DeviceP9) {
		if !modern {
			continue
		}
		s := &shares[k]
		s.req, s.ans = mm.Pages.Get(), mm.Pages.Get()
		if s.req == 0 || s.ans == 0 || !s.dev.Init(cpu.KVA(addr), nicPage) {
			if Info("9p: the virtio-9p device at ") {
				PutHex(uint64(addr))
				Puts(" did not start")
				InfoEnd()
			}
			continue
		}
		k++
		errno := s.greet()
		if Info("9p: share ") {
			tag := s.dev.Tag[:s.dev.TagLen]
			PutBytes(tag)
			if guest, ro, ok := sharePlace(tag); ok {
				Puts(" for ")
				PutBytes(guest)
				if ro {
					Puts(" (read-only)")
				}
			}
			if errno != 0 {
				Puts(": the host refused 9P2000.L, errno ")
				PutDec(int64(errno))
			} else {
				Puts(": 9P2000.L, msize ")
				PutDec(int64(s.conn.Msize))
				Puts(", root attached")
			}
			InfoEnd()
		}
		s.started = errno == 0
	}
}

// greet runs Tversion and Tattach (as uid 0: QEMU's security_model=none
// serves as the user it runs as whatever the uid).
func (s *share) greet() uint32 {
	req := pageBytes(s.req)
	d, errno := s.call(ninep.EncVersion(req, shareMsize), ninep.Tversion, ninep.NoTag)
	if errno != 0 {
		return errno
	}
	if errno = s.conn.Versioned(&d, shareMsize); errno != 0 {
		return errno
	}
	root, _ := s.conn.NewFid()
	tag, _ := s.conn.NewTag()
	d, errno = s.call(ninep.EncAttach(req, tag, root, nil, 0), ninep.Tattach, tag)
	s.conn.FreeTag(tag)
	if errno != 0 {
		s.conn.FreeFid(root)
		return errno
	}
	s.conn.Root = root
	return 0
}

// call sends the n-byte T-message in the request page and polls for its
// answer (boot only: interrupts are not routed to the device yet).
func (s *share) call(n int, typ uint8, tag uint16) (ninep.Dec, uint32) {
	const eio = 5
	if n == 0 {
		return ninep.Dec{Bad: true}, eio
	}
	cpu.Progress.Add(1) // work, for the kernel lock's waiters (drivers/cpu/spinlock.go)
	var segs [virtio.P9MaxSegs]virtio.P9Seg
	segs[0] = virtio.P9Seg{PA: s.req, Len: uint32(n)}
	// The greeting's answers (Rversion, Rattach) fit a page.
	segs[1] = virtio.P9Seg{PA: s.ans, Len: mm.PageSize, Write: true}
	slot, ok := s.dev.Submit(&segs, 2)
	if !ok {
		return ninep.Dec{Bad: true}, eio
	}
	deadline := cpu.ReadCNTVCT() + timer.NanosToTicks(shareWaitNanos)
	for {
		if got, ok := s.dev.Done(slot); ok {
			return ninep.Answer(pageBytes(s.ans)[:got], typ, tag)
		}
		if cpu.ReadCNTVCT() > deadline {
			return ninep.Dec{Bad: true}, eio
		}
	}
}

func pageBytes(pa uintptr) []byte {
	return unsafe.Slice((*byte)(cpu.Ptr(cpu.KVA(pa))), mm.PageSize)
}
