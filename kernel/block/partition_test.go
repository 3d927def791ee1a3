package block

import (
	"os"
	"path/filepath"
	"testing"

	diskfs "github.com/diskfs/go-diskfs"
	"github.com/diskfs/go-diskfs/partition/gpt"
	"github.com/diskfs/go-diskfs/partition/mbr"
)

// fileReader reads sectors of an image file, as the kernel's driver reads
// the disk.
func fileReader(t *testing.T, path string) (uint64, ReadSector) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return uint64(len(b)) / sectorBytes, func(n uint64, s *[sectorBytes]byte) bool {
		if (n+1)*sectorBytes > uint64(len(b)) {
			return false
		}
		copy(s[:], b[n*sectorBytes:])
		return true
	}
}

// newImage makes a sparse image of size bytes and partitions it with
// go-diskfs (a library that did not write the parser).
func newImage(t *testing.T, size int64, table interface{ Type() string }) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "disk.img")
	d, err := diskfs.Create(path, size, diskfs.SectorSizeDefault)
	if err != nil {
		t.Fatal(err)
	}
	switch tb := table.(type) {
	case *mbr.Table:
		err = d.Partition(tb)
	case *gpt.Table:
		err = d.Partition(tb)
	}
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	return path
}

func TestParseMBR(t *testing.T) {
	path := newImage(t, 64<<20, &mbr.Table{
		LogicalSectorSize:  512,
		PhysicalSectorSize: 512,
		Partitions: []*mbr.Partition{
			{Bootable: true, Type: mbr.Fat32LBA, Start: 2048, Size: 32768},
			{Type: mbr.Linux, Start: 34816, Size: 96256},
		},
	})
	sectors, read := fileReader(t, path)
	tb := Parse(sectors, read)
	if tb.Kind != "MBR" || tb.N != 2 {
		t.Fatalf("table %q with %d partitions, want MBR with 2", tb.Kind, tb.N)
	}
	want := []Partition{{1, 2048, 32768}, {2, 34816, 96256}}
	for i, w := range want {
		if tb.Parts[i] != w {
			t.Errorf("partition %d: %+v, want %+v", i, tb.Parts[i], w)
		}
	}
}

func TestParseGPT(t *testing.T) {
	path := newImage(t, 64<<20, &gpt.Table{
		LogicalSectorSize:  512,
		PhysicalSectorSize: 512,
		ProtectiveMBR:      true,
		Partitions: []*gpt.Partition{
			{Index: 1, Start: 2048, End: 34815, Type: gpt.EFISystemPartition, Name: "boot"},
			{Index: 2, Start: 34816, End: 120000, Type: gpt.LinuxFilesystem, Name: "perm"},
		},
	})
	sectors, read := fileReader(t, path)
	tb := Parse(sectors, read)
	if tb.Kind != "GPT" || tb.N != 2 {
		t.Fatalf("table %q with %d partitions, want GPT with 2", tb.Kind, tb.N)
	}
	want := []Partition{{1, 2048, 32768}, {2, 34816, 120000 - 34816 + 1}}
	for i, w := range want {
		if tb.Parts[i] != w {
			t.Errorf("partition %d: %+v, want %+v", i, tb.Parts[i], w)
		}
	}
}

func TestParseNone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "blank.img")
	if err := os.WriteFile(path, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	sectors, read := fileReader(t, path)
	if tb := Parse(sectors, read); tb.Kind != "" || tb.N != 0 {
		t.Fatalf("a blank disk: %q with %d partitions", tb.Kind, tb.N)
	}
	// A failing device: nothing, no panic.
	if tb := Parse(1<<20, func(uint64, *[sectorBytes]byte) bool { return false }); tb.N != 0 {
		t.Fatalf("an unreadable disk gave %d partitions", tb.N)
	}
}

// Any bytes in the first sectors give a table whose partitions all lie
// inside the disk, and never a panic or an endless loop.
func FuzzParse(f *testing.F) {
	var mbrSeed [4 * sectorBytes]byte
	mbrSeed[510], mbrSeed[511] = 0x55, 0xaa
	mbrSeed[446+4] = 0x83
	mbrSeed[446+8] = 1
	mbrSeed[446+12] = 100
	f.Add(mbrSeed[:], uint64(1000))
	gptSeed := mbrSeed
	gptSeed[446+4] = typeGPT
	copy(gptSeed[512:], gptSignature)
	gptSeed[512+gptEntriesLBAOff] = 2
	gptSeed[512+gptNumEntriesOff] = 4
	gptSeed[512+gptEntrySizeOff] = 128
	gptSeed[512+gptLastLBAOff] = 200
	gptSeed[1024] = 1
	gptSeed[1024+32] = 10
	gptSeed[1024+40] = 20
	f.Add(gptSeed[:], uint64(1000))
	f.Fuzz(func(t *testing.T, img []byte, sectors uint64) {
		read := func(n uint64, s *[sectorBytes]byte) bool {
			if n >= sectors {
				t.Fatalf("read sector %d of a %d-sector disk", n, sectors)
			}
			*s = [sectorBytes]byte{}
			if n*sectorBytes < uint64(len(img)) {
				copy(s[:], img[n*sectorBytes:])
			}
			return true
		}
		tb := Parse(sectors, read)
		if tb.N > MaxPartitions {
			t.Fatalf("%d partitions", tb.N)
		}
		for _, p := range tb.Parts[:tb.N] {
			if p.Length == 0 || p.Start >= sectors || p.Length > sectors-p.Start {
				t.Fatalf("partition %+v outside a %d-sector disk", p, sectors)
			}
		}
	})
}
