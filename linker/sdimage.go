package linker

import (
	"bytes"
	"fmt"
	"io"
	"os"

	diskfs "github.com/diskfs/go-diskfs"
	"github.com/diskfs/go-diskfs/disk"
	"github.com/diskfs/go-diskfs/filesystem"
	"github.com/diskfs/go-diskfs/partition/mbr"
)

// SD card image layout: an MBR with a FAT32 (LBA) partition starting at
// 1 MiB, as Raspberry Pi OS images have it, which the Pi's boot ROM and
// firmware read; then, as gokrazy's cards have it, an ext4 partition the
// kernel mounts read-write at /perm (PermMount): what a program keeps
// across power cycles.
const (
	sectorSize      = 512
	partitionStart  = 2048 // sectors: 1 MiB, aligned for flash erase blocks
	partitionAlign  = 1 << 20
	minFAT32Bytes   = 64 << 20
	sdVolumeLabel   = "GOMETAL"
	sdImageHeadroom = 2 // partition size: at least twice the files

	// sdLayoutTries bounds the 1 MiB steps taken past a partition size
	// whose FAT go-diskfs makes too small (fat32Geometry). Its bad sizes
	// come in runs of at most three consecutive MiB (505-507 MiB, for
	// one), so a few steps always reach a good one.
	sdLayoutTries = 8
)

// PermMount and BootMount are the command-line words that mount the
// card's second partition at /perm, read-write, and its boot partition at
// /boot, read-only (the kernel's gometal.mount=; a FAT is mounted
// read-only).
const (
	PermMount = "gometal.mount=mmcblk0p2:/perm"
	BootMount = "gometal.mount=mmcblk0p1:/boot"
)

// WriteSDImage writes a disk image holding files on its boot partition
// to path (replacing any file there), and, unless perm is "", the ext4
// image in file perm as its second partition (Linux type 0x83), 1 MiB
// aligned after the first.
func WriteSDImage(path string, files []BootFile, perm string) error {
	var permBytes int64
	if perm != "" {
		st, err := os.Stat(perm)
		if err != nil {
			return err
		}
		if permBytes = st.Size(); permBytes%partitionAlign != 0 {
			return fmt.Errorf("%s: %d bytes, not whole MiB", perm, permBytes)
		}
	}
	var total int64
	for _, f := range files {
		total += int64(len(f.Data))
	}
	// FAT32 needs at least 65,525 clusters; 64 MiB is comfortably above
	// that with 512-byte clusters, and room is left for the files.
	part := max(int64(minFAT32Bytes), total*sdImageHeadroom)
	part = (part + partitionAlign - 1) &^ (partitionAlign - 1)
	var (
		d   *disk.Disk
		fs  filesystem.FileSystem
		err error
	)
	for try := 0; ; try++ {
		d, fs, err = formatSDImage(path, part, permBytes)
		if err != nil {
			return err
		}
		// go-diskfs v1.9.4 (the newest release) sizes the FAT without
		// the two reserved entries 0 and 1 (Microsoft's fatgen103, "FAT
		// Type Determination": a FAT holds CountofClusters+2 entries), so
		// where its rounding comes out exact (64 MiB, 129 MiB, 4 GiB, ...)
		// the last two clusters have no entry and fsck.fat and mtools
		// reject the file system (go-diskfs issue 418, fixed after the
		// release). So the boot sector it wrote is checked by the spec's
		// rule, and a size that fails is grown by 1 MiB.
		geo, gerr := fat32GeometryAt(d.Backend, partitionStart*sectorSize)
		if gerr == nil {
			gerr = geo.check()
		}
		if gerr == nil {
			break
		}
		d.Close()
		if try+1 == sdLayoutTries {
			return fmt.Errorf("%s: no valid FAT32 layout from %d MiB to %d MiB: %v", path, part>>20-sdLayoutTries+1, part>>20, gerr)
		}
		part += partitionAlign
	}
	for _, f := range files {
		w, err := fs.OpenFile("/"+f.Name, os.O_CREATE|os.O_RDWR)
		if err != nil {
			return fmt.Errorf("%s: creating %s: %v", path, f.Name, err)
		}
		_, err = w.Write(f.Data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			d.Close()
			return fmt.Errorf("%s: writing %s: %v", path, f.Name, err)
		}
	}
	if err := d.Close(); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if perm != "" {
		if err := copyInto(path, perm, partitionStart*sectorSize+part); err != nil {
			return fmt.Errorf("%s: the /perm partition: %v", path, err)
		}
	}
	// go-diskfs leaves FSInfo's free-cluster count "unknown", which the
	// spec allows but fsck.fat reports ("Free cluster summary
	// uninitialized"); mkfs.fat and every OS that writes a file fill it in.
	if err := fillFSInfo(path, partitionStart*sectorSize); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// formatSDImage makes path a new image with one empty FAT32 partition of
// part bytes at partitionStart, and a Linux one of perm bytes after it
// when perm is not 0.
func formatSDImage(path string, part, perm int64) (*disk.Disk, filesystem.FileSystem, error) {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return nil, nil, err
	}
	d, err := diskfs.Create(path, partitionStart*sectorSize+part+perm, diskfs.SectorSizeDefault)
	if err != nil {
		return nil, nil, fmt.Errorf("creating %s: %v", path, err)
	}
	table := &mbr.Table{
		LogicalSectorSize:  sectorSize,
		PhysicalSectorSize: sectorSize,
		Partitions: []*mbr.Partition{{
			Index: 1, Bootable: true, Type: mbr.Fat32LBA,
			Start: partitionStart, Size: uint32(part / sectorSize),
		}},
	}
	if perm != 0 {
		table.Partitions = append(table.Partitions, &mbr.Partition{
			Index: 2, Type: mbr.Linux,
			Start: uint32(partitionStart + part/sectorSize), Size: uint32(perm / sectorSize),
		})
	}
	if err := d.Partition(table); err != nil {
		d.Close()
		return nil, nil, fmt.Errorf("partitioning %s: %v", path, err)
	}
	fs, err := d.CreateFilesystem(disk.FilesystemSpec{Partition: 1, FSType: filesystem.TypeFat32, VolumeLabel: sdVolumeLabel})
	if err != nil {
		d.Close()
		return nil, nil, fmt.Errorf("making the FAT32 file system in %s: %v", path, err)
	}
	return d, fs, nil
}

// copyInto writes file src's bytes into dst at off, skipping the blocks
// of zeros (dst stays sparse where src is).
func copyInto(dst, src string, off int64) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	for at := int64(0); ; at += int64(len(buf)) {
		n, rerr := in.ReadAt(buf, at)
		if n > 0 && bytes.ContainsFunc(buf[:n], func(r rune) bool { return r != 0 }) {
			if _, err := out.WriteAt(buf[:n], off+at); err != nil {
				out.Close()
				return err
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			out.Close()
			return rerr
		}
	}
	return out.Close()
}
