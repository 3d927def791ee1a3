package block

import "testing"

func TestDiskNamesAndNumbers(t *testing.T) {
	NDisks = 0
	a, _ := AddVirtio(1000, false, true, 0)
	b, _ := AddVirtio(2000, true, false, 1)
	a.Table = Table{Kind: "MBR", N: 2, Parts: [MaxPartitions]Partition{{Num: 1, Start: 10, Length: 100}, {Num: 3, Start: 200, Length: 50}}}
	var nb [16]byte
	for _, c := range []struct {
		d    *Disk
		part int
		want string
	}{{a, 0, "vda"}, {a, 1, "vda1"}, {b, 0, "vdb"}, {b, 12, "vdb12"}} {
		if got := string(nb[:c.d.NameOf(c.part, &nb)]); got != c.want {
			t.Errorf("name %q, want %q", got, c.want)
		}
	}
	if b.First != 16 || a.First != 0 {
		t.Errorf("minors %d, %d; want 0, 16", a.First, b.First)
	}
	if d, p := Find(VirtioMajor, 3); d != a || p != 3 {
		t.Errorf("254:3 is %v part %d", d, p)
	}
	if d, _ := Find(VirtioMajor, 2); d != nil {
		t.Error("254:2 (no such partition) found")
	}
	if d, p := Find(VirtioMajor, 16); d != b || p != 0 {
		t.Errorf("254:16 is %v part %d", d, p)
	}
	if s, l := a.Extent(3); s != 200 || l != 50 {
		t.Errorf("vda3 extent %d+%d", s, l)
	}
	mmc := Disk{NameLen: 7}
	copy(mmc.Name[:], "mmcblk0")
	if got := string(nb[:mmc.NameOf(2, &nb)]); got != "mmcblk0p2" {
		t.Errorf("mmc partition name %q", got)
	}
	NDisks = 0
}
