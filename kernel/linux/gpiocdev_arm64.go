package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/gpio"
	"github.com/gometal/gometal/kernel/mount"
	"github.com/gometal/gometal/kernel/sysfs"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// /dev/gpiochipN, Linux's GPIO character device, uAPI v2
// (drivers/gpio/gpiolib-cdev.c; the ABI is include/uapi/linux/gpio.h).
// A chip's description answers chip and line info, watches line info
// (its read(2) gives the changes), and makes line requests: each a new
// descriptor whose ioctls get and set the lines' values and change
// their configuration, and whose read(2) gives their edge events. The
// lines, requests and events are kernel/gpio's; this file copies the
// structures in and out and answers as gpiolib-cdev does. The v1 ABI
// (GPIO_GET_LINEHANDLE_IOCTL and its kin, deprecated since Linux 5.10)
// is not offered: ENOTTY, and go-gpiocdev picks v2 by probing.
// The ABI's numbers and structures are in gpiouapi.go.

// The structures pass through these (under the kernel lock: one call
// at a time), off the kernel stack.
var (
	gpioReq     gpioLineRequest
	gpioInfo    gpioLineInfo
	gpioChanged gpioInfoChanged
	gpioEvent   gpioLineEvent
	gpioCfg     gpio.Config
)

func asBytes[T any](p *T) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(p)), unsafe.Sizeof(*p)) }

// gpioChipDev is the Impl of /dev/gpiochipN, one per chip (its
// Waitable is the chip's); gpioLineDev of a line request's descriptor,
// one per request slot (its Waitable is the request's).
type (
	gpioChipDev struct {
		nodeDev
		chip int
	}
	gpioLineDev struct {
		vfs.Base
		req int
	}
)

var (
	gpioChipImpls [gpio.MaxChips]gpioChipDev
	gpioLineImpls [gpio.MaxRequests]gpioLineDev
)

// gpioWatcherOf is a chip description's watcher (1 + index; 0 before it
// first watches).
var gpioWatcherOf [vfs.MaxFiles]int8

// initGPIOImpls numbers the Impls (at boot).
func initGPIOImpls() {
	for c := range gpioChipImpls {
		gpioChipImpls[c].chip = c
	}
	for r := range gpioLineImpls {
		gpioLineImpls[r].req = r
	}
}

// Every chip has a name in sysfs's table.
var _ [len(sysfs.GPIOChipNames) - gpio.MaxChips]struct{}

// gpioNodes appends a node per chip (crw------- root root, as Linux's
// gpio class makes them) and returns how many it added.
func gpioNodes(nodes []mount.DevNode) int {
	n := 0
	for c := 0; c < gpio.NChips && n < len(nodes); c++ {
		nodes[n] = mount.DevNode{Name: sysfs.GPIOChipNames[c], Mode: unix.S_IFCHR | 0o600, Rdev: gpioMajor<<8 | uint32(c)}
		n++
	}
	return n
}

// openGPIOChip opens /dev/gpiochipN from node i: ENXIO for a chip the
// machine does not have.
func openGPIOChip(i int32, flags uint32, cloexec bool) uint64 {
	c := int(fs.Inodes[i].Rdev & 0xff)
	if c >= gpio.NChips {
		return errno(unix.ENXIO)
	}
	fd := openDevNode(&gpioChipImpls[c], i, flags, cloexec)
	if fl, ok := getFD(fd); ok && !vfs.IsErr(fd) {
		gpioWatcherOf[fl.Index()] = 0
	}
	return fd
}

func (d *gpioChipDev) Release(f *vfs.File) {
	if w := gpioWatcherOf[f.Index()]; w != 0 {
		gpio.FreeWatcher(int(w - 1))
	}
	gpioWatcherOf[f.Index()] = 0
	d.nodeDev.Release(f)
}

func (d *gpioChipDev) Waitable() *vfs.Waitable { return &gpio.Chips[d.chip].W }

// Readiness: readable while the description's watcher holds changes.
func (d *gpioChipDev) Readiness(f *vfs.File) uint32 {
	if w := gpioWatcherOf[f.Index()]; w != 0 && gpio.Changes(int(w-1)) > 0 {
		return unix.EPOLLIN | unix.EPOLLRDNORM
	}
	return 0
}

// Read gives the watched lines' info changes, as many whole ones as
// fit (lineinfo_watch_read), each taken only once copied out: EINVAL for a buffer smaller than one,
// EAGAIN (a wait, when blocking) with none queued.
func (d *gpioChipDev) Read(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	size := uint64(unsafe.Sizeof(gpioChanged))
	if n < size {
		return errno(unix.EINVAL)
	}
	w := int(gpioWatcherOf[f.Index()]) - 1
	var done uint64
	for w >= 0 && gpio.Changes(w) > 0 && done+size <= n {
		ch := gpio.PeekChange(w)
		gpioChanged = gpioInfoChanged{Timestamp: ch.Nanos, EventType: ch.Type}
		fillLineInfo(&gpioChanged.Info, d.chip, int(ch.Offset), &ch.Info)
		if !usermem.CopyOut(buf+uintptr(done), asBytes(&gpioChanged)) {
			if done > 0 {
				return done
			}
			return errno(unix.EFAULT)
		}
		gpio.TakeChange(w) // only once copied out, as a line request's events
		done += size
	}
	if done == 0 {
		return errno(unix.EAGAIN)
	}
	return done
}

