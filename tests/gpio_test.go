package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gpioMockup are the boot arguments of Linux's gpio-mockup that make a
// chip of eight simulated lines, named (gpiochip1 beside the Pi's own).
var gpioMockup = []string{"-bootarg", "gpio_mockup.gpio_mockup_ranges=-1,8", "-bootarg", "gpio_mockup.gpio_mockup_named_lines"}

// TestRPi4GPIO: the BCM2711's GPIO block is /dev/gpiochip0, Linux's GPIO
// character device (uAPI v2), and go-gpiocdev drives it unmodified
// (tests/progs/pigpio): the chip's 58 lines with the device tree's
// names, the activity LED's line set and read back (QEMU's bcm2838-gpio
// reflects an output's level), a line held twice (EBUSY), active-low,
// bias in the line's info, an input not settable (EPERM), a debounced
// input's period in its info; then edge events and line
// info changes on gpio-mockup's chip, whose lines the program pulls
// through their debugfs files (QEMU models no GPIO input and no edge
// detector, so the SoC's interrupt path is not exercised here); then
// two events read at once through go-gpiocdev's uapi package.
func TestRPi4GPIO(t *testing.T) {
	t.Parallel()
	r := rpi4(t, append(append([]string{"run"}, gpioMockup...), "./tests/progs/pigpio")...)
	r.expect(t, 0, "gometal: gpio: gpiochip0 (pinctrl-bcm2711, 58 lines) gpiochip1 (gpio-mockup-A, 8 lines)",
		"pigpio: chips [gpiochip0 gpiochip1]",
		"pigpio: chip gpiochip0 (pinctrl-bcm2711): 58 lines, uAPI v2",
		`pigpio: named 58; line 0 "ID_SDA", line 57 "RGMII_TXD3"`,
		"pigpio: activity LED at 42 <nil>",
		"pigpio: led set 1 reads 1 <nil>, set 0 reads 0 <nil>",
		`pigpio: led info used=true consumer="pigpio" output=true`,
		"pigpio: led again: device or resource busy",
		"pigpio: led released used=false output=true",
		"pigpio: active low reads 1, info active-low=true",
		"pigpio: line 27 level 0",
		"pigpio: input info bias=true input=true",
		"pigpio: set an input: permission denied",
		"pigpio: line 99: invalid offset",
		"pigpio: debounce: <nil>, period 1ms",
		`pigpio: mockup gpiochip1 (gpio-mockup-A): 8 lines, line 3 "gpio-mockup-A-3"`,
		`pigpio: pulled 1 reads "1\n"`,
		"pigpio: event 1 line 3 seqno 1 lineseqno 1",
		`pigpio: pulled 0 reads "0\n"`,
		"pigpio: event 2 line 3 seqno 2 lineseqno 2",
		"pigpio: event 1 line 3 seqno 3 lineseqno 3",
		"pigpio: value after pull-up 1",
		`pigpio: info change 1 line 5 consumer "watched"`,
		`pigpio: info change 2 line 5 consumer ""`,
		"pigpio: pull 2: write /sys/kernel/debug/gpio-mockup/gpiochip1/3: invalid argument",
		"pigpio: raw two events: 96 bytes <nil>, ids 1 2",
		"pigpio: raw value 0 <nil>",
		"pigpio: done")
}

// TestRPi4GPIOExampleUnmodified: go-gpiocdev's own example
// get_line_info, built from the module as its author wrote it, run from
// u-root's shell on the Pi (whose init mounts /sys, where go-gpiocdev
// checks the chip): line 22's info, as Linux's cdev would give it.
func TestRPi4GPIOExampleUnmodified(t *testing.T) {
	t.Parallel()
	urootImage(t)
	elf := filepath.Join(t.TempDir(), "get_line_info")
	cmd := exec.Command("go", "build", "-o", elf, "github.com/warthog618/go-gpiocdev/examples/get_line_info")
	cmd.Dir = repoRoot
	cmd.Env = append(cmd.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building go-gpiocdev's example: %v\n%s", err, out)
	}
	r := gometalInput(t, "get_line_info\nexit\n", "run", "-uroot", "-board", "rpi4", "-timeout", "3m", elf)
	// {Offset Name Consumer Used {ActiveLow Direction Drive Bias
	// EdgeDetection Debounced DebouncePeriod EventClock}}: an unused
	// input (LineDirectionInput is 1), no bias, no edges.
	r.expect(t, 0, "$ {22 GPIO22  false {false 1 0 0 0 false 0s 0}}")
}

