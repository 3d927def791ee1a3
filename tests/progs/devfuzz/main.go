// Command devfuzz throws hostile calls at the Pi's device files
// (TestDeviceFuzzer): every ioctl each device answers, with random
// bytes in its structure, bad pointers (nil, unmapped, the kernel's,
// straddling a guard page), random lengths and offsets for read, write
// and lseek, mmap with what may follow it, on the GPIO chips and the
// line requests they make, the framebuffer, I2C, SPI and the RTC. The kernel must answer every call
// and stay well: afterwards each device still works, and the program
// says so.
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The devices and the requests they answer (gpio.h, fb.h, i2c-dev.h,
// spidev.h, rtc.h).
var devices = []struct {
	path string
	reqs []uintptr
}{
	{"/dev/gpiochip0", gpioReqs},
	{"/dev/gpiochip1", gpioReqs},
	{"/dev/fb0", []uintptr{0x4600, 0x4601, 0x4602, 0x4606, 0x4611}},
	{"/dev/i2c-1", []uintptr{0x0701, 0x0702, 0x0703, 0x0704, 0x0705, 0x0706, 0x0707, 0x0708, 0x0720}},
	{"/dev/spidev0.0", []uintptr{spiMessage(1), spiMessage(2), spiMessage(40), 0x80016b01, 0x40016b01, 0x80016b02,
		0x40016b02, 0x80016b03, 0x40016b03, 0x80046b04, 0x40046b04, 0x80046b05, 0x40046b05}},
	{"/dev/rtc0", []uintptr{0x80247009, 0x4024700a, 0x7001, 0x7002}},
}

var gpioReqs = []uintptr{0x8044b401, 0xc004b40c, 0xc100b405, 0xc100b406, 0xc250b407, 0xc110b40d, 0xc010b40e, 0xc010b40f}

// spiMessage is SPI_IOC_MESSAGE(n): _IOW('k', 0, n transfers of 32 bytes).
func spiMessage(n uintptr) uintptr { return 1<<30 | (n*32)<<16 | 'k'<<8 }

// Line requests the fuzz made (GPIO_V2_GET_LINE's fd field), fuzzed too.
var lineFDs []int

const maxLineFDs = 16

func main() {
	calls := 20000
	if len(os.Args) > 1 {
		calls, _ = strconv.Atoi(os.Args[1])
	}
	seed := uint64(1)
	if len(os.Args) > 2 {
		seed, _ = strconv.ParseUint(os.Args[2], 10, 64)
	}
	r := rand.New(rand.NewPCG(seed, 42))
	var fds []int
	for _, d := range devices {
		fd, err := unix.Open(d.path, unix.O_RDWR|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			fmt.Printf("devfuzz: FAIL: %s: %v\n", d.path, err)
			os.Exit(1)
		}
		fds = append(fds, fd)
	}
	// The buffer the structures come from: two pages, the second
	// inaccessible, so that a structure may straddle the boundary.
	mem, err := unix.Mmap(-1, 0, 2*4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		fmt.Println("devfuzz: FAIL: mmap:", err)
		os.Exit(1)
	}
	unix.Mprotect(mem[4096:], unix.PROT_NONE)
	base := uintptr(unsafe.Pointer(&mem[0]))
	ptr := func() uintptr {
		switch r.IntN(8) {
		case 0:
			return 0
		case 1:
			return 1 << 40 // unmapped
		case 2:
			return 0xffff000000001000 // the kernel's
		case 3:
			return base + 4096 - uintptr(1+r.IntN(64)) // runs into the guard page
		}
		return base + uintptr(r.IntN(2048))
	}
	answered, made, ok := 0, 0, 0
	for k := 0; k < calls; k++ {
		for i := range mem[:4096] {
			if r.IntN(4) == 0 {
				mem[i] = byte(r.Uint32())
			}
		}
		// Small offsets and line counts half the time, so that the
		// structures get past the first checks.
		if r.IntN(2) == 0 {
			for i := 0; i < 64; i++ {
				mem[i*4] = byte(r.IntN(10))
				mem[i*4+1], mem[i*4+2], mem[i*4+3] = 0, 0, 0
			}
		}
		d := r.IntN(len(devices))
		fd := fds[d]
		if len(lineFDs) > 0 && r.IntN(4) == 0 {
			fd = lineFDs[r.IntN(len(lineFDs))]
		}
		var rv uintptr
		var errno unix.Errno
		switch r.IntN(7) {
		case 0, 1, 2:
			req := devices[d].reqs[r.IntN(len(devices[d].reqs))]
			if r.IntN(10) == 0 {
				req = uintptr(r.Uint32())
			}
			p := ptr()
			if req == 0xc250b407 && r.IntN(2) == 0 {
				// Past the first checks: a request that is well formed
				// but for its flags and offsets.
				p = base + 8*uintptr(r.IntN(64))
				lineRequest(r, mem[p-base:p-base+592])
			}
			rv, _, errno = unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, p)
			if errno == 0 && req == 0xc250b407 && p >= base && p+592 <= base+4096 {
				// A line request: its descriptor is in the fd field.
				o := p - base + 588
				lfd := int(int32(uint32(mem[o]) | uint32(mem[o+1])<<8 | uint32(mem[o+2])<<16 | uint32(mem[o+3])<<24))
				made++
				// Its reads would wait for an edge (as on Linux): not here.
				unix.SetNonblock(lfd, true)
				if len(lineFDs) < maxLineFDs {
					lineFDs = append(lineFDs, lfd)
				} else {
					unix.Close(lfd)
				}
			}
		case 3:
			rv, _, errno = unix.Syscall(unix.SYS_READ, uintptr(fd), ptr(), uintptr(r.IntN(8192)))
		case 4:
			rv, _, errno = unix.Syscall6(unix.SYS_PWRITE64, uintptr(fd), ptr(), uintptr(r.IntN(8192)),
				uintptr(r.Int64N(3<<20)), 0, 0)
		case 5:
			rv, _, errno = unix.Syscall(unix.SYS_LSEEK, uintptr(fd), uintptr(r.Int64N(3<<20)-1<<20), uintptr(r.IntN(5)))
		case 6:
			errno = mapFuzz(r, fd)
		}
		_ = rv
		if errno != unix.ENOSYS {
			answered++
		}
		if errno == 0 {
			ok++
		}
		if len(lineFDs) > 0 && r.IntN(10) == 0 {
			unix.Close(lineFDs[0])
			lineFDs = lineFDs[1:]
		}
	}
	for _, lfd := range lineFDs {
		unix.Close(lfd)
	}
	fmt.Printf("devfuzz: %d calls answered\n", answered)
	// How far the fuzz reached: calls that succeeded, line requests made.
	fmt.Printf("devfuzz: %d succeeded, %d line requests made, %d mappings made\n", ok, made, mapped)
	check(fds)
}

