package linux

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/bcm2711"
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mount"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// /dev/spidevB.C, Linux's spidev (drivers/spi/spidev.c, its ABI in
// include/uapi/linux/spi/spidev.h and spi.h): a device is chip select C
// of bus B with its mode, word size and speed (per device, as spidev
// keeps them, not per description); read and write are one half-duplex
// transfer each, SPI_IOC_MESSAGE(N) a full-duplex message of N
// transfers with the chip selected throughout (cs_change deselects it
// between two). golang.org/x/sys/unix has none of these numbers.

const (
	spidevMajor  = 153  // SPIDEV_MAJOR
	spidevBufsiz = 4096 // spidev's default bufsiz: a message's bytes at most
	spiIOCMagic  = 'k'

	spiIOCRead  = 2 // _IOC_READ
	spiIOCWrite = 1 // _IOC_WRITE

	spiTransferSize = 32 // struct spi_ioc_transfer
	// spiMaxTransfers is the most SPI_IOC_MESSAGE(N) can carry: its
	// size field is 14 bits.
	spiMaxTransfers = (1<<14 - 1) / spiTransferSize

	// The modes spi-bcm2835 takes (its mode_bits less SPI_NO_CS, which
	// is not offered here): SPI_CPHA, SPI_CPOL, SPI_CS_HIGH.
	spiModesOK = bcm2711.SPIModeCPHA | bcm2711.SPIModeCPOL | bcm2711.SPIModeCSHigh
)

// spiIOC is _IOC(dir, 'k', nr, size).
func spiIOC(dir, nr, size uint64) uint64 { return dir<<30 | size<<16 | spiIOCMagic<<8 | nr }

// spiTransfer is struct spi_ioc_transfer.
type spiTransfer struct {
	TxBuf, RxBuf     uint64
	Len, SpeedHz     uint32
	DelayUsecs       uint16
	BitsPerWord      uint8
	CSChange         uint8
	TxNbits, RxNbits uint8
	WordDelayUsecs   uint8
	_                uint8
}

var (
	_ [spiTransferSize - unsafe.Sizeof(spiTransfer{})]struct{}
	_ [unsafe.Sizeof(spiTransfer{}) - spiTransferSize]struct{}
)

// spiDevice is a bus's chip select as spidev keeps it.
type spiDevice struct {
	mode  uint32
	bits  uint8
	speed uint32
	set   bool // mode, bits and speed hold values (0 speed: the bus's top)
}

var spiDevices [kernel.MaxSPI][kernel.SPIChipSelects]spiDevice

// spidevDev is /dev/spidevB.C's Impl; the node (devNodes) says which.
type spidevDev struct{ nodeDev }

var spidevImpl spidevDev

var (
	spidevNames [kernel.MaxSPI * kernel.SPIChipSelects][12]byte
	spiBuf      [spidevBufsiz]byte // what a message sends
	spiRx       [spidevBufsiz]byte // and receives
	spiXfers    [spiMaxTransfers]spiTransfer
)

// spidevNodes appends a node for each bus's chip selects (crw-------
// root root) and returns how many it added.
func spidevNodes(nodes []mount.DevNode) int {
	n := 0
	for b := range kernel.SPIPresent {
		for c := 0; c < kernel.SPIChipSelects && kernel.SPIPresent[b] && n < len(nodes); c++ {
			k := b*kernel.SPIChipSelects + c
			l := copy(spidevNames[k][:], "spidev")
			spidevNames[k][l], spidevNames[k][l+1], spidevNames[k][l+2] = byte('0'+b), '.', byte('0'+c)
			nodes[n] = mount.DevNode{Name: unsafe.String(&spidevNames[k][0], l+3), Mode: unix.S_IFCHR | 0o600, Rdev: spidevMajor<<8 | uint32(k)}
			n++
		}
	}
	return n
}

