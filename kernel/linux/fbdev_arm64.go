package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/mount"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// /dev/fb0, Linux's framebuffer device (drivers/video/fbdev/core/fbmem.c;
// the ABI is include/uapi/linux/fb.h, which golang.org/x/sys/unix does
// not carry): the screen's variable and fixed information, panning, and
// the buffer read and written at a position, as fb_read and fb_write
// move it, and the buffer mapped into a program (fb_mmap: mm's device
// mappings, VMADevice).

const (
	fbMajor = 29 // FB_MAJOR

	fbioGetVScreenInfo = 0x4600
	fbioPutVScreenInfo = 0x4601
	fbioGetFScreenInfo = 0x4602
	fbioPanDisplay     = 0x4606
	fbioBlank          = 0x4611

	fbTypePackedPixels = 0 // FB_TYPE_PACKED_PIXELS
	fbVisualTrueColor  = 2 // FB_VISUAL_TRUECOLOR
	fbActivateMask     = 0x0f
	fbActivateTest     = 2 // FB_ACTIVATE_TEST: check, do not set
	fbVModeYWrap       = 256
	fbBlankPowerdown   = 4 // FB_BLANK_POWERDOWN, the deepest
)

// fbBitfield is struct fb_bitfield: a colour's place in a pixel.
type fbBitfield struct{ Offset, Length, MSBRight uint32 }

// fbVarScreenInfo is struct fb_var_screeninfo.
type fbVarScreenInfo struct {
	XRes, YRes, XResVirtual, YResVirtual uint32
	XOffset, YOffset                     uint32
	BitsPerPixel, Grayscale              uint32
	Red, Green, Blue, Transp             fbBitfield
	Nonstd, Activate                     uint32
	Height, Width                        uint32 // in mm; unknown: 0xffffffff
	AccelFlags, Pixclock                 uint32
	LeftMargin, RightMargin              uint32
	UpperMargin, LowerMargin             uint32
	HsyncLen, VsyncLen                   uint32
	Sync, Vmode, Rotate, Colorspace      uint32
	Reserved                             [4]uint32
}

// fbFixScreenInfo is struct fb_fix_screeninfo as arm64 lays it out
// (its unsigned longs are 8 bytes).
type fbFixScreenInfo struct {
	ID                             [16]byte
	SmemStart                      uint64
	SmemLen, Type, TypeAux, Visual uint32
	XPanStep, YPanStep, YWrapStep  uint16
	_                              uint16
	LineLength                     uint32
	MmioStart                      uint64
	MmioLen, Accel                 uint32
	Capabilities                   uint16
	Reserved                       [2]uint16
}

var (
	_ [160 - unsafe.Sizeof(fbVarScreenInfo{})]struct{}
	_ [unsafe.Sizeof(fbVarScreenInfo{}) - 160]struct{}
	_ [80 - unsafe.Sizeof(fbFixScreenInfo{})]struct{}
	_ [unsafe.Sizeof(fbFixScreenInfo{}) - 80]struct{}
)

// fbID is the driver's name in the fixed information (Linux's
// bcm2708_fb says "BCM2708 FB").
const fbID = "BCM2708 FB"

// fbDev is the Impl of /dev/fb0.
type fbDev struct{ nodeDev }

var fbDevImpl fbDev

// fbBuf is where the buffer's bytes pass (under the kernel lock).
var (
	fbBuf [4096]byte
	fbVar fbVarScreenInfo
)

// fbNode appends /dev/fb0 (crw-rw---- root video on Linux; here root's,
// 0660) when the machine has a framebuffer.
func fbNode(nodes []mount.DevNode) int {
	if !kernel.FB.Present || len(nodes) == 0 {
		return 0
	}
	nodes[0] = mount.DevNode{Name: "fb0", Mode: unix.S_IFCHR | 0o660, Rdev: fbMajor << 8}
	return 1
}

// openFB opens /dev/fb0 from node i: ENODEV without a framebuffer, as
// fb_open answers for a minor no driver registered.
func openFB(i int32, flags uint32, cloexec bool) uint64 {
	if !kernel.FB.Present || fs.Inodes[i].Rdev&0xff != 0 {
		return errno(unix.ENODEV)
	}
	fd := openDevNode(&fbDevImpl, i, flags, cloexec)
	if !vfs.IsErr(fd) {
		kernel.FBConsoleOff() // the screen is the program's while it has it open
	}
	return fd
}

