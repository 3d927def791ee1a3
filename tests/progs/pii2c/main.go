// Command pii2c drives the Raspberry Pi's I2C buses through Linux's
// i2c-dev (TestRPi4I2C), with a TMP105 temperature sensor at 0x48 on
// i2c-1 (QEMU's tmp105; on a board, the header's pins 3 and 5): the
// adapter's functionality, the temperature register read three ways
// (write then read, I2C_RDWR, I2C_SMBUS word data), a transfer of three
// messages, one that reads before it writes (which the BSC cannot),
// four threads' transfers at once, a process killed amid its
// transfers, and an address no device answers.
package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// i2c-dev.h and i2c.h (golang.org/x/sys/unix has none of these).
const (
	i2cSlave = 0x0703
	i2cFuncs = 0x0705
	i2cRdwr  = 0x0707
	i2cSMBus = 0x0720

	i2cMsgRead     = 0x0001
	smbusRead      = 1
	smbusWordData  = 3
	tmp105Addr     = 0x48
	tmp105RegTemp  = 0x00
	tmp105RegTLow  = 0x02
	tmp105RegTHigh = 0x03
	noDeviceAddr   = 0x50
)

type i2cMsg struct {
	Addr, Flags, Len uint16
	_                uint16
	Buf              uintptr
}

type rdwrData struct {
	Msgs  uintptr
	NMsgs uint32
}

type smbusData struct {
	ReadWrite uint8
	Command   uint8
	Size      uint32
	Data      uintptr
}

func ioctl(fd int, req uintptr, arg unsafe.Pointer) error {
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, uintptr(arg)); e != 0 {
		return e
	}
	return nil
}

func ioctlValue(fd int, req, v uintptr) error {
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, v); e != 0 {
		return e
	}
	return nil
}

// celsius is the TMP105's temperature register (two bytes, the value
// in the top 12 bits, 1/16 °C a step) in millidegrees.
func celsius(b []byte) int { return int(int16(binary.BigEndian.Uint16(b))>>4) * 1000 / 16 }

func main() {
	if len(os.Args) > 1 && os.Args[1] == "loop" {
		loop() // until killed
	}
	nodes, _ := filepath.Glob("/dev/i2c-*")
	fmt.Println("pii2c: nodes", nodes)
	fd, err := unix.Open("/dev/i2c-1", unix.O_RDWR, 0)
	if err != nil {
		fmt.Println("pii2c: open /dev/i2c-1:", err)
		os.Exit(1)
	}
	var funcs uint64
	err = ioctl(fd, i2cFuncs, unsafe.Pointer(&funcs))
	fmt.Printf("pii2c: funcs %#x %v\n", funcs, err)

	// Write the register pointer, then read it: plain write(2)/read(2)
	// to the address I2C_SLAVE set. The temperature register reads 0
	// on QEMU's TMP105 (its reset value); the limits are the chip's
	// power-on values, T_LOW 75 °C and T_HIGH 80 °C.
	fmt.Println("pii2c: slave", ioctlValue(fd, i2cSlave, tmp105Addr))
	fmt.Println("pii2c: temperature", readRegister(fd, tmp105RegTemp))
	fmt.Println("pii2c: rdwr t_low", rdwrRegister(fd, tmp105RegTLow))
	fmt.Println("pii2c: smbus t_high", smbusRegister(fd, tmp105RegTHigh))
	// A write of the pointer and two bytes sets T_LOW to 25 °C.
	if _, err := unix.Write(fd, []byte{tmp105RegTLow, 0x19, 0x00}); err != nil {
		fmt.Println("pii2c: write t_low:", err)
	}
	fmt.Println("pii2c: t_low now", rdwrRegister(fd, tmp105RegTLow))

	// Three messages in one transfer: T_LOW set to 30 °C, the pointer
	// written again, the register read after a repeated start.
	set, ptr, out := []byte{tmp105RegTLow, 0x1e, 0x00}, []byte{tmp105RegTLow}, make([]byte, 2)
	n, e := rdwr(fd, []i2cMsg{{Addr: tmp105Addr, Len: 3, Buf: addr(set)}, {Addr: tmp105Addr, Len: 1, Buf: addr(ptr)},
		{Addr: tmp105Addr, Flags: i2cMsgRead, Len: 2, Buf: addr(out)}})
	fmt.Printf("pii2c: three messages %d %v %d\n", n, errOf(e), celsius(out))
	// A read that is not the last message: the BSC cannot (EOPNOTSUPP,
	// as i2c-bcm2835 answers).
	_, e = rdwr(fd, []i2cMsg{{Addr: tmp105Addr, Flags: i2cMsgRead, Len: 2, Buf: addr(out)}, {Addr: tmp105Addr, Len: 1, Buf: addr(ptr)}})
	fmt.Println("pii2c: read first:", errOf(e))
	concurrent()
	killed()

	// No device at 0x50: the BSC sees no acknowledge (EREMOTEIO, as
	// Linux's i2c-bcm2835 answers).
	ioctlValue(fd, i2cSlave, noDeviceAddr)
	_, err = unix.Read(fd, make([]byte, 1))
	fmt.Println("pii2c: no device:", err)
	fmt.Println("pii2c: bad address:", ioctlValue(fd, i2cSlave, 0x80))
	unix.Close(fd)
	fmt.Println("pii2c: done")
}

