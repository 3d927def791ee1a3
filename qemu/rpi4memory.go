package qemu

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/u-root/u-root/pkg/dt"
)

// The Pi 4's RAM above the VideoCore's: the ARM sees a board's first
// GiB (less the VideoCore's share) at 0, and the rest of a 2, 4 or 8 GiB
// board from 1 GiB up, which the firmware adds to the device tree's
// /memory (BCM2711 ARM Peripherals §1.2, "Address map"; the firmware's
// fixup of /memory on 2 GiB and larger boards). QEMU's raspi4b models a
// 2 GiB board (revision b03115) whose RAM is all there, but describes
// only the part below the VideoCore's.
const (
	RPi4HighMemoryBase = 1 << 30
	RPi4HighMemorySize = 1 << 30 // a 2 GiB board's second GiB
)

// rpi4HighMemoryNode is the node AddRPi4HighMemory makes. Not named
// memory@: QEMU, loading the tree, replaces every node so named with
// its own description of RAM (hw/arm/boot.c), which for raspi4b stops
// below the VideoCore's. The kernel, as Linux's
// early_init_dt_scan_memory, knows memory by its device_type.
const rpi4HighMemoryNode = "ram@40000000"

// AddRPi4HighMemory does to a Pi 4 device tree what the firmware of a
// 2 GiB board does: its RAM from 1 GiB to 2 GiB is memory the kernel
// may use, described by a second node of device_type "memory" (as
// QEMU's own fixup would, were its RAM size past 1 GiB), with the
// root's cell sizes.
func AddRPi4HighMemory(dtb []byte) ([]byte, error) {
	fdt, err := dt.ReadFDT(bytes.NewReader(dtb))
	if err != nil {
		return nil, fmt.Errorf("reading the device tree: %v", err)
	}
	cells := func(name string) (int, error) {
		p, ok := fdt.RootNode.LookProperty(name)
		if !ok {
			return 0, fmt.Errorf("the device tree's root has no %s", name)
		}
		v, err := p.AsU32()
		if err != nil || v < 1 || v > 2 {
			return 0, fmt.Errorf("the device tree's root %s is %v", name, p.Value)
		}
		return int(v), nil
	}
	ac, err := cells("#address-cells")
	if err != nil {
		return nil, err
	}
	sc, err := cells("#size-cells")
	if err != nil {
		return nil, err
	}
	if _, ok := fdt.NodeByName(rpi4HighMemoryNode); ok {
		return nil, fmt.Errorf("the device tree already has %s", rpi4HighMemoryNode)
	}
	reg := make([]byte, 0, 4*(ac+sc))
	for _, f := range []struct {
		n int
		v uint64
	}{{ac, RPi4HighMemoryBase}, {sc, RPi4HighMemorySize}} {
		if f.n == 2 {
			reg = binary.BigEndian.AppendUint64(reg, f.v)
		} else {
			reg = binary.BigEndian.AppendUint32(reg, uint32(f.v))
		}
	}
	fdt.RootNode.Children = append(fdt.RootNode.Children, &dt.Node{
		Name: rpi4HighMemoryNode,
		Properties: []dt.Property{
			dt.PropertyString("device_type", "memory"),
			{Name: "reg", Value: reg},
		},
	})
	var out bytes.Buffer
	if _, err := fdt.Write(&out); err != nil {
		return nil, fmt.Errorf("writing the device tree: %v", err)
	}
	return out.Bytes(), nil
}
