package qemu

import (
	"slices"
	"testing"
)

// RPi4RTC attaches the DS1338 and its boot argument on raspi4b only, and
// leaves a run whose boot arguments name an RTC alone.
func TestRPi4RTC(t *testing.T) {
	c := &Config{Machine: "raspi4b", Append: []string{"quiet"}}
	RPi4RTC(c)
	if !slices.Equal(c.Extra, []string{"-device", RPi4RTCDevice}) || !slices.Equal(c.Append, []string{"quiet", RPi4RTCBootarg}) {
		t.Errorf("raspi4b: Extra %q, Append %q", c.Extra, c.Append)
	}
	v := &Config{Machine: "virt"}
	RPi4RTC(v)
	if len(v.Extra)+len(v.Append) != 0 {
		t.Errorf("virt: Extra %q, Append %q", v.Extra, v.Append)
	}
	own := &Config{Machine: "raspi4b", Append: []string{"gometal.rtc=i2c-0:0x51"}}
	RPi4RTC(own)
	if len(own.Extra) != 0 || len(own.Append) != 1 {
		t.Errorf("own RTC: Extra %q, Append %q", own.Extra, own.Append)
	}
}
