package qemu

import (
	"os"
	"testing"

	"github.com/gometal/gometal/drivers/fdt"
)

// AddRPi4HighMemory gives the Pi 4 DTB a second memory node for the RAM
// from 1 GiB to 2 GiB, which the kernel's own parser reads as memory,
// and refuses a tree that has one already.
func TestAddRPi4HighMemory(t *testing.T) {
	in, err := os.ReadFile("../linker/boards/rpi4/bcm2711-rpi-4-b.dtb")
	if err != nil {
		t.Fatal(err)
	}
	out, err := AddRPi4HighMemory(in)
	if err != nil {
		t.Fatal(err)
	}
	tr, e := fdt.Parse(out)
	if e != 0 {
		t.Fatalf("parse: %v", e)
	}
	var got [][2]uint64
	for n := tr.FindDeviceType(-1, "memory"); n >= 0; n = tr.FindDeviceType(n, "memory") {
		for i := 0; ; i++ {
			base, size, ok := tr.Reg(n, i)
			if !ok {
				break
			}
			got = append(got, [2]uint64{base, size})
		}
	}
	found := false
	for _, r := range got {
		found = found || r == [2]uint64{RPi4HighMemoryBase, RPi4HighMemorySize}
	}
	if !found {
		t.Errorf("memory ranges %x: no [1 GiB, 2 GiB)", got)
	}
	if _, err := AddRPi4HighMemory(out); err == nil {
		t.Error("a second call added the node again")
	}
}
