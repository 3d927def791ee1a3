package qemu

import (
	"testing"

	"github.com/gometal/gometal/drivers/fdt"
	"github.com/gometal/gometal/linker"
)

// rpi4DTB is the Pi 4's device tree as the CLI gives it to QEMU, before
// its edits (linker's board).
func rpi4DTB(t *testing.T) []byte {
	t.Helper()
	b, err := linker.LookupBoard("rpi4")
	if err != nil {
		t.Fatal(err)
	}
	dtb, err := b.DTBBytes()
	if err != nil || dtb == nil {
		t.Fatalf("the rpi4 board's device tree: %v", err)
	}
	return dtb
}

// AddRPi4HighMemory gives the Pi 4 DTB a second memory node for the RAM
// from 1 GiB to 2 GiB, which the kernel's own parser reads as memory,
// and refuses a tree that has one already.
func TestAddRPi4HighMemory(t *testing.T) {
	out, err := AddRPi4HighMemory(rpi4DTB(t))
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