// spiOf is the bus, chip select and device of description f.
func spiOf(f *vfs.File) (int, int, *spiDevice) {
	k := int(fs.Inodes[devNodes[f.Index()]].Rdev & 0xff)
	b, c := k/kernel.SPIChipSelects, k%kernel.SPIChipSelects
	d := &spiDevices[b][c]
	if !d.set {
		*d = spiDevice{bits: 8, set: true}
	}
	return b, c, d
}

// openSpidev opens /dev/spidevB.C from node i: ENXIO for a bus the
// machine does not have.
func openSpidev(i int32, flags uint32, cloexec bool) uint64 {
	k := int(fs.Inodes[i].Rdev & 0xff)
	if b := k / kernel.SPIChipSelects; b >= kernel.MaxSPI || !kernel.SPIPresent[b] {
		return errno(unix.ENXIO)
	}
	return openDevNode(&spidevImpl, i, flags, cloexec)
}

// Read is a half-duplex transfer in (zeros clocked out): EMSGSIZE past
// bufsiz, as spidev_read.
func (d *spidevDev) Read(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	if n > spidevBufsiz {
		return errno(unix.EMSGSIZE)
	}
	b, c, dev := spiOf(f)
	kernel.SPIBegin(b, c, uint8(dev.mode), dev.speed)
	e := kernel.SPITransfer(b, nil, spiRx[:n], int(n))
	kernel.SPIEnd(b)
	if e != 0 {
		return errno(e)
	}
	if !usermem.CopyOut(buf, spiRx[:n]) {
		return errno(unix.EFAULT)
	}
	return n
}

// Write is a half-duplex transfer out (what comes in dropped).
func (d *spidevDev) Write(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	if n > spidevBufsiz {
		return errno(unix.EMSGSIZE)
	}
	if !usermem.CopyIn(spiBuf[:n], buf) {
		return errno(unix.EFAULT)
	}
	b, c, dev := spiOf(f)
	kernel.SPIBegin(b, c, uint8(dev.mode), dev.speed)
	e := kernel.SPITransfer(b, spiBuf[:n], nil, int(n))
	kernel.SPIEnd(b)
	if e != 0 {
		return errno(e)
	}
	return n
}

// Ioctl answers spidev_ioctl.
func (d *spidevDev) Ioctl(f *vfs.File, req uint64, arg uintptr) uint64 {
	if req>>8&0xff != spiIOCMagic {
		return errno(unix.ENOTTY)
	}
	b, _, dev := spiOf(f)
	dir, nr, size := req>>30, req&0xff, req>>16&0x3fff
	if nr == 0 && dir == spiIOCWrite {
		return spiMessage(f, arg, size)
	}
	var v uint32
	vb := unsafe.Slice((*byte)(unsafe.Pointer(&v)), 4)
	switch req {
	case spiIOC(spiIOCRead, 1, 1): // SPI_IOC_RD_MODE
		v = dev.mode & 0xff
		return spiOut(arg, vb[:1])
	case spiIOC(spiIOCRead, 5, 4): // SPI_IOC_RD_MODE32
		v = dev.mode
		return spiOut(arg, vb)
	case spiIOC(spiIOCRead, 2, 1): // SPI_IOC_RD_LSB_FIRST
		return spiOut(arg, vb[:1])
	case spiIOC(spiIOCRead, 3, 1): // SPI_IOC_RD_BITS_PER_WORD
		v = uint32(dev.bits)
		return spiOut(arg, vb[:1])
	case spiIOC(spiIOCRead, 4, 4): // SPI_IOC_RD_MAX_SPEED_HZ
		v = dev.speed
		if v == 0 {
			v = kernel.SPIRate(b, 0)
		}
		return spiOut(arg, vb)
	case spiIOC(spiIOCWrite, 1, 1), spiIOC(spiIOCWrite, 5, 4): // SPI_IOC_WR_MODE, _MODE32
		n := 1
		if nr == 5 {
			n = 4
		}
		if !usermem.CopyIn(vb[:n], arg) {
			return errno(unix.EFAULT)
		}
		if v&^spiModesOK != 0 {
			return errno(unix.EINVAL) // spi_setup: a mode bit the controller lacks
		}
		dev.mode = v
		return 0
	case spiIOC(spiIOCWrite, 2, 1): // SPI_IOC_WR_LSB_FIRST
		if !usermem.CopyIn(vb[:1], arg) {
			return errno(unix.EFAULT)
		}
		if v != 0 {
			return errno(unix.EINVAL) // spi-bcm2835 sends MSB first only
		}
		return 0
	case spiIOC(spiIOCWrite, 3, 1): // SPI_IOC_WR_BITS_PER_WORD
		if !usermem.CopyIn(vb[:1], arg) {
			return errno(unix.EFAULT)
		}
		if v != 0 && v != 8 {
			return errno(unix.EINVAL) // its bits_per_word_mask: 8
		}
		dev.bits = 8
		return 0
	case spiIOC(spiIOCWrite, 4, 4): // SPI_IOC_WR_MAX_SPEED_HZ
		if !usermem.CopyIn(vb, arg) {
			return errno(unix.EFAULT)
		}
		if v == 0 {
			return errno(unix.EINVAL)
		}
		dev.speed = v
		return 0
	}
	return errno(unix.ENOTTY)
}