// mapped counts the mappings mapFuzz made.
var mapped int

// fbLen is /dev/fb0's buffer on raspi4b: 640x960 32-bit pixels.
const fbLen = 640 * 960 * 4

// mapFuzz maps fd (answered only by /dev/fb0) at a random offset, most
// often page aligned, a random length around the buffer's, random
// rights and flags; made, the mapping is touched, given to the kernel
// as a buffer (pread into it, pwrite from it: the kernel copies through
// the device's pages), changed (mprotect, mremap, madvise) and unmapped.
func mapFuzz(r *rand.Rand, fd int) unix.Errno {
	off := int64(r.IntN(700)) * 4096
	if r.IntN(8) == 0 {
		off += int64(r.IntN(4096))
	}
	n := uintptr(1 + r.IntN(fbLen+3*4096))
	prot := r.IntN(8)
	flags := []int{unix.MAP_SHARED, unix.MAP_PRIVATE, unix.MAP_SHARED_VALIDATE, 0}[r.IntN(4)]
	p, err := unix.MmapPtr(fd, off, nil, n, prot, flags)
	if err != nil {
		return err.(unix.Errno)
	}
	mapped++
	b := unsafe.Slice((*byte)(p), n)
	k := r.IntN(int(n))
	if prot&(unix.PROT_READ|unix.PROT_WRITE) != 0 {
		_ = b[k]
	}
	if prot&unix.PROT_WRITE != 0 {
		b[k] ^= 0xff
	}
	a, m := uintptr(p)+uintptr(k), uintptr(r.IntN(int(n)-k+1))
	var e unix.Errno
	switch r.IntN(6) {
	case 0:
		_, _, e = unix.Syscall6(unix.SYS_PREAD64, uintptr(fd), a, m, uintptr(r.IntN(fbLen)), 0, 0)
	case 1:
		_, _, e = unix.Syscall6(unix.SYS_PWRITE64, uintptr(fd), a, m, uintptr(r.IntN(fbLen)), 0, 0)
	case 2:
		_, _, e = unix.Syscall(unix.SYS_MPROTECT, uintptr(p), n, uintptr(r.IntN(8)))
	case 3:
		nn := uintptr(1 + r.IntN(int(n)+8192))
		np, err := unix.MremapPtr(p, n, nil, nn, unix.MREMAP_MAYMOVE)
		if err == nil {
			p, n = np, nn
		}
		e = errnoOf(err)
	case 4:
		_, _, e = unix.Syscall(unix.SYS_MADVISE, uintptr(p), n, unix.MADV_DONTNEED)
	}
	if err := unix.MunmapPtr(p, n); err != nil {
		fmt.Println("devfuzz: FAIL: munmap:", err)
		os.Exit(1)
	}
	return e
}

