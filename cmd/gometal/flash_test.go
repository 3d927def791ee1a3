package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeSys makes a sysfs and /proc/mounts for the device checks: disks
// maps a name to its size in GiB and removable flag.
func fakeSys(t *testing.T, mounts string, disks map[string][2]int64) {
	t.Helper()
	root := t.TempDir()
	oldSys, oldMounts := sysClassBlock, procMounts
	t.Cleanup(func() { sysClassBlock, procMounts = oldSys, oldMounts })
	sysClassBlock = filepath.Join(root, "class", "block")
	procMounts = filepath.Join(root, "mounts")
	for name, d := range disks {
		dir := filepath.Join(sysClassBlock, name)
		os.MkdirAll(filepath.Join(dir, "device"), 0o755)
		os.WriteFile(filepath.Join(dir, "size"), []byte(itoa(d[0]<<30/sysSectorSize)+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "removable"), []byte(itoa(d[1])+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "device", "model"), []byte("Card Reader  \n"), 0o644)
		// Its first partition, as sysfs lists it under the disk and on
		// its own.
		os.MkdirAll(filepath.Join(dir, name+"1"), 0o755)
		part := filepath.Join(sysClassBlock, name+"1")
		os.MkdirAll(part, 0o755)
		os.WriteFile(filepath.Join(part, "partition"), []byte("1\n"), 0o644)
	}
	os.WriteFile(procMounts, []byte(mounts), 0o644)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestFlashDeviceChecks(t *testing.T) {
	fakeSys(t, "/dev/sdc1 /media/card vfat rw 0 0\nproc /proc proc rw 0 0\n", map[string][2]int64{
		"sdb": {32, 1},  // an SD card in a USB reader
		"sdc": {32, 1},  // the same, mounted
		"sda": {500, 0}, // the machine's own disk
		"sdd": {512, 1}, // removable but too big for a card
	})
	cases := []struct {
		name  string
		force bool
		want  string // "" means allowed
	}{
		{"sdb", false, ""},
		{"sdc", false, "/dev/sdc is mounted (/dev/sdc1 on /media/card); unmount it first"},
		{"sdc", true, "is mounted"},
		{"sda", false, "is not a removable device; if it really is the SD card, add -force"},
		{"sda", true, ""},
		{"sdd", false, "is larger than 256 GiB"},
		{"sdd", true, ""},
		{"sdb1", false, "is a partition; name the whole card"},
	}
	for _, c := range cases {
		tg := flashTarget{path: "/dev/" + c.name, block: true, name: c.name}
		err := checkBlockDevice(&tg, c.force)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s force=%v: refused: %v", c.name, c.force, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s force=%v: got %v, want %q", c.name, c.force, err, c.want)
		}
	}
	tg := flashTarget{path: "/dev/sdb", block: true, name: "sdb"}
	checkBlockDevice(&tg, false)
	if tg.describe() != "Card Reader, 32.0 GiB" {
		t.Errorf("describe: %q", tg.describe())
	}
}

func TestFlashTargets(t *testing.T) {
	if _, err := checkFlashTarget("/dev/gometal-no-such-card", false); err == nil || err.Error() != "/dev/gometal-no-such-card: no such device" {
		t.Errorf("missing device: %v", err)
	}
	if _, err := checkFlashTarget("/dev/null", false); err == nil || !strings.Contains(err.Error(), "neither a block device nor an image file") {
		t.Errorf("/dev/null: %v", err)
	}
	dir := t.TempDir()
	if _, err := checkFlashTarget(dir, false); err == nil {
		t.Error("a directory was accepted")
	}
	img := filepath.Join(dir, "card.img")
	tg, err := checkFlashTarget(img, false)
	if err != nil || tg.block {
		t.Fatalf("new image file: %+v %v", tg, err)
	}
	src := filepath.Join(dir, "src.img")
	data := bytes.Repeat([]byte("gometal"), 1<<20)
	os.WriteFile(src, data, 0o644)
	var progress bytes.Buffer
	if err := writeImage(src, tg, &progress); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(img); !bytes.Equal(got, data) {
		t.Error("the image file differs from the image")
	}
	if !strings.Contains(progress.String(), "100% (7 of 7 MiB)") {
		t.Errorf("progress: %q", progress.String())
	}
}
