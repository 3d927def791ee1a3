// Package virtio owns virtio devices as QEMU's virt board provides them:
// the virtio-mmio transport of virtio 1.x (the "modern" register layout,
// Version 2; virtio 1.2 §4.2.2), split virtqueues (§2.7), and the network
// device (§5.1). It knows registers and rings, not packets: the kernel
// hands it pages and takes frames.
//
// Memory the device reads or writes (rings, buffers) comes from the
// kernel's page allocator through a function value, so the package
// depends on nothing above drivers; a buffer's device address is its
// physical address (QEMU virt has no IOMMU in front of virtio-mmio).
package virtio
