package qemu

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseDisk(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "a:b.img") // a colon in the file's own name
	if err := os.WriteFile(img, make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   string
		want Disk
	}{
		{img, Disk{Path: img}},
		{img + ":ro", Disk{Path: img, ReadOnly: true}},
		{img + ":/data", Disk{Path: img, Guest: "/data"}},
		{img + ":/mnt/x:ro", Disk{Path: img, Guest: "/mnt/x", ReadOnly: true}},
	} {
		d, err := ParseDisk(c.in)
		if err != nil || d != c.want {
			t.Errorf("ParseDisk(%q) = %+v, %v; want %+v", c.in, d, err, c.want)
		}
	}
	for _, bad := range []string{":/data", filepath.Join(dir, "none") + ":/data", img + ":/a b"} {
		if _, err := ParseDisk(bad); err == nil || !strings.Contains(err.Error(), "-disk") {
			t.Errorf("ParseDisk(%q): %v, want an error naming -disk", bad, err)
		}
	}
	disks := []Disk{{Path: "x"}, {Path: "y", Guest: "/data"}, {Path: "z", Guest: "/z", ReadOnly: true}}
	if w := DiskBootargs(disks, "virt"); !slices.Equal(w, []string{"gometal.mount=vdb:/data", "gometal.mount=vdc:/z"}) {
		t.Errorf("DiskBootargs(virt) = %q", w)
	}
	if w := DiskBootargs(disks[1:2], "raspi4b"); !slices.Equal(w, []string{"gometal.mount=mmcblk0:/data"}) {
		t.Errorf("DiskBootargs(raspi4b) = %q", w)
	}
}
