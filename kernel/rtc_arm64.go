package kernel

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/ds1307"
	"github.com/gometal/gometal/drivers/pl031"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel/clock"

	"golang.org/x/sys/unix"
)

// The real-time clock: the PL031 QEMU virt has (read at boot by
// initClock), or on a Raspberry Pi, which has none of its own, a
// DS1307-family chip on an I2C bus that the boot argument
// gometal.rtc=i2c-N[:ADDR] names (the common RTC boards; QEMU's ds1338,
// which gometal run -board rpi4 attaches). Its time sets the wall clock
// at boot; /dev/rtc0 reads and sets it (the Linux layer), and setting
// the wall clock writes it back, as hwclock --systohc would. Under the
// kernel lock.

const (
	rtcNone = iota
	rtcPL031
	rtcDS1307
)

var rtc struct {
	kind int
	base uintptr // the PL031's registers
	bus  int     // the DS1307's bus and address
	addr uint16
}

// rtcArg is the gometal.rtc= word, pointing into the bootargs.
var rtcArg []byte

// rtcRegs is the DS1307's register pointer and time registers as one
// transfer's bytes.
var rtcRegs [1 + ds1307.Regs]byte

// rtcMsgs are the RTC's I2C messages.
var rtcMsgs [2]I2CMsg

// initRTC reads the I2C RTC the boot argument names and sets the wall
// clock from it; a chip that holds no time (never set, its battery out)
// leaves the clock at 1970 and says so.
func initRTC() {
	if rtcArg == nil {
		return
	}
	bus, addr, ok := parseRTCArg(rtcArg)
	if !ok || bus >= MaxI2C || !I2CPresent[bus] {
		if Info("rtc: gometal.rtc=") {
			PutBytes(rtcArg)
			Puts(" names no I2C bus this board has (want i2c-N or i2c-N:0xADDR)")
			InfoEnd()
		}
		return
	}
	rtc.kind, rtc.bus, rtc.addr = rtcDS1307, bus, addr
	sec, e := RTCRead()
	if Info("rtc: DS1307 at i2c-") {
		PutDec(int64(bus))
		Puts(" 0x")
		putHexDigits(uint64(addr), 2)
		switch e {
		case 0:
			Puts(": ")
			putCivil(sec)
			clock.WallAtBoot = sec*1e9 - timer.TicksToNanos(cpu.ReadCNTVCT())
		case unix.EINVAL:
			Puts(" holds no time (its oscillator is stopped: never set?); the clock starts at 1970")
		default:
			Puts(" does not answer; the clock starts at 1970")
			rtc.kind = rtcNone
		}
		InfoEnd()
	}
}

// parseRTCArg reads "i2c-N" or "i2c-N:0xAA" (the address DS1307's
// 0x68 when left out).
func parseRTCArg(v []byte) (bus int, addr uint16, ok bool) {
	rest, ok := bytesCut(v, "i2c-")
	if !ok || len(rest) == 0 || rest[0] < '0' || rest[0] > '9' {
		return 0, 0, false
	}
	bus = int(rest[0] - '0')
	rest = rest[1:]
	addr = ds1307.Addr
	if len(rest) > 0 {
		a, ok := bytesCut(rest, ":0x")
		if !ok || len(a) == 0 || len(a) > 2 {
			return 0, 0, false
		}
		addr = 0
		for _, c := range a {
			switch {
			case c >= '0' && c <= '9':
				addr = addr<<4 | uint16(c-'0')
			case c >= 'a' && c <= 'f':
				addr = addr<<4 | uint16(c-'a'+10)
			default:
				return 0, 0, false
			}
		}
		if addr > 0x7f {
			return 0, 0, false
		}
	}
	return bus, addr, true
}

// HasRTC says whether the machine has a real-time clock (/dev/rtc0).
func HasRTC() bool { return rtc.kind != rtcNone }

// RTCRead is the RTC's time in Unix seconds: EINVAL when it holds none
// (Linux's rtc-ds1307: "oscillator failed, set time!"), the bus's error
// when the chip does not answer, ENODEV without an RTC.
func RTCRead() (int64, unix.Errno) {
	switch rtc.kind {
	case rtcPL031:
		return int64(pl031.Seconds(rtc.base)), 0
	case rtcDS1307:
		// The register pointer written, then the registers read after a
		// repeated start (rtc-ds1307's regmap read).
		rtcRegs[0] = 0
		rtcMsgs = [2]I2CMsg{{Addr: rtc.addr, Buf: rtcRegs[:1]}, {Addr: rtc.addr, Read: true, Buf: rtcRegs[1:]}}
		if e := I2CTransfer(rtc.bus, rtcMsgs[:]); e != 0 {
			return 0, e
		}
		t, ok := ds1307.Decode((*[ds1307.Regs]byte)(rtcRegs[1:]))
		if !ok {
			return 0, unix.EINVAL
		}
		c := clock.Civil{Year: int64(t.Year), Month: t.Month, Day: t.Day, Hour: t.Hour, Min: t.Min, Sec: t.Sec}
		return clock.FromCivil(&c), 0
	}
	return 0, unix.ENODEV
}

// RTCSet sets the RTC to Unix second sec: ERANGE for a time the chip
// cannot hold (a DS1307 keeps 2000-2099, a PL031 32 bits of seconds).
func RTCSet(sec int64) unix.Errno {
	switch rtc.kind {
	case rtcPL031:
		if sec < 0 || sec > 1<<32-1 {
			return unix.ERANGE
		}
		pl031.SetSeconds(rtc.base, uint32(sec))
		return 0
	case rtcDS1307:
		c := clock.ToCivil(sec)
		t := ds1307.Time{Year: int(c.Year), Month: c.Month, Day: c.Day, Hour: c.Hour, Min: c.Min, Sec: c.Sec, Weekday: c.Weekday}
		if c.Year < 2000 || c.Year > 2099 || !ds1307.Encode(t, (*[ds1307.Regs]byte)(rtcRegs[1:])) {
			return unix.ERANGE
		}
		rtcRegs[0] = 0 // the pointer, then the registers from 0
		rtcMsgs[0] = I2CMsg{Addr: rtc.addr, Buf: rtcRegs[:]}
		return I2CTransfer(rtc.bus, rtcMsgs[:1])
	}
	return unix.ENODEV
}

// putCivil prints Unix second sec as "2026-11-27 21:30:05 UTC".
func putCivil(sec int64) {
	c := clock.ToCivil(sec)
	PutDec(c.Year)
	for _, v := range [...]struct {
		sep byte
		n   int
	}{{'-', c.Month}, {'-', c.Day}, {' ', c.Hour}, {':', c.Min}, {':', c.Sec}} {
		putc(v.sep)
		if v.n < 10 {
			putc('0')
		}
		PutDec(int64(v.n))
	}
	Puts(" UTC")
}
