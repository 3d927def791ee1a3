package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mount"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// /dev/rtc0, Linux's RTC character device (drivers/rtc/dev.c, rtc(4)):
// RTC_RD_TIME and RTC_SET_TIME on the machine's real-time clock (the
// PL031 on virt, a DS1307-family chip on a Pi's I2C bus: kernel's
// rtc_arm64.go). Linux gives the RTC class a dynamic major; this kernel
// numbers it rtcMajor.

const rtcMajor = 253

// rtcDevImpl is /dev/rtc0's Impl; its descriptions keep their node in
// devNodes.
type rtcDev struct{ nodeDev }

var rtcDevImpl rtcDev

// rtcNode appends /dev/rtc0's node (crw------- root root, as the RTC
// class makes it) when the machine has an RTC, and returns how many it
// added.
func rtcNode(nodes []mount.DevNode) int {
	if !kernel.HasRTC() || len(nodes) == 0 {
		return 0
	}
	nodes[0] = mount.DevNode{Name: "rtc0", Mode: unix.S_IFCHR | 0o600, Rdev: rtcMajor << 8}
	return 1
}

// openRTC opens /dev/rtc0 from node i: ENXIO without an RTC or for
// another minor.
func openRTC(i int32, flags uint32, cloexec bool) uint64 {
	if !kernel.HasRTC() || fs.Inodes[i].Rdev&0xff != 0 {
		return errno(unix.ENXIO)
	}
	return openDevNode(&rtcDevImpl, i, flags, cloexec)
}

// Readiness: never readable (no update interrupts are offered).
func (d *rtcDev) Readiness(f *vfs.File) uint32 { return 0 }

// rtcTime is RTC_RD_TIME's and RTC_SET_TIME's struct rtc_time.
var rtcTime unix.RTCTime

// Ioctl answers rtc_dev_ioctl's time requests; the alarm and update
// interrupt requests are EINVAL (no alarm is offered: Linux's answer
// for an RTC whose driver has no alarm_irq_enable), the rest ENOTTY.
func (d *rtcDev) Ioctl(f *vfs.File, req uint64, arg uintptr) uint64 {
	b := unsafe.Slice((*byte)(unsafe.Pointer(&rtcTime)), unsafe.Sizeof(rtcTime))
	switch req {
	case unix.RTC_RD_TIME:
		sec, e := kernel.RTCRead()
		if e != 0 {
			return errno(e)
		}
		c := clock.ToCivil(sec)
		rtcTime = unix.RTCTime{Sec: int32(c.Sec), Min: int32(c.Min), Hour: int32(c.Hour), Mday: int32(c.Day),
			Mon: int32(c.Month - 1), Year: int32(c.Year - 1900), Wday: int32(c.Weekday), Yday: int32(c.Yday)}
		if !usermem.CopyOut(arg, b) {
			return errno(unix.EFAULT)
		}
		return 0
	case unix.RTC_SET_TIME:
		if !capSysTime(current()) {
			return errno(unix.EACCES) // rtc_dev_ioctl: capable(CAP_SYS_TIME)
		}
		if !usermem.CopyIn(b, arg) {
			return errno(unix.EFAULT)
		}
		if !rtcValid(&rtcTime) {
			return errno(unix.EINVAL) // rtc_valid_tm
		}
		c := clock.Civil{Year: int64(rtcTime.Year) + 1900, Month: int(rtcTime.Mon) + 1, Day: int(rtcTime.Mday),
			Hour: int(rtcTime.Hour), Min: int(rtcTime.Min), Sec: int(rtcTime.Sec)}
		return errno0(kernel.RTCSet(clock.FromCivil(&c)))
	case unix.RTC_AIE_ON, unix.RTC_AIE_OFF, unix.RTC_UIE_ON, unix.RTC_UIE_OFF, unix.RTC_ALM_READ, unix.RTC_ALM_SET, unix.RTC_WKALM_RD, unix.RTC_WKALM_SET:
		return errno(unix.EINVAL)
	}
	return errno(unix.ENOTTY)
}

// rtcValid is rtc_valid_tm: a year from 1970, each field in range, the
// day within its month.
func rtcValid(t *unix.RTCTime) bool {
	if t.Year < 70 || t.Year > 1<<30 || t.Mon < 0 || t.Mon > 11 || t.Mday < 1 ||
		t.Hour < 0 || t.Hour > 23 || t.Min < 0 || t.Min > 59 || t.Sec < 0 || t.Sec > 59 {
		return false
	}
	y := int64(t.Year) + 1900
	next := clock.DaysFromCivil(y, int(t.Mon)+1, 1)
	var end int64
	if t.Mon == 11 {
		end = clock.DaysFromCivil(y+1, 1, 1)
	} else {
		end = clock.DaysFromCivil(y, int(t.Mon)+2, 1)
	}
	return int64(t.Mday) <= end-next
}

// errno0 is a kernel errno as a call's result (0 for none).
func errno0(e unix.Errno) uint64 {
	if e != 0 {
		return errno(e)
	}
	return 0
}
