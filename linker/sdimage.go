package linker

import (
	"fmt"
	"os"

	diskfs "github.com/diskfs/go-diskfs"
	"github.com/diskfs/go-diskfs/disk"
	"github.com/diskfs/go-diskfs/filesystem"
	"github.com/diskfs/go-diskfs/partition/mbr"
)

// SD card image layout: an MBR with one FAT32 (LBA) partition starting at
// 1 MiB, as Raspberry Pi OS images have it, which the Pi's boot ROM and
// firmware read.
const (
	sectorSize      = 512
	partitionStart  = 2048 // sectors: 1 MiB, aligned for flash erase blocks
	minFAT32Bytes   = 64 << 20
	sdVolumeLabel   = "GOMETAL"
	sdImageHeadroom = 2 // partition size: at least twice the files
)

// WriteSDImage writes a disk image holding files on its boot partition
// to path (replacing any file there).
func WriteSDImage(path string, files []BootFile) error {
	var total int64
	for _, f := range files {
		total += int64(len(f.Data))
	}
	// FAT32 needs at least 65,525 clusters; 64 MiB is comfortably above
	// that with 512-byte clusters, and room is left for the files.
	part := max(int64(minFAT32Bytes), total*sdImageHeadroom)
	part = (part + (1<<20 - 1)) &^ (1<<20 - 1)
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	d, err := diskfs.Create(path, partitionStart*sectorSize+part, diskfs.SectorSizeDefault)
	if err != nil {
		return fmt.Errorf("creating %s: %v", path, err)
	}
	defer d.Close()
	table := &mbr.Table{
		LogicalSectorSize:  sectorSize,
		PhysicalSectorSize: sectorSize,
		Partitions: []*mbr.Partition{{
			Index: 1, Bootable: true, Type: mbr.Fat32LBA,
			Start: partitionStart, Size: uint32(part / sectorSize),
		}},
	}
	if err := d.Partition(table); err != nil {
		return fmt.Errorf("partitioning %s: %v", path, err)
	}
	fs, err := d.CreateFilesystem(disk.FilesystemSpec{Partition: 1, FSType: filesystem.TypeFat32, VolumeLabel: sdVolumeLabel})
	if err != nil {
		return fmt.Errorf("making the FAT32 file system in %s: %v", path, err)
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
			return fmt.Errorf("%s: writing %s: %v", path, f.Name, err)
		}
	}
	return nil
}