// fillLineInfo makes in line's info (gpio_desc_to_lineinfo): zeroed,
// then its name, consumer, offset and flags.
func fillLineInfo(in *gpioLineInfo, c, line int, li *gpio.Info) {
	*in = gpioLineInfo{Offset: uint32(line), Flags: uint64(li.Flags), Consumer: li.Consumer}
	copy(in.Name[:gpio.NameLen-1], gpio.Chips[c].Names[line])
	if li.Debounce != 0 {
		// The period as an attribute (gpio_desc_to_lineinfo).
		in.NumAttrs = 1
		in.Attrs[0] = gpioAttr{ID: gpioAttrDebounce, Value: uint64(li.Debounce)}
	}
}

// Ioctl answers the chip's requests (gpio_ioctl).
func (d *gpioChipDev) Ioctl(f *vfs.File, req uint64, arg uintptr) uint64 {
	watcher := &gpioWatcherOf[f.Index()]
	c := d.chip
	ch := &gpio.Chips[c]
	switch req {
	case gpioGetChipInfo:
		var ci gpioChipInfo
		copy(ci.Name[:gpio.NameLen-1], sysfs.GPIOChipNames[c])
		copy(ci.Label[:gpio.NameLen-1], ch.Label)
		ci.Lines = uint32(ch.NLines)
		if !usermem.CopyOut(arg, asBytes(&ci)) {
			return errno(unix.EFAULT)
		}
		return 0
	case gpioV2GetLineInfo, gpioV2GetLineInfoWatch:
		if !usermem.CopyIn(asBytes(&gpioInfo), arg) {
			return errno(unix.EFAULT)
		}
		if gpioInfo.Padding != [4]uint32{} || int(gpioInfo.Offset) >= ch.NLines {
			return errno(unix.EINVAL) // lineinfo_get: padding is for future use
		}
		line := int(gpioInfo.Offset)
		if req == gpioV2GetLineInfoWatch {
			if *watcher == 0 {
				w := gpio.NewWatcher(c)
				if w < 0 {
					return errno(unix.ENOMEM)
				}
				*watcher = int8(w + 1)
			}
			if e := gpio.Watch(int(*watcher-1), line, true); e != 0 {
				return errno(e)
			}
		}
		li := gpio.LineInfo(c, line)
		fillLineInfo(&gpioInfo, c, line, &li)
		if !usermem.CopyOut(arg, asBytes(&gpioInfo)) {
			if req == gpioV2GetLineInfoWatch {
				gpio.Watch(int(*watcher-1), line, false)
			}
			return errno(unix.EFAULT)
		}
		return 0
	case gpioGetLineInfoUnwatch:
		line, ok := usermem.ReadU32(arg)
		if !ok {
			return errno(unix.EFAULT)
		}
		if int(line) >= ch.NLines {
			return errno(unix.EINVAL)
		}
		if *watcher == 0 {
			return errno(unix.EBUSY)
		}
		return errno(gpio.Watch(int(*watcher-1), int(line), false))
	case gpioV2GetLine:
		return gpioRequestLines(c, arg)
	}
	return errno(unix.ENOTTY)
}

// gpioConfig checks config lc for a request of n lines
// (gpio_v2_line_config_validate) and turns it into kernel/gpio's, into
// gpioCfg: each line's flags (the first FLAGS attribute whose mask has
// it, else the config's flags), output value and debounce period (no
// chip here debounces: kernel/gpio does it in software, as gpiolib
// falls back to).
func gpioConfig(lc *gpioLineConfig, n int) unix.Errno {
	if lc.NumAttrs > gpioNumAttrsMax || lc.Padding != [5]uint32{} {
		return unix.EINVAL
	}
	attrs := lc.Attrs[:lc.NumAttrs]
	gpioCfg = gpio.Config{}
	for k := 0; k < n; k++ {
		bit := uint64(1) << k
		f, flagsSet, valueSet, debounceSet, debounced := gpio.Flags(lc.Flags), false, false, false, false
		for a := range attrs {
			at := &attrs[a]
			if at.Mask&bit == 0 {
				continue
			}
			switch at.Attr.ID {
			case gpioAttrFlags:
				if !flagsSet {
					f, flagsSet = gpio.Flags(at.Attr.Value), true
				}
			case gpioAttrOutputValues:
				if !valueSet {
					gpioCfg.Values |= at.Attr.Value >> k & 1 << k
					valueSet = true
				}
			case gpioAttrDebounce:
				if !debounceSet {
					// gpio_v2_line_config_debounced: the attribute makes
					// the line debounced, even at 0, for the rules.
					gpioCfg.Debounce[k] = uint32(at.Attr.Value)
					debounceSet, debounced = true, true
				}
			}
		}
		if e := gpio.Validate(f); e != 0 {
			return e
		}
		if debounced && f&gpio.Input == 0 {
			return unix.EINVAL // debounce requires an input
		}
		gpioCfg.Flags[k] = f
	}
	return 0
}

