package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gometal/gometal/tests/internal/treesum"
)

// The Raspberry Pi 4's SD card (drivers/sdhci, kernel/sdcard_arm64.go):
// QEMU's raspi4b with -drive if=sd. The card comes up through the SD
// protocol and its partition table is read (kernel/block): an SDSC card
// (up to 2 GiB, byte addresses) with an MBR, and an SDHC card (block
// addresses) without one.
func TestRPi4SDCard(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		size       int64
		mbr        bool
		card, line string
	}{
		{"sdsc", 128 << 20, true, "gometal: mmc0: new SD card at address ", `gometal: mmcblk0: mmc0:[0-9a-f]{4} QEMU! 128\.0 MiB\n(?:.*\n)?gometal: mmcblk0: 128\.0 MiB, MBR:`},
		{"sdhc", 4 << 30, false, "gometal: mmc0: new SDHC card at address ", `gometal: mmcblk0: mmc0:[0-9a-f]{4} QEMU! 4096\.0 MiB\n(?:.*\n)?gometal: mmcblk0: 4096\.0 MiB\n`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			img := filepath.Join(t.TempDir(), "sd.img")
			f, err := os.Create(img)
			if err != nil {
				t.Fatal(err)
			}
			// QEMU's SD card must be a power of two in size; sparse here.
			if err := f.Truncate(tc.size); err != nil {
				t.Fatal(err)
			}
			if tc.mbr {
				f.WriteAt([]byte{0x55, 0xaa}, 510)
			}
			f.Close()
			r := rpi4(t, "run", "-disk", img, "./tests/progs/hello")
			r.expect(t, 0, tc.card, "hello from gometal")
			if !regexp.MustCompile(tc.line).MatchString(r.out) {
				t.Errorf("no line matching %q:\n%s", tc.line, r.out)
			}
		})
	}
	// No card: nothing said about one, and the boot goes on.
	r := rpi4(t, "run", "./tests/progs/hello")
	r.expect(t, 0, "hello from gometal")
	if strings.Contains(r.out, "mmc") {
		t.Errorf("a boot with no SD card logged one:\n%s", r.out)
	}
}

// The Pi's SD card holding ext4 (gometal run -board rpi4 -disk FILE:GUEST):
// mounted at boot read-write, every entry as the host has it; a file
// written at one boot is there at the next. Small, as
// the card moves a page a request by PIO under QEMU.
func TestRPi4SDCardExt4(t *testing.T) {
	t.Parallel()
	tree := t.TempDir()
	for _, d := range []string{"etc", "var/log"} {
		if err := os.MkdirAll(filepath.Join(tree, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, n := range map[string]int{"etc/hostname": 9, "var/log/sensor.log": 70000, "README": 4096} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + i%26)
		}
		if err := os.WriteFile(filepath.Join(tree, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("var/log", filepath.Join(tree, "logs")); err != nil {
		t.Fatal(err)
	}
	want, err := treesum.Lines(tree)
	if err != nil {
		t.Fatal(err)
	}
	img := ext4Image(t, tree, "64M") // a power of two, as QEMU's SD card wants
	r := rpi4(t, "run", "-disk", img+":/perm", "./tests/progs/ext4ro", "--", "list", "/perm")
	r.expectClean(t, 0, "gometal: mounted mmcblk0 (ext4, read-write) at /perm",
		fmt.Sprintf("ext4ro: listed %d", len(want)))
	sameTree(t, r.out, want, "the SD card")
	// Written: a boot count kept on the card across two boots, and the
	// card clean for the host's e2fsck.
	for boot := 0; boot < 2; boot++ {
		r := rpi4(t, "run", "-disk", img+":/perm", "./tests/progs/ext4rw", "--", "perm", "/perm")
		r.expectClean(t, 0, fmt.Sprintf("perm: boots before: %d", boot), "ext4rw: perm: logged this boot: ok")
	}
	e2fsckClean(t, img, "after two boots wrote the SD card")
	if got := string(debugfsCat(t, img, "/boots")); got != "boot\nboot\n" {
		t.Errorf("debugfs cat /boots: %q", got)
	}
}