func (d *fbDev) Release(f *vfs.File) {
	kernel.FBConsoleOn()
	d.nodeDev.Release(f)
}

// fbVarInfo is the screen's variable information now.
func fbVarInfo(v *fbVarScreenInfo) {
	b := &kernel.FB
	*v = fbVarScreenInfo{XRes: b.Width, YRes: b.Height, XResVirtual: b.Width, YResVirtual: b.VirtualHeight,
		XOffset: b.XOffset, YOffset: b.YOffset, BitsPerPixel: b.BitsPerPixel,
		// XRGB8888: the firmware's BGR order puts blue in the low byte.
		Red: fbBitfield{Offset: 16, Length: 8}, Green: fbBitfield{Offset: 8, Length: 8}, Blue: fbBitfield{Length: 8},
		Height: ^uint32(0), Width: ^uint32(0)}
}

// Ioctl answers the framebuffer's requests (do_fb_ioctl).
func (d *fbDev) Ioctl(f *vfs.File, req uint64, arg uintptr) uint64 {
	b := &kernel.FB
	switch req {
	case fbioGetVScreenInfo:
		fbVarInfo(&fbVar)
		if !usermem.CopyOut(arg, asBytes(&fbVar)) {
			return errno(unix.EFAULT)
		}
		return 0
	case fbioGetFScreenInfo:
		fx := fbFixScreenInfo{SmemStart: uint64(b.PA), SmemLen: b.Size, Type: fbTypePackedPixels,
			Visual: fbVisualTrueColor, YPanStep: 1, LineLength: b.Pitch}
		copy(fx.ID[:len(fx.ID)-1], fbID)
		if !usermem.CopyOut(arg, asBytes(&fx)) {
			return errno(unix.EFAULT)
		}
		return 0
	case fbioPutVScreenInfo, fbioPanDisplay:
		var want fbVarScreenInfo
		if !usermem.CopyIn(asBytes(&want), arg) {
			return errno(unix.EFAULT)
		}
		if req == fbioPutVScreenInfo {
			// The mode is the one the firmware set at boot: a request
			// for another is EINVAL (as a driver's check_var that
			// cannot change it); the same mode may move the view.
			if want.XRes != b.Width || want.YRes != b.Height || want.XResVirtual != b.Width ||
				want.YResVirtual != b.VirtualHeight || want.BitsPerPixel != b.BitsPerPixel {
				return errno(unix.EINVAL)
			}
			if want.Activate&fbActivateMask == fbActivateTest {
				return fbCopyOutVar(arg)
			}
		}
		// fb_pan_display: the view must fit the virtual screen; no
		// y-wrap (ypanstep 1, ywrapstep 0).
		if want.Vmode&fbVModeYWrap != 0 || want.XOffset != 0 || want.YOffset > b.VirtualHeight-b.Height {
			return errno(unix.EINVAL)
		}
		if (want.YOffset != b.YOffset || want.XOffset != b.XOffset) && !kernel.FBPan(want.XOffset, want.YOffset) {
			return errno(unix.EIO)
		}
		if req == fbioPutVScreenInfo {
			return fbCopyOutVar(arg)
		}
		return 0
	case fbioBlank:
		if arg > fbBlankPowerdown {
			return errno(unix.EINVAL)
		}
		return 0 // the firmware's HDMI stays on: nothing to blank
	}
	return errno(unix.ENOTTY)
}

// fbCopyOutVar writes the variable information back (FBIOPUT_VSCREENINFO
// answers with what it set).
func fbCopyOutVar(arg uintptr) uint64 {
	fbVarInfo(&fbVar)
	if !usermem.CopyOut(arg, asBytes(&fbVar)) {
		return errno(unix.EFAULT)
	}
	return 0
}

// Read copies the buffer from the position (fb_read): 0 at its end.
func (d *fbDev) Read(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	return fbIO(f, buf, n, off, false)
}

// Write copies into the buffer at the position (fb_write): EFBIG past
// its end, ENOSPC for a write that starts at it, a short count for one
// that reaches it.
func (d *fbDev) Write(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	return fbIO(f, buf, n, off, true)
}