// spiMessage is SPI_IOC_MESSAGE(N) with size bytes of transfers at arg:
// the message's bytes (its transfers' lengths' sum), EMSGSIZE past
// bufsiz, EINVAL for a size that is no whole number of transfers or a
// word size other than 8.
func spiMessage(f *vfs.File, arg uintptr, size uint64) uint64 {
	if size%spiTransferSize != 0 {
		return errno(unix.EINVAL)
	}
	n := int(size / spiTransferSize)
	if n == 0 {
		return 0
	}
	if n > len(spiXfers) {
		return errno(unix.EMSGSIZE)
	}
	xs := spiXfers[:n]
	if !usermem.CopyIn(unsafe.Slice((*byte)(unsafe.Pointer(&spiXfers[0])), n*spiTransferSize), arg) {
		return errno(unix.EFAULT)
	}
	total := uint64(0)
	for k := range xs {
		x := &xs[k]
		total += uint64(x.Len)
		if total > spidevBufsiz {
			return errno(unix.EMSGSIZE)
		}
		if x.BitsPerWord != 0 && x.BitsPerWord != 8 || x.TxNbits > 1 || x.RxNbits > 1 {
			return errno(unix.EINVAL)
		}
	}
	b, c, dev := spiOf(f)
	open := false
	for k := range xs {
		x := &xs[k]
		speed := dev.speed
		if x.SpeedHz != 0 {
			speed = x.SpeedHz
		}
		if !open {
			kernel.SPIBegin(b, c, uint8(dev.mode), speed)
			open = true
		}
		l := int(x.Len)
		var tx, rx []byte
		if x.TxBuf != 0 {
			if !usermem.CopyIn(spiBuf[:l], uintptr(x.TxBuf)) {
				kernel.SPIEnd(b)
				return errno(unix.EFAULT)
			}
			tx = spiBuf[:l]
		}
		if x.RxBuf != 0 {
			rx = spiRx[:l]
		}
		if e := kernel.SPITransfer(b, tx, rx, l); e != 0 {
			kernel.SPIEnd(b)
			return errno(e)
		}
		if rx != nil && !usermem.CopyOut(uintptr(x.RxBuf), rx) {
			kernel.SPIEnd(b)
			return errno(unix.EFAULT)
		}
		if x.CSChange != 0 && k < n-1 {
			kernel.SPIEnd(b) // deselected until the next transfer
			open = false
		}
	}
	if open {
		kernel.SPIEnd(b)
	}
	return total
}

// spiOut copies an ioctl's answer out.
func spiOut(arg uintptr, b []byte) uint64 {
	if !usermem.CopyOut(arg, b) {
		return errno(unix.EFAULT)
	}
	return 0
}
