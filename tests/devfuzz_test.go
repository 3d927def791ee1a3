package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestDeviceFuzzer: hostile calls at the Pi's device files (the GPIO
// chips and their line requests, /dev/fb0, /dev/i2c-1, /dev/spidev0.0,
// /dev/rtc0; tests/progs/devfuzz): random structures, bad pointers and
// lengths, mappings of the screen used and changed at random, 20,000
// calls. The kernel answers every one and each device
// still works afterwards; the fuzz must reach past the first checks
// (line requests made). The seed changes with the day; a failure names
// it.
func TestDeviceFuzzer(t *testing.T) {
	t.Parallel()
	seed := fmt.Sprint(time.Now().YearDay())
	r := rpi4(t, append(append([]string{"run", "-timeout", "5m"}, gpioMockup...),
		"-qemu-arg", "-device", "-qemu-arg", "tmp105,bus=i2c-bus.1,address=0x48",
		"-qemu-arg", "-device", "-qemu-arg", "m25p80,bus=spi",
		"./tests/progs/devfuzz", "--", "20000", seed)...)
	r.expect(t, 0, "devfuzz: 20000 calls answered",
		"devfuzz: /dev/gpiochip0 chip info ok, 58 lines", "devfuzz: /dev/gpiochip1 chip info ok, 8 lines",
		"devfuzz: a line set ok, reads 1", "devfuzz: fb info ok, 640x480", "devfuzz: rtc read ok", "devfuzz ok")
	if n := r.counter(t, `devfuzz: \d+ succeeded, (\d+) line requests made`); n == 0 {
		t.Errorf("seed %s: no line request got past the checks", seed)
	}
	if n := r.counter(t, `devfuzz: \d+ succeeded, \d+ line requests made, (\d+) mappings made`); n == 0 {
		t.Errorf("seed %s: no mapping of /dev/fb0 was made", seed)
	}
	if strings.Contains(r.out, "kernel panic") {
		t.Errorf("seed %s: the kernel panicked", seed)
	}
	logLine(t, r.out, `devfuzz: \d+ succeeded.*`)
}
