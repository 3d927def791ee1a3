package kernel

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/bcm2711"
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/kernel/mm"
)

// The Raspberry Pi's HDMI framebuffer (docs/ARCHITECTURE.md, "The
// Raspberry Pi's devices"): asked of the VideoCore's firmware at boot
// through the mailbox's property channel, as Linux's bcm2708_fb asks
// it: the display's size (640x480 when the firmware knows none), 32 bits
// a pixel in XRGB order (the firmware's "BGR" pixel order: blue in the
// low byte), a virtual height of two screens for panning, and the
// buffer. The buffer is the VideoCore's memory, outside the ARM's RAM,
// which the kernel's direct map has as Device memory; initFB makes its
// blocks Normal non-cacheable (mm.MapNonCacheable, as Linux's
// ioremap_wc): stores are posted and combined, unaligned accesses
// allowed, and the VideoCore, which does not snoop the ARM's caches,
// sees every store.

// The framebuffer's geometry.
const (
	fbDefaultWidth  = 640
	fbDefaultHeight = 480
	fbBitsPerPixel  = 32
	fbPixelOrderBGR = 0 // the firmware's pixel order: bytes B, G, R, X (XRGB8888)
	fbScreens       = 2 // the virtual height, in screens: one to draw, one shown
	fbAlign         = 4096
	// fbBusMask turns the buffer's bus address (the firmware gives the
	// VideoCore's view, 0xC0000000 | pa) into the ARM's physical one.
	fbBusMask = 0x3fffffff
)

// Framebuffer is the buffer the firmware gave.
type Framebuffer struct {
	Present          bool
	PA               uintptr
	Size             uint32
	Width, Height    uint32 // the screen
	VirtualHeight    uint32
	BitsPerPixel     uint32
	Pitch            uint32 // bytes a line
	XOffset, YOffset uint32
}

// FB is the framebuffer, when the firmware gave one.
var FB Framebuffer

func initFB() {
	if !Board.Present {
		return
	}
	w, h := uint32(fbDefaultWidth), uint32(fbDefaultHeight)
	if v, ok := property(bcm2711.TagFBGetPhysSize, 8); ok && v[0] != 0 && v[1] != 0 {
		w, h = v[0], v[1]
	}
	if !fbSet(bcm2711.TagFBSetPhysSize, w, h) || !fbSet(bcm2711.TagFBSetVirtSize, w, h*fbScreens) ||
		!fbSet(bcm2711.TagFBSetDepth, fbBitsPerPixel, 0) || !fbSet(bcm2711.TagFBSetPixelOrder, fbPixelOrderBGR, 0) {
		logLine("fb: the firmware refused the mode; no framebuffer")
		return
	}
	propValue = [bcm2711.PropWords]uint32{}
	propValue[0] = fbAlign
	v, ok := propertyWith(bcm2711.TagFBAllocate, 8)
	if !ok || v[0] == 0 || v[1] == 0 {
		logLine("fb: the firmware gave no buffer; no framebuffer")
		return
	}
	pa, size := uintptr(v[0]&fbBusMask), v[1]
	p, ok := property(bcm2711.TagFBGetPitch, 4)
	if !ok || p[0] < w*fbBitsPerPixel/8 || uint64(p[0])*uint64(h)*fbScreens > uint64(size) {
		logLine("fb: the firmware's pitch does not fit its buffer; no framebuffer")
		return
	}
	// Normal non-cacheable, as Linux maps it (ioremap_wc): posted and
	// combined stores, unaligned accesses allowed; the VideoCore still
	// sees every store, the ARM's caches never holding one.
	if !mm.MapNonCacheable(&mm.Pages, kernelRoot, pa, uintptr(size), cpu.TLBIAll) {
		logLine("fb: no page to map the buffer; no framebuffer")
		return
	}
	FB = Framebuffer{Present: true, PA: pa, Size: size, Width: w, Height: h, VirtualHeight: h * fbScreens,
		BitsPerPixel: fbBitsPerPixel, Pitch: p[0]}
	if Info("fb: ") {
		PutDec(int64(w))
		Puts("x")
		PutDec(int64(h))
		Puts(", 32 bpp, ")
		PutDec(int64(size >> 10))
		Puts(" KiB at ")
		PutHex(uint64(pa))
		Puts(" (/dev/fb0)")
		InfoEnd()
	}
}

// fbSet asks the firmware to set a two-word framebuffer property.
func fbSet(tag, a, b uint32) bool {
	propValue = [bcm2711.PropWords]uint32{}
	propValue[0], propValue[1] = a, b
	_, ok := propertyWith(tag, 8)
	return ok
}

// FBPan shows the buffer from line y (FBIOPAN_DISPLAY); false when the
// firmware refused. Under the kernel lock.
func FBPan(x, y uint32) bool {
	if !fbSet(bcm2711.TagFBSetVirtOffset, x, y) {
		return false
	}
	FB.XOffset, FB.YOffset = x, y
	return true
}

// FBCopy moves len(buf) bytes between buf and the framebuffer at off
// (into it when toFB), which the caller bounds by FB.Size: a plain copy,
// the buffer being Normal memory (non-cacheable).
func FBCopy(off uint32, buf []byte, toFB bool) {
	fb := unsafe.Slice((*byte)(cpu.Ptr(cpu.KVA(FB.PA)+uintptr(off))), len(buf))
	if toFB {
		copy(fb, buf)
	} else {
		copy(buf, fb)
	}
}
