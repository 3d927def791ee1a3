// Command pifb draws on the Raspberry Pi's framebuffer through Linux's
// /dev/fb0 with plain Go (image/draw), as a program on a Pi's Linux
// would (TestRPi4Framebuffer): the screen's information, four coloured
// quadrants drawn into an image and written line by line at the fixed
// information's line length, read back and seen through mmap; then a
// yellow screen with a magenta square drawn by image/draw straight into
// the mapped buffer's second half, and shown by FBIOPAN_DISPLAY. After
// each picture it waits for a line on its input, so that the test can
// take QEMU's screendump of what the display shows. With the argument
// "console" it only prints two lines, one in colours, which the
// screen's console draws, and waits.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// include/uapi/linux/fb.h.
const (
	fbioGetVScreenInfo = 0x4600
	fbioGetFScreenInfo = 0x4602
	fbioPanDisplay     = 0x4606
)

type bitfield struct{ Offset, Length, MSBRight uint32 }

type varInfo struct {
	XRes, YRes, XResVirtual, YResVirtual, XOffset, YOffset, BitsPerPixel, Grayscale uint32
	Red, Green, Blue, Transp                                                        bitfield
	Rest                                                                            [24]uint32
}

type fixInfo struct {
	ID                             [16]byte
	SmemStart                      uint64
	SmemLen, Type, TypeAux, Visual uint32
	XPanStep, YPanStep, YWrapStep  uint16
	_                              uint16
	LineLength                     uint32
	Rest                           [24]byte
}

func say(format string, args ...any) { fmt.Printf("pifb: "+format+"\n", args...) }

func fail(format string, args ...any) {
	say("FAIL: "+format, args...)
	os.Exit(1)
}

func ioctl(fd uintptr, req uintptr, p unsafe.Pointer) error {
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, fd, req, uintptr(p)); e != 0 {
		return e
	}
	return nil
}

// pixels turns img's rows y0.. into the screen's XRGB8888 bytes, pitch
// bytes a line.
func pixels(img *image.RGBA, v *varInfo, pitch int) []byte {
	b := img.Bounds()
	out := make([]byte, pitch*b.Dy())
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			c := img.RGBAAt(x, y)
			px := uint32(c.R)<<v.Red.Offset | uint32(c.G)<<v.Green.Offset | uint32(c.B)<<v.Blue.Offset
			o := y*pitch + x*4
			out[o], out[o+1], out[o+2], out[o+3] = byte(px), byte(px>>8), byte(px>>16), byte(px>>24)
		}
	}
	return out
}

// le32 is the little-endian word at off in b: a pixel.
func le32(b []byte, off int) uint32 {
	return uint32(b[off]) | uint32(b[off+1])<<8 | uint32(b[off+2])<<16 | uint32(b[off+3])<<24
}

// fbImage is a draw.Image over the mapped buffer: image/draw draws on
// the screen's memory itself.
type fbImage struct {
	mem   []byte
	v     *varInfo
	pitch int
	r     image.Rectangle
}

func (m *fbImage) ColorModel() color.Model { return color.RGBAModel }
func (m *fbImage) Bounds() image.Rectangle { return m.r }

func (m *fbImage) At(x, y int) color.Color {
	px := le32(m.mem, y*m.pitch+x*4)
	return color.RGBA{byte(px >> m.v.Red.Offset), byte(px >> m.v.Green.Offset), byte(px >> m.v.Blue.Offset), 255}
}