// gpioRequestLines is GPIO_V2_GET_LINE_IOCTL (linereq_create): the
// lines taken, configured, and a new descriptor (O_RDONLY|O_CLOEXEC,
// as anon_inode_getfile makes it) in the request's fd field.
func gpioRequestLines(c int, arg uintptr) uint64 {
	r := &gpioReq
	if !usermem.CopyIn(asBytes(r), arg) {
		return errno(unix.EFAULT)
	}
	if r.NumLines == 0 || r.NumLines > gpio.MaxLines || r.Padding != [5]uint32{} {
		return errno(unix.EINVAL)
	}
	n := int(r.NumLines)
	if e := gpioConfig(&r.Config, n); e != 0 {
		return errno(e)
	}
	r.Consumer[gpio.NameLen-1] = 0
	if r.Consumer[0] == 0 {
		r.Consumer[0] = '?' // gpiod_request's label for none
	}
	q, e := gpio.NewRequest(c, r.Offsets[:n], &r.Consumer, &gpioCfg, int(r.EventBufferSize))
	if e != 0 {
		return errno(e)
	}
	fd := openFD(&gpioLineImpls[q], unix.O_RDONLY, true)
	if vfs.IsErr(fd) {
		gpio.Release(q)
		return fd
	}
	r.Fd = int32(fd)
	if !usermem.CopyOut(arg, asBytes(r)) {
		closeFD(int(fd))
		return errno(unix.EFAULT)
	}
	return 0
}

func (d *gpioLineDev) Waitable() *vfs.Waitable { return &gpio.Requests[d.req].W }

func (d *gpioLineDev) Kind() vfs.Kind { return vfs.KindDevice }

// Readiness: readable while the request holds events (linereq_poll).
func (d *gpioLineDev) Readiness(f *vfs.File) uint32 {
	if gpio.Pending(d.req) > 0 {
		return unix.EPOLLIN | unix.EPOLLRDNORM
	}
	return 0
}

// Read gives the request's edge events, as many whole ones as fit
// (linereq_read); an event is taken only once copied out.
func (d *gpioLineDev) Read(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	size := uint64(unsafe.Sizeof(gpioEvent))
	if n < size {
		return errno(unix.EINVAL)
	}
	r := d.req
	var done uint64
	for gpio.Pending(r) > 0 && done+size <= n {
		e := gpio.Peek(r)
		gpioEvent = gpioLineEvent{Timestamp: e.Nanos, ID: e.ID, Offset: e.Offset, Seqno: e.Seq, LineSeqno: e.LineSeq}
		if !usermem.CopyOut(buf+uintptr(done), asBytes(&gpioEvent)) {
			if done > 0 {
				return done
			}
			return errno(unix.EFAULT)
		}
		gpio.Take(r)
		done += size
	}
	if done == 0 {
		return errno(unix.EAGAIN)
	}
	return done
}

func (d *gpioLineDev) Release(f *vfs.File) { gpio.Release(d.req) }

// Ioctl answers the request's ioctls (linereq_ioctl).
func (d *gpioLineDev) Ioctl(f *vfs.File, req uint64, arg uintptr) uint64 {
	r := d.req
	q := &gpio.Requests[r]
	switch req {
	case gpioV2LineGetValues, gpioV2LineSetValues:
		var lv gpioLineValues
		if !usermem.CopyIn(asBytes(&lv), arg) {
			return errno(unix.EFAULT)
		}
		lv.Mask &= 1<<q.N - 1
		if lv.Mask == 0 {
			return errno(unix.EINVAL)
		}
		if req == gpioV2LineSetValues {
			return errno(gpio.SetValues(r, lv.Mask, lv.Bits))
		}
		lv.Bits = gpio.Values(r, lv.Mask)
		if !usermem.CopyOut(arg, asBytes(&lv)) {
			return errno(unix.EFAULT)
		}
		return 0
	case gpioV2LineSetConfig:
		lc := &gpioReq.Config
		if !usermem.CopyIn(asBytes(lc), arg) {
			return errno(unix.EFAULT)
		}
		if e := gpioConfig(lc, q.N); e != 0 {
			return errno(e)
		}
		gpio.Reconfigure(r, &gpioCfg)
		return 0
	}
	return errno(unix.ENOTTY)
}
