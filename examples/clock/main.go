// Command clock reads the real-time clock through Linux's /dev/rtc0, as
// hwclock does, and compares it with the system's wall clock; with -set
// it writes the wall clock to the RTC (hwclock --systohc). On the Pi the
// RTC is a DS1307-family chip on I2C (gometal run -board rpi4 attaches
// QEMU's DS1338; a board boots with -bootarg gometal.rtc=i2c-1), on
// QEMU virt the PL031.
//
//	bin/gometal run -board rpi4 ./examples/clock
//
// On a board, a DS3231 module: VCC to header pin 1 (3.3 V), GND to pin
// 9, SDA to pin 3, SCL to pin 5; it answers at 0x68.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

func main() {
	set := flag.Bool("set", false, "write the system's wall clock to the RTC")
	flag.Parse()
	fd, err := unix.Open("/dev/rtc0", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		fmt.Fprintf(os.Stderr, "clock: /dev/rtc0: %v (no RTC: on a Pi boot with -bootarg gometal.rtc=i2c-1)\n", err)
		os.Exit(1)
	}
	defer unix.Close(fd)
	if *set {
		now := time.Now().UTC()
		t := unix.RTCTime{Sec: int32(now.Second()), Min: int32(now.Minute()), Hour: int32(now.Hour()),
			Mday: int32(now.Day()), Mon: int32(now.Month()) - 1, Year: int32(now.Year()) - 1900}
		if err := unix.IoctlSetRTCTime(fd, &t); err != nil {
			fmt.Fprintln(os.Stderr, "clock: RTC_SET_TIME:", err)
			os.Exit(1)
		}
		fmt.Println("clock: the RTC is set to", now.Format(time.DateTime), "UTC")
	}
	t, err := unix.IoctlGetRTCTime(fd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "clock: RTC_RD_TIME:", err)
		os.Exit(1)
	}
	rtc := time.Date(int(t.Year)+1900, time.Month(t.Mon+1), int(t.Mday), int(t.Hour), int(t.Min), int(t.Sec), 0, time.UTC)
	sys := time.Now().UTC()
	fmt.Println("clock: RTC   ", rtc.Format(time.DateTime), "UTC")
	fmt.Println("clock: system", sys.Format(time.DateTime), "UTC")
	fmt.Printf("clock: they differ by %v\n", sys.Sub(rtc).Round(time.Second))
}
