package block

// Device numbers (Documentation/admin-guide/devices.txt; virtio_blk.c,
// mmc/core/block.c): virtio-blk takes a dynamic major, 254 on a Linux
// with no other such driver, and 16 minors a disk (PART_BITS 4); the
// SD card's is 179 with 8 a card.
const (
	VirtioMajor    = 254
	virtioMinors   = 16
	MMCMajor       = 179
	mmcMinors      = 8
	MaxDisks       = 8
	maxMinorsTotal = 256 // this kernel's device numbers keep the minor in 8 bits
)

// A Disk is a whole device a driver found, and its partitions.
type Disk struct {
	Name     [8]byte // "vda", "mmcblk0"
	NameLen  int
	Major    uint32
	First    uint32 // the disk's minor; partition n is First+n
	Sectors  uint64 // 512-byte sectors
	ReadOnly bool
	Flush    bool // the device has a volatile cache that a flush empties
	Driver   int  // the driver's own index of the device
	Table    Table
}

// Disks are the disks found at boot, in order.
var (
	Disks  [MaxDisks]Disk
	NDisks int
)

// AddVirtio registers the next virtio disk (vda, vdb, ...): false when
// the table is full.
func AddVirtio(sectors uint64, readOnly, flush bool, driver int) (*Disk, bool) {
	n := 0
	for i := 0; i < NDisks; i++ {
		if Disks[i].Major == VirtioMajor {
			n++
		}
	}
	if NDisks == MaxDisks || (n+1)*virtioMinors > maxMinorsTotal {
		return nil, false
	}
	d := &Disks[NDisks]
	*d = Disk{Major: VirtioMajor, First: uint32(n * virtioMinors), Sectors: sectors, ReadOnly: readOnly, Flush: flush, Driver: driver}
	d.NameLen = copy(d.Name[:], "vd")
	d.Name[d.NameLen] = 'a' + byte(n)
	d.NameLen++
	NDisks++
	return d, true
}

// AddMMC registers the SD card as mmcblk0.
func AddMMC(sectors uint64, readOnly bool) (*Disk, bool) {
	if NDisks == MaxDisks {
		return nil, false
	}
	d := &Disks[NDisks]
	*d = Disk{Major: MMCMajor, Sectors: sectors, ReadOnly: readOnly}
	d.NameLen = copy(d.Name[:], "mmcblk0")
	NDisks++
	return d, true
}

// NameOf writes into b the name of disk d's partition part (0: the
// disk): vda, vda1; mmcblk0, mmcblk0p1 (a name ending in a digit takes
// "p" before the partition's number, as Linux's disk_name does). It
// returns the length.
func (d *Disk) NameOf(part int, b *[16]byte) int {
	n := copy(b[:], d.Name[:d.NameLen])
	if part == 0 {
		return n
	}
	if c := d.Name[d.NameLen-1]; c >= '0' && c <= '9' {
		b[n] = 'p'
		n++
	}
	if part >= 10 {
		b[n] = '0' + byte(part/10)
		n++
	}
	b[n] = '0' + byte(part%10)
	return n + 1
}

// Index is d's place in Disks.
func (d *Disk) Index() int {
	for i := range Disks[:NDisks] {
		if &Disks[i] == d {
			return i
		}
	}
	return -1
}

// Find returns the disk and partition (0: the whole disk) that device
// number major:minor names, or nil.
func Find(major, minor uint32) (*Disk, int) {
	for i := 0; i < NDisks; i++ {
		d := &Disks[i]
		if d.Major != major || minor < d.First {
			continue
		}
		p := int(minor - d.First)
		if p == 0 {
			return d, 0
		}
		for k := 0; k < d.Table.N; k++ {
			if d.Table.Parts[k].Num == p {
				return d, p
			}
		}
	}
	return nil, 0
}

// Extent returns the first sector and the length of partition part of d
// (0: the whole disk).
func (d *Disk) Extent(part int) (start, length uint64) {
	if part == 0 {
		return 0, d.Sectors
	}
	for k := 0; k < d.Table.N; k++ {
		if p := d.Table.Parts[k]; p.Num == part {
			return p.Start, p.Length
		}
	}
	return 0, 0
}

// Nodes is how many device nodes d has: the disk and its partitions.
func (d *Disk) Nodes() int { return 1 + d.Table.N }

// NodePart is the partition number of d's node k (0: the disk itself).
func (d *Disk) NodePart(k int) int {
	if k == 0 {
		return 0
	}
	return d.Table.Parts[k-1].Num
}
