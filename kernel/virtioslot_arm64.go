package kernel

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/fdt"
	"github.com/gometal/gometal/drivers/virtio"
)

// nextVirtio finds, after device-tree node after (-1: from the start),
// the next enabled virtio-mmio slot holding a device of type id: its
// node (-1 when there is none), its registers' physical address, and
// whether it speaks the modern transport. QEMU virt lists 32 slots,
// most empty; the network device, the disks and the 9p shares each
// walk them with this.
func nextVirtio(after fdt.Node, id uint32) (n fdt.Node, addr uintptr, modern bool) {
	for n = dtb.FindCompatible(after, "virtio,mmio"); n >= 0; n = dtb.FindCompatible(n, "virtio,mmio") {
		a, ok := enabledDevice(n)
		if !ok {
			continue
		}
		if got, m := virtio.Probe(cpu.KVA(a)); got == id {
			return n, a, m
		}
	}
	return -1, 0, false
}
