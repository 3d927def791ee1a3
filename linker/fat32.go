package linker

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// fat32Geometry is what a FAT32 boot sector's BPB says of the layout
// (Microsoft's fatgen103, "Boot Sector and BPB Structure").
type fat32Geometry struct {
	BytesPerSector    uint32
	SectorsPerCluster uint32
	ReservedSectors   uint32
	NumFATs           uint32
	TotalSectors      uint32
	SectorsPerFAT     uint32
}

// Byte offsets of the BPB fields a layout check needs (fatgen103).
const (
	bpbBytsPerSec = 11
	bpbSecPerClus = 13
	bpbRsvdSecCnt = 14
	bpbNumFATs    = 16
	bpbTotSec32   = 32
	bpbFATSz32    = 36
	bpbSignature  = 510 // 0x55 0xAA

	fat32MinClusters = 65525 // fewer is FAT16 by fatgen103's rule
	fat32EntryBytes  = 4
	fatReserved      = 2 // entries 0 and 1 name no cluster
)

// fat32GeometryAt reads the boot sector at off in r.
func fat32GeometryAt(r io.ReaderAt, off int64) (fat32Geometry, error) {
	var bs [512]byte
	if _, err := r.ReadAt(bs[:], off); err != nil {
		return fat32Geometry{}, fmt.Errorf("reading the boot sector: %v", err)
	}
	if bs[bpbSignature] != 0x55 || bs[bpbSignature+1] != 0xAA {
		return fat32Geometry{}, fmt.Errorf("the boot sector has no 55 AA signature")
	}
	le := binary.LittleEndian
	return fat32Geometry{
		BytesPerSector:    uint32(le.Uint16(bs[bpbBytsPerSec:])),
		SectorsPerCluster: uint32(bs[bpbSecPerClus]),
		ReservedSectors:   uint32(le.Uint16(bs[bpbRsvdSecCnt:])),
		NumFATs:           uint32(bs[bpbNumFATs]),
		TotalSectors:      le.Uint32(bs[bpbTotSec32:]),
		SectorsPerFAT:     le.Uint32(bs[bpbFATSz32:]),
	}, nil
}

// Clusters is fatgen103's CountofClusters: the data region's sectors
// (what the reserved sectors and the FATs leave) in whole clusters.
func (g fat32Geometry) Clusters() uint32 {
	meta := g.ReservedSectors + g.NumFATs*g.SectorsPerFAT
	if g.SectorsPerCluster == 0 || meta >= g.TotalSectors {
		return 0
	}
	return (g.TotalSectors - meta) / g.SectorsPerCluster
}

// FATEntries is how many 32-bit entries one FAT has room for.
func (g fat32Geometry) FATEntries() uint32 {
	return g.SectorsPerFAT * g.BytesPerSector / fat32EntryBytes
}

// check applies the rules fsck.fat (dosfstools' boot.c) and mtools hold a
// FAT32 file system to: enough clusters to be FAT32 at all, and a FAT
// entry for every cluster after the two reserved ones.
func (g fat32Geometry) check() error {
	if g.BytesPerSector != sectorSize || g.SectorsPerCluster == 0 || g.NumFATs == 0 {
		return fmt.Errorf("boot sector: %d bytes a sector, %d sectors a cluster, %d FATs", g.BytesPerSector, g.SectorsPerCluster, g.NumFATs)
	}
	c := g.Clusters()
	if c < fat32MinClusters {
		return fmt.Errorf("%d clusters, fewer than FAT32's %d", c, fat32MinClusters)
	}
	if e := g.FATEntries(); e < c+fatReserved {
		return fmt.Errorf("%d clusters but a FAT of %d entries (%d needed)", c, e, c+fatReserved)
	}
	return nil
}

// FSInfo sector fields (fatgen103, "FAT32 FSInfo Sector Structure").
const (
	bpbFSInfo        = 48  // the FSInfo sector's number in the reserved area
	bpbBkBootSec     = 50  // the backup boot sector's; its FSInfo copy follows it
	fsiLeadSig       = 0   // 0x41615252
	fsiStrucSig      = 484 // 0x61417272
	fsiFreeCount     = 488
	fsiNxtFree       = 492
	fsiTrailSig      = 508 // 0xAA550000
	fsiLeadSigValue  = 0x41615252
	fsiStrucSigValue = 0x61417272
	fsiTrailSigValue = 0xAA550000
	fsiUnknown       = 0xFFFFFFFF
)

// fillFSInfo counts the free clusters of the FAT32 file system at off in
// the image at path and writes the count, and the last cluster in use as
// the hint where the next search for a free one starts, into its FSInfo
// sector and the backup's.
func fillFSInfo(path string, off int64) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	g, err := fat32GeometryAt(f, off)
	if err != nil {
		return err
	}
	if err := g.check(); err != nil {
		return err
	}
	var bs [512]byte
	if _, err := f.ReadAt(bs[:], off); err != nil {
		return err
	}
	le := binary.LittleEndian
	fat := make([]byte, int64(g.SectorsPerFAT)*int64(g.BytesPerSector))
	if _, err := f.ReadAt(fat, off+int64(g.ReservedSectors)*int64(g.BytesPerSector)); err != nil {
		return fmt.Errorf("reading the FAT: %v", err)
	}
	free, last := uint32(0), uint32(fsiUnknown)
	for c := uint32(fatReserved); c < g.Clusters()+fatReserved; c++ {
		// The top four bits of a FAT32 entry are reserved (fatgen103).
		if le.Uint32(fat[c*fat32EntryBytes:])&0x0FFFFFFF == 0 {
			free++
		} else {
			last = c
		}
	}
	bk := uint32(le.Uint16(bs[bpbBkBootSec:]))
	for _, sec := range []uint32{uint32(le.Uint16(bs[bpbFSInfo:])), bk + 1} {
		at := off + int64(sec)*int64(g.BytesPerSector)
		var fsi [512]byte
		if _, err := f.ReadAt(fsi[:], at); err != nil {
			return err
		}
		if le.Uint32(fsi[fsiLeadSig:]) != fsiLeadSigValue || le.Uint32(fsi[fsiStrucSig:]) != fsiStrucSigValue ||
			le.Uint32(fsi[fsiTrailSig:]) != fsiTrailSigValue {
			return fmt.Errorf("no FSInfo sector at sector %d", sec)
		}
		le.PutUint32(fsi[fsiFreeCount:], free)
		le.PutUint32(fsi[fsiNxtFree:], last)
		if _, err := f.WriteAt(fsi[:], at); err != nil {
			return err
		}
	}
	return f.Close()
}