func (m *fbImage) Set(x, y int, c color.Color) {
	if !(image.Point{x, y}).In(m.r) {
		return
	}
	r, g, b, _ := c.RGBA()
	px := (r>>8)<<m.v.Red.Offset | (g>>8)<<m.v.Green.Offset | (b>>8)<<m.v.Blue.Offset
	o := y*m.pitch + x*4
	m.mem[o], m.mem[o+1], m.mem[o+2], m.mem[o+3] = byte(px), byte(px>>8), byte(px>>16), byte(px>>24)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "console" {
		// The screen's console: a line drawn there as on the UART,
		// kept until the test has looked.
		say("in colour: \x1b[31mred\x1b[0m and \x1b[1;32mbright green\x1b[0m")
		say("on the screen: Hello, Pi on a monitor!")
		bufio.NewReader(os.Stdin).ReadString('\n')
		say("done")
		return
	}
	f, err := os.OpenFile("/dev/fb0", os.O_RDWR, 0)
	if err != nil {
		fail("open: %v", err)
	}
	defer f.Close()
	var v varInfo
	var fx fixInfo
	if err := ioctl(f.Fd(), fbioGetVScreenInfo, unsafe.Pointer(&v)); err != nil {
		fail("FBIOGET_VSCREENINFO: %v", err)
	}
	if err := ioctl(f.Fd(), fbioGetFScreenInfo, unsafe.Pointer(&fx)); err != nil {
		fail("FBIOGET_FSCREENINFO: %v", err)
	}
	say("var %dx%d virtual %dx%d, %d bpp, red %d green %d blue %d",
		v.XRes, v.YRes, v.XResVirtual, v.YResVirtual, v.BitsPerPixel, v.Red.Offset, v.Green.Offset, v.Blue.Offset)
	id := fx.ID[:bytes.IndexByte(fx.ID[:], 0)]
	say("fix %q line length %d, %d bytes, visual %d, ypanstep %d", id, fx.LineLength, fx.SmemLen, fx.Visual, fx.YPanStep)
	if v.BitsPerPixel != 32 {
		fail("this program draws 32-bit pixels only")
	}
	w, h, pitch := int(v.XRes), int(v.YRes), int(fx.LineLength)

	img := image.NewRGBA(image.Rect(0, 0, w, h))
	quads := []struct {
		r image.Rectangle
		c color.RGBA
	}{
		{image.Rect(0, 0, w/2, h/2), color.RGBA{255, 0, 0, 255}},
		{image.Rect(w/2, 0, w, h/2), color.RGBA{0, 255, 0, 255}},
		{image.Rect(0, h/2, w/2, h), color.RGBA{0, 0, 255, 255}},
		{image.Rect(w/2, h/2, w, h), color.RGBA{255, 255, 255, 255}},
	}
	for _, q := range quads {
		draw.Draw(img, q.r, &image.Uniform{q.c}, image.Point{}, draw.Src)
	}
	screen := pixels(img, &v, pitch)
	n, err := f.WriteAt(screen, 0)
	say("wrote %d %v", n, err)
	back := make([]byte, len(screen))
	n, err = f.ReadAt(back, 0)
	say("read back %d %v, same %v", n, err, bytes.Equal(back, screen))
	mem, err := unix.Mmap(int(f.Fd()), 0, int(fx.SmemLen), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		fail("mmap: %v", err)
	}
	// What write put on the screen, seen through the mapping.
	say("mapped: (0,0) %08x, (%d,%d) %08x", le32(mem, 0), w-1, h-1, le32(mem, (h-1)*pitch+(w-1)*4))
	// A private mapping: a write copies the page, the screen keeps it.
	priv, err := unix.Mmap(int(f.Fd()), 0, os.Getpagesize(), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	if err == nil {
		was := le32(priv, 0)
		priv[0] ^= 0xff
		say("private: read %08x, written %08x, the screen %08x", was, le32(priv, 0), le32(mem, 0))
		unix.Munmap(priv)
	} else {
		say("private: %v", err)
	}
	pages := (int(fx.SmemLen) + os.Getpagesize() - 1) &^ (os.Getpagesize() - 1)
	_, err = unix.Mmap(int(f.Fd()), int64(pages), os.Getpagesize(), unix.PROT_READ, unix.MAP_SHARED)
	say("mmap past the buffer: %v", err)
	_, err = unix.Mremap(mem, pages+os.Getpagesize(), unix.MREMAP_MAYMOVE)
	say("mremap growing: %v", err)
	say("madvise: %v", unix.Madvise(mem[:os.Getpagesize()], unix.MADV_DONTNEED))
	maps, _ := os.ReadFile("/proc/self/maps")
	for _, l := range strings.Split(string(maps), "\n") {
		if fl := strings.Fields(l); len(fl) == 6 && fl[5] == "/dev/fb0" {
			say("maps: %s %s %s", fl[1], fl[2], fl[5])
		}
	}
	_, err = f.WriteAt([]byte{1}, int64(fx.SmemLen))
	say("write at the end: %v", err)
	in := bufio.NewReader(os.Stdin)
	say("drawn")
	in.ReadString('\n')

	// The second screen, drawn through the mapping with the descriptor
	// closed (the mapping keeps the screen the program's): yellow with
	// a magenta square, then shown by panning.
	f.Close()
	second := &fbImage{mem: mem[pitch*h:], v: &v, pitch: pitch, r: image.Rect(0, 0, w, h)}
	draw.Draw(second, second.r, &image.Uniform{color.RGBA{255, 255, 0, 255}}, image.Point{}, draw.Src)
	draw.Draw(second, image.Rect(w/2-50, h/2-50, w/2+50, h/2+50), &image.Uniform{color.RGBA{255, 0, 255, 255}}, image.Point{}, draw.Src)
	// Had the console taken the screen back at the close, it would
	// have redrawn its text over the first screen.
	say("first screen after the close: (0,0) %08x", le32(mem, 0))
	f, err = os.OpenFile("/dev/fb0", os.O_RDWR, 0)
	if err != nil {
		fail("open again: %v", err)
	}
	v.YOffset = uint32(h)
	say("pan %v", ioctl(f.Fd(), fbioPanDisplay, unsafe.Pointer(&v)))
	v.YOffset = uint32(h) + 1
	say("pan past the end: %v", ioctl(f.Fd(), fbioPanDisplay, unsafe.Pointer(&v)))
	say("panned")
	in.ReadString('\n')
	say("munmap: %v", unix.Munmap(mem))
	say("done")
}
