// Package block owns the machine's block devices as Linux names them: the
// disks the drivers found (a virtio-blk device is vda, vdb, ...; the Pi's
// SD card mmcblk0), their partitions read from an MBR or a GPT when the
// disk is found (Linux's block/partitions/msdos.c and efi.c), and their
// device numbers (virtio-blk major 254 with 16 minors a disk, as Linux's
// virtio_blk registers; partitions take the minors after their disk's).
// It knows sectors and tables, not drivers or files: the Linux layer
// opens a device through it and the core's driver reads and writes.
// It also keeps the requests in flight (request.go): what the device
// answered for each and the queue its sleepers wait on, the driver's
// completion and the page cache's reads meeting there. Pure logic,
// host-tested and fuzzed.
package block
