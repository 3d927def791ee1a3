package tests

import (
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// TestPiExamples runs the Pi's device examples as the README's tour
// does: examples/sensor reads QEMU's TMP105 on i2c-1, first at its reset
// value (0 °C), then at 21.5 °C once the test sets the sensor's
// temperature through QMP (qom-set, in millidegrees), and answers an
// address with no device as Linux does (EREMOTEIO); examples/clock
// reads the RTC gometal run attaches, which matches the wall clock set
// from it at boot within the second it truncates, on the Pi (a DS1338
// on I2C) and on virt (the PL031).
func TestPiExamples(t *testing.T) {
	t.Parallel()
	sock := filepath.Join(t.TempDir(), "qmp.sock")
	run := startInteractive(t, "run", "-board", "rpi4", "-timeout", "3m",
		"-qemu-arg", "-qmp", "-qemu-arg", "unix:"+sock+",server=on,wait=off",
		"-qemu-arg", "-device", "-qemu-arg", "tmp105,id=thermo,bus=i2c-bus.1,address=0x48",
		"./examples/sensor", "--", "-n", "2", "-every", "3s")
	run.con.waitFor(t, "sensor: /dev/i2c-1 at 0x48: 0.0000 °C")
	qmp(t, sock, `{"execute":"qom-set","arguments":{"path":"/machine/peripheral/thermo","property":"temperature","value":21500}}`)
	run.con.waitFor(t, "sensor: /dev/i2c-1 at 0x48: 21.5000 °C")
	if s := run.wait(t, time.Minute); s != 0 {
		t.Errorf("sensor: exit status %d:\n%s", s, run.con.text())
	}
	n := rpi4(t, "run", "./examples/sensor", "--", "-addr", "0x49")
	n.expect(t, 1, "sensor: /dev/i2c-1 at 0x49: remote I/O error")
	for _, board := range []string{"rpi4", "virt"} {
		c := gometal(t, "run", "-board", board, "./examples/clock")
		c.expect(t, 0, "clock: RTC    20", "clock: system 20")
		if !regexp.MustCompile(`clock: they differ by -?[01]s\n`).MatchString(c.out) {
			t.Errorf("%s: the RTC and the wall clock differ by more than a second:\n%s", board, c.out)
		}
	}
}
