package qemu

import (
	"testing"

	"github.com/gometal/gometal/drivers/fdt"
)

// EnableRPi4SPI turns the Pi 4 DTB's SPI0 on and leaves the rest as it
// was (read back with the kernel's own parser).
func TestEnableRPi4SPI(t *testing.T) {
	in := rpi4DTB(t)
	out, err := EnableRPi4SPI(in)
	if err != nil {
		t.Fatal(err)
	}
	status := func(b []byte, compat string, phys uint64) string {
		tr, e := fdt.Parse(b)
		if e != 0 {
			t.Fatalf("parse: %v", e)
		}
		for n := tr.FindCompatible(-1, compat); n >= 0; n = tr.FindCompatible(n, compat) {
			if a, _, _ := tr.Phys(n, 0); a == phys {
				s, _ := tr.StringProp(n, "status")
				return string(s)
			}
		}
		return "missing"
	}
	if s := status(in, "brcm,bcm2835-spi", 0xfe204000); s != "disabled\x00" && s != "disabled" {
		t.Errorf("the DTB's SPI0 was %q before", s)
	}
	if s := status(out, "brcm,bcm2835-spi", 0xfe204000); s != "okay\x00" && s != "okay" {
		t.Errorf("SPI0 after: %q", s)
	}
	if s := status(out, "brcm,bcm2835-spi", 0xfe204600); s != "disabled\x00" && s != "disabled" {
		t.Errorf("SPI3 after: %q", s)
	}
	if s := status(out, "brcm,bcm2711-i2c", 0xfe804000); s != "okay\x00" && s != "okay" {
		t.Errorf("i2c-1 after: %q", s)
	}
}
