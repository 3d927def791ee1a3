package qemu

import "strings"

// The Raspberry Pi has no real-time clock of its own; the common RTC
// boards put a DS1307-family chip at 0x68 on the header's I2C bus. On
// raspi4b gometal run attaches QEMU's model of one (ds1338, which starts
// at the host's time) on that bus, and tells the kernel where it is, so
// that time.Now() on the emulated Pi is today's date (issue 39).
const (
	// RPi4RTCDevice is the -device value: BSC1, the header's bus, is
	// QEMU's i2c-bus.1.
	RPi4RTCDevice = "ds1338,bus=i2c-bus.1,address=0x68"
	// RPi4RTCBootarg tells the kernel: i2c-1, address 0x68.
	RPi4RTCBootarg = "gometal.rtc=i2c-1:0x68"
)

// RPi4RTC adds the RTC to a raspi4b run: its device and its boot
// argument, unless the boot arguments name an RTC already (the user's
// own gometal.rtc=, and then its -device is theirs too).
func RPi4RTC(cfg *Config) {
	if cfg.Machine != "raspi4b" {
		return
	}
	for _, w := range cfg.Append {
		if strings.HasPrefix(w, "gometal.rtc=") {
			return
		}
	}
	cfg.Extra = append(cfg.Extra, "-device", RPi4RTCDevice)
	cfg.Append = append(cfg.Append, RPi4RTCBootarg)
}