// TestBlink: examples/blink blinks the Pi's activity LED (line 42 by its
// device-tree name), each level read back; on virt, line 0 of the PL061
// and a line of gpio-mockup's chip (gpiochip1 beside it); and a line the
// chip has not is a clear error.
func TestBlink(t *testing.T) {
	t.Parallel()
	r := rpi4(t, "run", "./examples/blink", "--", "-n", "2", "-period", "20ms")
	r.expect(t, 0, "blink: gpiochip0 line 42 (STATUS_LED_G_CLK), 2 times every 20ms",
		"blink: 1 set 1 reads 1\nblink: 1 set 0 reads 0\nblink: 2 set 1 reads 1\nblink: 2 set 0 reads 0\n")
	v := gometal(t, append(append([]string{"run"}, gpioMockup...), "./examples/blink", "--", "-n", "1", "-period", "20ms",
		"-chip", "gpiochip1", "-line", "gpio-mockup-A-2")...)
	v.expect(t, 0, "gometal: gpio: gpiochip0 (9030000.pl061, 8 lines) gpiochip1 (gpio-mockup-A, 8 lines)",
		"blink: gpiochip1 line 2 (gpio-mockup-A-2), 1 times every 20ms", "blink: 1 set 1 reads 1\nblink: 1 set 0 reads 0\n")
	p := gometal(t, "run", "./examples/blink", "--", "-n", "1", "-period", "20ms", "-line", "0")
	p.expect(t, 0, "blink: gpiochip0 line 0 (0), 1 times every 20ms", "blink: 1 set 1 reads 1\nblink: 1 set 0 reads 0\n")
	n := gometal(t, "run", "./examples/blink")
	n.expect(t, 1, `blink: no line "STATUS_LED_G_CLK" on gpiochip0 (9030000.pl061): not found; name one with -line`)
}

// TestGPIOLikeLinux: QEMU virt's PL061 is gpiochip0 (9030000.pl061, as
// Linux names it), and tests/progs/gpiocdev prints the same lines as on
// Debian's Linux 6.1 (tests/testdata/gpiocdev-linux.txt: line info,
// values, EBUSY and EPERM, info changes, gpiolib-cdev's answers to
// malformed requests), ending with the power button's two edges, twice:
// the test presses it through QMP's system_powerdown once the program
// waits, and the PL061's interrupt brings them (the GPIO interrupt path
// QEMU's raspi4b cannot exercise); the second time the line is
// debounced, in software on both kernels.
func TestGPIOLikeLinux(t *testing.T) {
	t.Parallel()
	want, err := os.ReadFile("testdata/gpiocdev-linux.txt")
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "qmp.sock")
	run := startInteractive(t, "run", "-timeout", "3m", "-qemu-arg", "-qmp", "-qemu-arg", "unix:"+sock+",server=on,wait=off", "./tests/progs/gpiocdev")
	run.con.waitFor(t, "gpiocdev: waiting for the power button")
	qmp(t, sock, `{"execute":"system_powerdown"}`)
	run.con.waitFor(t, "gpiocdev: waiting for the power button again")
	qmp(t, sock, `{"execute":"system_powerdown"}`)
	status := run.wait(t, time.Minute)
	var got []string
	for _, l := range strings.Split(run.con.text(), "\n") {
		if strings.HasPrefix(l, "gpiocdev: ") {
			got = append(got, l)
		}
	}
	if status != 0 || strings.Join(got, "\n")+"\n" != string(want) {
		t.Errorf("exit status %d; the lines differ from Linux's:\n%s\n%s", status,
			lineDiff(strings.Split(strings.TrimSuffix(string(want), "\n"), "\n"), got), run.con.text())
	}
}
