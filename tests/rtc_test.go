package tests

import (
	"testing"
	"time"
)

// The real-time clock through Linux's /dev/rtc0 (tests/progs/rtc): the
// wall clock set from it at boot within a minute of the host's, its time
// read, set to a fixed date and read back, 31 February refused (EINVAL),
// a year the chip cannot hold refused (ERANGE: a PL031 counts 32 bits of
// seconds, a DS1307 2000-2099), and clock_settime written back to it.
var rtcWants = []string{
	"rtc: wall clock within a minute of the host's: true",
	"rtc: RTC_RD_TIME within a minute of the wall clock: true <nil>",
	"rtc: set 2031-07-04 12:34:56 <nil>",
	"rtc: read back 2031-07-04 12:34:56 true (<nil>)",
	"rtc: set 31 February: invalid argument",
	"rtc: set 2150: numerical result out of range",
	"rtc: clock_settime <nil>",
	"rtc: RTC after clock_settime 2029-03-01 08 true (<nil>)",
	"rtc: done",
}

// TestRTC: QEMU virt's PL031.
func TestRTC(t *testing.T) {
	t.Parallel()
	gometal(t, "run", "./tests/progs/rtc", "--", time.Now().UTC().Format(time.RFC3339)).expect(t, 0, rtcWants...)
}

// TestRPi4RTC: the DS1338 gometal run attaches to raspi4b's i2c-1 at
// 0x68 (the Pi has no RTC of its own), read at boot for the wall clock:
// time.Now() on the emulated Pi is today's date.
func TestRPi4RTC(t *testing.T) {
	t.Parallel()
	r := rpi4(t, "run", "./tests/progs/rtc", "--", time.Now().UTC().Format(time.RFC3339))
	r.expect(t, 0, append([]string{"gometal: rtc: DS1307 at i2c-1 0x68: 20"}, rtcWants...)...)
}
