// Command rtc reads and sets the real-time clock through Linux's
// /dev/rtc0 (TestRTC, TestRPi4RTC): the wall clock the kernel set from it
// at boot, RTC_RD_TIME, RTC_SET_TIME of a fixed date read back, an
// invalid date (EINVAL), a date the chip cannot hold, and
// clock_settime, which the kernel writes back to the RTC.
package main

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

func rdTime(fd int) (time.Time, error) {
	t, err := unix.IoctlGetRTCTime(fd)
	if err != nil {
		return time.Time{}, err
	}
	return time.Date(int(t.Year)+1900, time.Month(t.Mon+1), int(t.Mday), int(t.Hour), int(t.Min), int(t.Sec), 0, time.UTC), nil
}

func setTime(fd int, tm time.Time) error {
	t := unix.RTCTime{Sec: int32(tm.Second()), Min: int32(tm.Minute()), Hour: int32(tm.Hour()),
		Mday: int32(tm.Day()), Mon: int32(tm.Month() - 1), Year: int32(tm.Year() - 1900)}
	return unix.IoctlSetRTCTime(fd, &t)
}

func main() {
	// The host passes its time: the guest's wall clock must be within a
	// minute of it (set from the RTC at boot).
	if len(os.Args) > 1 {
		host, err := time.Parse(time.RFC3339, os.Args[1])
		if err == nil {
			d := time.Since(host)
			fmt.Printf("rtc: wall clock within a minute of the host's: %v\n", d > -time.Minute && d < time.Minute)
		}
	}
	fd, err := unix.Open("/dev/rtc0", unix.O_RDONLY, 0)
	if err != nil {
		fmt.Println("rtc: open /dev/rtc0:", err)
		os.Exit(1)
	}
	now, err := rdTime(fd)
	fmt.Printf("rtc: RTC_RD_TIME within a minute of the wall clock: %v %v\n", time.Since(now).Abs() < time.Minute, err)

	fixed := time.Date(2031, 7, 4, 12, 34, 56, 0, time.UTC)
	fmt.Println("rtc: set", fixed.Format(time.DateTime), setTime(fd, fixed))
	got, err := rdTime(fd)
	fmt.Printf("rtc: read back %s %v (%v)\n", got.Format(time.DateTime), got.Sub(fixed) >= 0 && got.Sub(fixed) < 5*time.Second, err)

	bad := unix.RTCTime{Sec: 0, Min: 0, Hour: 0, Mday: 31, Mon: 1, Year: 130} // 31 February
	fmt.Println("rtc: set 31 February:", unix.IoctlSetRTCTime(fd, &bad))
	fmt.Println("rtc: set 2150:", setTime(fd, time.Date(2150, 1, 1, 0, 0, 0, 0, time.UTC)))

	// clock_settime writes the RTC too (as hwclock --systohc).
	want := time.Date(2029, 3, 1, 8, 0, 0, 0, time.UTC)
	ts := unix.NsecToTimespec(want.UnixNano())
	fmt.Println("rtc: clock_settime", unix.ClockSettime(unix.CLOCK_REALTIME, &ts))
	got, err = rdTime(fd)
	fmt.Printf("rtc: RTC after clock_settime %s %v (%v)\n", got.Format("2006-01-02 15"), got.Sub(want) >= 0 && got.Sub(want) < 5*time.Second, err)
	unix.Close(fd)
	fmt.Println("rtc: done")
}