func fbIO(f *vfs.File, buf uintptr, n uint64, off int64, write bool) uint64 {
	pos := off
	if off < 0 {
		pos = f.Pos
	}
	size := int64(kernel.FB.Size)
	if pos > size {
		if write {
			return errno(unix.EFBIG)
		}
		return 0
	}
	n = min(n, uint64(size-pos))
	if n == 0 {
		if write {
			return errno(unix.ENOSPC)
		}
		return 0
	}
	var done uint64
	for done < n {
		c := min(n-done, uint64(len(fbBuf)))
		chunk := fbBuf[:c]
		if write {
			if !usermem.CopyIn(chunk, buf+uintptr(done)) {
				break
			}
			kernel.FBCopy(uint32(pos)+uint32(done), chunk, true)
		} else {
			kernel.FBCopy(uint32(pos)+uint32(done), chunk, false)
			if !usermem.CopyOut(buf+uintptr(done), chunk) {
				break
			}
		}
		done += c
	}
	if done == 0 {
		return errno(unix.EFAULT)
	}
	if off < 0 {
		f.Pos += int64(done)
	}
	return done
}

// Seek: SEEK_END is the buffer's size (default_llseek on fbmem).
func (d *fbDev) Seek(f *vfs.File, off int64, whence int) uint64 {
	return fs.SeekFile(f, off, whence, int64(kernel.FB.Size))
}

// isFBNode reports whether inode i is /dev/fb0's node (a character
// device of fbMajor, minor 0).
func isFBNode(i int32) bool {
	n := &fs.Inodes[i]
	return kernel.FB.Present && n.Mode&unix.S_IFMT == unix.S_IFCHR && n.Rdev == fbMajor<<8
}

// mapFB answers mmap of /dev/fb0 (fb_mmap, and vm_iomap_memory's
// checks): the buffer's pages from the offset, a mapping no longer than
// what is left of them (EINVAL, as past the buffer where Linux would
// map the card's registers, which this one has none of). A shared
// mapping that may write needs a description open for writing (EACCES,
// as do_mmap). A private one shows the buffer, and a write through it
// copies the page (mm's deviceFault).
func mapFB(s *mm.Space, f *sched.Frame, fl *vfs.File, p mm.Prot, flags int) uint64 {
	off, length := uintptr(f.X[5]), uintptr(f.X[1])
	pages := fbMapLen()
	switch {
	case !fl.Readable() || isShared(flags) && p&mm.ProtWrite != 0 && !fl.Writable():
		return errno(unix.EACCES)
	case length == 0 || off > pages || mm.PageUp(length) > pages-off || mm.PageUp(length) < length:
		return errno(unix.EINVAL)
	}
	v := mm.VMA{Prot: p, Flags: mm.VMADevice, File: devNodes[fl.Index()], Mnt: fs.MountOf(fl), Off: off}
	if isShared(flags) {
		v.Flags |= mm.VMAShared
		if !fl.Writable() {
			v.Flags |= mm.VMANoWrite
		}
	}
	a, e := s.MmapVMA(uintptr(f.X[0]), length, v, flags, true)
	if e != 0 {
		return errno(e)
	}
	return uint64(a)
}

// fbMapLen is how much of the buffer a mapping may show: its whole
// pages (smem_len rounded up, as vm_iomap_memory rounds it).
func fbMapLen() uintptr { return mm.PageUp(uintptr(kernel.FB.Size)) }

// devicePage answers mm.DevicePage: /dev/fb0's buffer from off. Without
// the kernel lock (a fault's): the buffer is fixed at boot, and the
// mapping holds the node.
func devicePage(file int32, off uintptr) (pa, n uintptr) {
	pages := fbMapLen()
	if !isFBNode(file) || off >= pages {
		return 0, 0
	}
	return kernel.FB.PA + off, pages - off
}

// fbMapRef counts a mapping of /dev/fb0 (delta 1 made, -1 gone: mm's
// FileRef) as a use of the screen, as an open description is: the
// console keeps off it until both are gone (FBConsoleOff).
func fbMapRef(file int32, delta int) {
	if !isFBNode(file) {
		return
	}
	if delta > 0 {
		kernel.FBConsoleOff()
	} else {
		kernel.FBConsoleOn()
	}
}
