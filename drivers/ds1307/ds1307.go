// Package ds1307 reads and writes the time registers of the Maxim
// DS1307 real-time clock and the chips that share its map (DS1338,
// DS3231's first seven registers, what QEMU models as ds1338): seconds,
// minutes, hours, weekday, date, month and year in BCD at 0x00-0x06
// (DS1307 datasheet, "Timekeeper Registers"), the years 2000 to 2099 as
// Linux's rtc-ds1307 reads them. Pure: the caller moves the bytes over
// I2C (the registers are read from 0x00 after writing that pointer).
// Builds on the host: go test ./drivers/ds1307.
package ds1307

// Addr is the chip's fixed I2C address.
const Addr = 0x68

// Regs is how many time registers there are.
const Regs = 7

const (
	clockHalt = 0x80 // register 0's CH: the oscillator is stopped (a chip never set)
	hour12    = 0x40 // register 2: 12-hour mode
	hourPM    = 0x20 // register 2 in 12-hour mode: PM
	century   = 0x80 // register 5 on a DS3231: past 2099 (Linux ignores it for a DS1307)
	baseYear  = 2000
)

// Time is a date and time of day, as the chip keeps it (UTC here, as
// Linux keeps a Pi's RTC): Year 2000-2099, Month 1-12, Day 1-31,
// Weekday 0 (Sunday) to 6.
type Time struct {
	Year, Month, Day, Hour, Min, Sec, Weekday int
}

func bcd(b byte) (int, bool) {
	lo, hi := int(b&0xf), int(b>>4)
	return hi*10 + lo, lo <= 9 && hi <= 9
}

func toBCD(v int) byte { return byte(v/10<<4 | v%10) }

// Decode reads the time registers: false when the oscillator is
// stopped (the chip holds no time) or a field is not a valid date.
func Decode(r *[Regs]byte) (Time, bool) {
	if r[0]&clockHalt != 0 {
		return Time{}, false
	}
	var t Time
	var ok [6]bool
	t.Sec, ok[0] = bcd(r[0] &^ clockHalt)
	t.Min, ok[1] = bcd(r[1] & 0x7f)
	if r[2]&hour12 != 0 {
		t.Hour, ok[2] = bcd(r[2] & 0x1f)
		t.Hour %= 12
		if r[2]&hourPM != 0 {
			t.Hour += 12
		}
	} else {
		t.Hour, ok[2] = bcd(r[2] & 0x3f)
	}
	t.Weekday = int(r[3]&7) - 1
	t.Day, ok[3] = bcd(r[4] & 0x3f)
	t.Month, ok[4] = bcd(r[5] & 0x1f)
	t.Year, ok[5] = bcd(r[6])
	t.Year += baseYear
	for _, v := range ok {
		if !v {
			return Time{}, false
		}
	}
	if t.Sec > 59 || t.Min > 59 || t.Hour > 23 || t.Day < 1 || t.Day > 31 || t.Month < 1 || t.Month > 12 {
		return Time{}, false
	}
	return t, true
}

// Encode writes t into the time registers (24-hour mode, the oscillator
// running): false for a year the chip cannot hold (Linux: ERANGE).
func Encode(t Time, r *[Regs]byte) bool {
	if t.Year < baseYear || t.Year > baseYear+99 {
		return false
	}
	r[0], r[1], r[2] = toBCD(t.Sec), toBCD(t.Min), toBCD(t.Hour)
	r[3] = byte(t.Weekday + 1)
	r[4], r[5], r[6] = toBCD(t.Day), toBCD(t.Month), toBCD(t.Year-baseYear)
	return true
}