func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }

func rdwr(fd int, msgs []i2cMsg) (uintptr, unix.Errno) {
	rd := rdwrData{Msgs: uintptr(unsafe.Pointer(&msgs[0])), NMsgs: uint32(len(msgs))}
	n, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), i2cRdwr, uintptr(unsafe.Pointer(&rd)))
	return n, e
}

// concurrent reads T_HIGH from four threads at once, each with its own
// descriptor, 50 times each: the transfers take turns on the bus and
// each gets its own answer.
func concurrent() {
	const threads, reads = 4, 50
	var wg sync.WaitGroup
	bad := make(chan string, threads*reads)
	for k := 0; k < threads; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			fd, err := unix.Open("/dev/i2c-1", unix.O_RDWR, 0)
			if err != nil {
				bad <- err.Error()
				return
			}
			defer unix.Close(fd)
			for i := 0; i < reads; i++ {
				if r := rdwrRegister(fd, tmp105RegTHigh); r != "2 <nil> 80000" {
					bad <- r
				}
			}
		}()
	}
	wg.Wait()
	close(bad)
	wrong := 0
	for r := range bad {
		if wrong++; wrong == 1 {
			fmt.Println("pii2c: concurrent: a wrong answer:", r)
		}
	}
	fmt.Printf("pii2c: concurrent: %d reads, %d wrong\n", threads*reads, wrong)
}

// killed starts a child that reads the sensor in a loop, kills it
// (SIGKILL ends a thread asleep in its transfer), and reads the sensor
// again: the killed thread's transfer has freed the bus.
func killed() {
	self, _ := os.Executable()
	c := exec.Command(self, "loop")
	out, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		fmt.Println("pii2c: start the loop:", err)
		return
	}
	line := make([]byte, 64)
	n, _ := out.Read(line) // the child's first transfer is done
	time.Sleep(20 * time.Millisecond)
	c.Process.Kill()
	err := c.Wait()
	fmt.Printf("pii2c: the loop said %q and ended: %v\n", line[:n], err)
	fd, _ := unix.Open("/dev/i2c-1", unix.O_RDWR, 0)
	fmt.Println("pii2c: after the kill: t_high", rdwrRegister(fd, tmp105RegTHigh))
	unix.Close(fd)
}

// loop reads T_HIGH until it is killed, saying so after the first.
func loop() {
	fd, _ := unix.Open("/dev/i2c-1", unix.O_RDWR, 0)
	fmt.Println("looping", rdwrRegister(fd, tmp105RegTHigh))
	for {
		rdwrRegister(fd, tmp105RegTHigh)
	}
}

// readRegister reads a register with write(2) of its number, then
// read(2) of its two bytes.
func readRegister(fd int, reg byte) string {
	if _, err := unix.Write(fd, []byte{reg}); err != nil {
		return "write: " + err.Error()
	}
	b := make([]byte, 2)
	n, err := unix.Read(fd, b)
	return fmt.Sprintf("%d %v %d", n, err, celsius(b))
}

// rdwrRegister reads a register as one I2C_RDWR of two messages.
func rdwrRegister(fd int, reg byte) string {
	r, out := []byte{reg}, make([]byte, 2)
	n, e := rdwr(fd, []i2cMsg{{Addr: tmp105Addr, Len: 1, Buf: addr(r)}, {Addr: tmp105Addr, Flags: i2cMsgRead, Len: 2, Buf: addr(out)}})
	return fmt.Sprintf("%d %v %d", n, errOf(e), celsius(out))
}

// smbusRegister reads a register as SMBus read word data: the word's
// low byte is the first one received (i2c_smbus_xfer_emulated), which
// the TMP105 sends most significant first, so the word's bytes in
// memory are the register's in order.
func smbusRegister(fd int, reg byte) string {
	var word [34]byte
	s := smbusData{ReadWrite: smbusRead, Command: reg, Size: smbusWordData, Data: uintptr(unsafe.Pointer(&word[0]))}
	err := ioctl(fd, i2cSMBus, unsafe.Pointer(&s))
	return fmt.Sprintf("%v %d", err, celsius(word[:2]))
}

func errOf(e unix.Errno) error {
	if e != 0 {
		return e
	}
	return nil
}