func errnoOf(err error) unix.Errno {
	if err == nil {
		return 0
	}
	return err.(unix.Errno)
}

// lineRequest writes a struct gpio_v2_line_request into b with zero
// padding, a few small offsets, and random flags and attributes.
func lineRequest(r *rand.Rand, b []byte) {
	clear(b)
	put32 := func(o int, v uint32) {
		b[o], b[o+1], b[o+2], b[o+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	put64 := func(o int, v uint64) { put32(o, uint32(v)); put32(o+4, uint32(v>>32)) }
	n := 1 + r.IntN(4)
	for k := 0; k < n; k++ {
		put32(4*k, uint32(r.IntN(10)))
	}
	copy(b[256:], "devfuzz")
	const config = 288
	put64(config, flags(r))
	na := r.IntN(4)
	put32(config+8, uint32(na))
	for a := 0; a < na; a++ {
		o := config + 32 + 24*a
		put32(o, uint32(1+r.IntN(3))) // flags, output values, debounce
		put64(o+8, flags(r))
		put64(o+16, r.Uint64())
	}
	put32(560, uint32(n))
	put32(564, uint32(r.IntN(300)))
}

// flags are a line's flags: mostly a sensible set, else any of the 13
// bits uAPI v2 defines.
func flags(r *rand.Rand) uint64 {
	const in, out, rise, fall, low, drain, up, debounced = 1 << 2, 1 << 3, 1 << 4, 1 << 5, 1 << 1, 1 << 6, 1 << 8, 1 << 11
	sets := []uint64{in, out, in | rise, in | rise | fall | low, out | drain, in | up, in | fall | debounced, 0}
	if r.IntN(4) > 0 {
		return sets[r.IntN(len(sets))]
	}
	return uint64(r.IntN(1 << 13))
}

// check shows each device still works after the fuzz.
func check(fds []int) {
	var info [68]byte
	for i, d := range devices[:2] {
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fds[i]), 0x8044b401, uintptr(unsafe.Pointer(&info[0])))
		fmt.Printf("devfuzz: %s chip info %v, %d lines\n", d.path, errStr(e), *(*uint32)(unsafe.Pointer(&info[64])))
	}
	// A line of the mockup chip, requested as an output, set and read.
	var req [592]byte
	*(*uint32)(unsafe.Pointer(&req[0])) = 2          // offset
	*(*uint64)(unsafe.Pointer(&req[288])) = 1 << 3   // config flags: output
	*(*uint32)(unsafe.Pointer(&req[256+32+272])) = 1 // num_lines
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fds[1]), 0xc250b407, uintptr(unsafe.Pointer(&req[0])))
	if e == 0 {
		lfd := uintptr(*(*int32)(unsafe.Pointer(&req[588])))
		vals := [2]uint64{1, 1}
		_, _, e = unix.Syscall(unix.SYS_IOCTL, lfd, 0xc010b40f, uintptr(unsafe.Pointer(&vals[0])))
		vals = [2]uint64{0, 1}
		unix.Syscall(unix.SYS_IOCTL, lfd, 0xc010b40e, uintptr(unsafe.Pointer(&vals[0])))
		fmt.Printf("devfuzz: a line set %v, reads %d\n", errStr(e), vals[0])
		unix.Close(int(lfd))
	} else {
		fmt.Printf("devfuzz: a line request: %v\n", e)
	}
	var v [160]byte
	_, _, e = unix.Syscall(unix.SYS_IOCTL, uintptr(fds[2]), 0x4600, uintptr(unsafe.Pointer(&v[0])))
	fmt.Printf("devfuzz: fb info %v, %dx%d\n", errStr(e), *(*uint32)(unsafe.Pointer(&v[0])), *(*uint32)(unsafe.Pointer(&v[4])))
	var tm [36]byte
	_, _, e = unix.Syscall(unix.SYS_IOCTL, uintptr(fds[5]), 0x80247009, uintptr(unsafe.Pointer(&tm[0])))
	fmt.Printf("devfuzz: rtc read %v\n", errStr(e))
	fmt.Println("devfuzz ok")
}

func errStr(e unix.Errno) string {
	if e == 0 {
		return "ok"
	}
	return e.Error()
}
