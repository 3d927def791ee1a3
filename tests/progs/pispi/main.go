// Command pispi drives an SPI NOR flash on the Raspberry Pi's SPI0 chip
// select 0 through Linux's spidev (TestRPi4SPI; QEMU's m25p80): the
// device's mode, word size and speed, the flash's JEDEC ID read as a
// two-transfer message (or, with the argument duplex, as one
// full-duplex transfer), and the modes the controller cannot do. One
// command a run: QEMU 10's bcm2835-spi drives no chip-select line, so
// its flash never sees a command end, and a second command would be
// read as more of the first.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// spidev.h (golang.org/x/sys/unix has none of these).
const (
	rdMode     = 0x80016b01
	wrMode     = 0x40016b01
	rdBits     = 0x80016b03
	wrBits     = 0x40016b03
	rdMaxSpeed = 0x80046b04
	wrMaxSpeed = 0x40046b04
	modeLSB    = 0x08 // SPI_LSB_FIRST

	cmdJEDEC = 0x9f // RDID
)

// transfer is struct spi_ioc_transfer.
type transfer struct {
	Tx, Rx                                         uint64
	Len, Speed                                     uint32
	Delay                                          uint16
	Bits, CSChange, TxNbits, RxNbits, WordDelay, _ uint8
}

func message(fd int, xs []transfer) (int, error) {
	req := uintptr(0x40006b00 | len(xs)*32<<16) // SPI_IOC_MESSAGE(N)
	n, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(&xs[0])))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func ioctlPtr(fd int, req uintptr, p unsafe.Pointer) error {
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(p)); e != 0 {
		return e
	}
	return nil
}

func ptr(b []byte) uint64 { return uint64(uintptr(unsafe.Pointer(&b[0]))) }

func main() {
	nodes, _ := filepath.Glob("/dev/spidev*")
	fmt.Println("pispi: nodes", nodes)
	fd, err := unix.Open("/dev/spidev0.0", unix.O_RDWR, 0)
	if err != nil {
		fmt.Println("pispi: open:", err)
		os.Exit(1)
	}
	var mode, bits uint8
	var speed uint32
	ioctlPtr(fd, rdMode, unsafe.Pointer(&mode))
	ioctlPtr(fd, rdBits, unsafe.Pointer(&bits))
	ioctlPtr(fd, rdMaxSpeed, unsafe.Pointer(&speed))
	fmt.Printf("pispi: mode %d bits %d max speed %d\n", mode, bits, speed)
	speed = 1_000_000
	fmt.Println("pispi: set speed", ioctlPtr(fd, wrMaxSpeed, unsafe.Pointer(&speed)))

	if len(os.Args) > 1 && os.Args[1] == "duplex" {
		tx, rx := []byte{cmdJEDEC, 0, 0, 0}, make([]byte, 4)
		n, err := message(fd, []transfer{{Tx: ptr(tx), Rx: ptr(rx), Len: 4}})
		fmt.Printf("pispi: jedec full duplex %d %v % x\n", n, err, rx[1:])
	} else {
		cmd, id := []byte{cmdJEDEC}, make([]byte, 3)
		n, err := message(fd, []transfer{{Tx: ptr(cmd), Len: 1}, {Rx: ptr(id), Len: 3}})
		fmt.Printf("pispi: jedec %d %v % x\n", n, err, id)
	}

	m := uint8(modeLSB)
	fmt.Println("pispi: LSB first:", ioctlPtr(fd, wrMode, unsafe.Pointer(&m)))
	b := uint8(16)
	fmt.Println("pispi: 16-bit words:", ioctlPtr(fd, wrBits, unsafe.Pointer(&b)))
	unix.Close(fd)
	fmt.Println("pispi: done")
}
