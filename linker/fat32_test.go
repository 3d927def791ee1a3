package linker

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The layout rule, on the geometry go-diskfs v1.9.4 lays out for 64 MiB
// (fsck.fat: "Filesystem has 129024 clusters but only space for 129022
// FAT entries") and on the one a 65 MiB partition gets.
func TestFAT32GeometryCheck(t *testing.T) {
	bad := fat32Geometry{BytesPerSector: 512, SectorsPerCluster: 1, ReservedSectors: 32, NumFATs: 2, TotalSectors: 131072, SectorsPerFAT: 1008}
	if c, e := bad.Clusters(), bad.FATEntries(); c != 129024 || e != 129024 {
		t.Errorf("64 MiB: %d clusters, %d entries; want 129024 of each", c, e)
	}
	if err := bad.check(); err == nil || !strings.Contains(err.Error(), "129024 clusters but a FAT of 129024 entries (129026 needed)") {
		t.Errorf("64 MiB layout: %v", err)
	}
	good := fat32Geometry{BytesPerSector: 512, SectorsPerCluster: 1, ReservedSectors: 32, NumFATs: 2, TotalSectors: 133120, SectorsPerFAT: 1024}
	if err := good.check(); err != nil {
		t.Errorf("65 MiB layout: %v", err)
	}
	small := good
	small.TotalSectors = 32 + 2*1024 + 65524
	if err := small.check(); err == nil || !strings.Contains(err.Error(), "fewer than FAT32's 65525") {
		t.Errorf("65524 clusters: %v", err)
	}
}

// WriteSDImage steps past go-diskfs's bad sizes: the image it writes for
// a few bytes of files (64 MiB asked) has a FAT entry for every cluster
// and FSInfo's free count filled in.
func TestWriteSDImageLayout(t *testing.T) {
	img := filepath.Join(t.TempDir(), "sd.img")
	if err := WriteSDImage(img, []BootFile{{Name: "config.txt", Data: []byte("arm_64bit=1\n")}}, ""); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := fat32GeometryAt(f, partitionStart*sectorSize)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.check(); err != nil {
		t.Error(err)
	}
	var fsi [512]byte
	f.ReadAt(fsi[:], partitionStart*sectorSize+sectorSize) // FSInfo: sector 1
	// Two clusters in use: the root directory and config.txt.
	if free := binary.LittleEndian.Uint32(fsi[fsiFreeCount:]); free != g.Clusters()-2 {
		t.Errorf("FSInfo free count %d, want %d", free, g.Clusters()-2)
	}
}
