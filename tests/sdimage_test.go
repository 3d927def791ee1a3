package tests

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gometal/gometal/linker"
)

// The SD card image is checked by tools that did not write it: Debian's
// dosfstools (fsck.fat), mtools, file(1) and util-linux's blkid, which
// make deps installs. go-diskfs, which writes it, reads back what it
// wrote (TestRPi4SDCardImage), so it cannot see a layout it got wrong.

const (
	sdPartitionOffset = 2048 * 512 // linker's partitionStart
	sdLabel           = "GOMETAL"
)

// checkSDImage runs the independent tools on the image at img, which
// must hold exactly files (name to bytes) on its FAT32 boot partition.
func checkSDImage(t *testing.T, img string, files map[string][]byte) {
	t.Helper()
	fsck, mdirBin, mcopyBin, fileBin, blkid := tool(t, "fsck.fat"), tool(t, "mdir"), tool(t, "mcopy"), tool(t, "file"), tool(t, "blkid")
	// fsck.fat reads a file system, not a disk: the partition goes to a
	// file of its own (sparse: the image is mostly free clusters).
	part := filepath.Join(t.TempDir(), "part.img")
	copyPartition(t, img, part)

	out, err := exec.Command(fsck, "-n", part).CombinedOutput()
	// Its whole output for a clean file system: the version line and
	// the summary ("NAME: N files, USED/TOTAL clusters").
	clean := regexp.MustCompile(`^fsck\.fat \S+ \([^)]*\)\n` + regexp.QuoteMeta(part) + `: \d+ files, \d+/\d+ clusters\n$`)
	if err != nil || !clean.Match(out) {
		t.Errorf("fsck.fat -n %s: %v\n%s", img, err, out)
	}

	// mtools, without MTOOLS_SKIP_CHECK, on the image with its offset.
	env := append(os.Environ(), "MTOOLS_SKIP_CHECK=0")
	at := img + "@@" + "1048576"
	mdir := exec.Command(mdirBin, "-b", "-i", at, "::")
	mdir.Env = env
	out, err = mdir.CombinedOutput()
	if err != nil {
		t.Fatalf("mdir -i %s: %v\n%s", at, err, out)
	}
	var listed []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		listed = append(listed, strings.TrimPrefix(l, "::/"))
	}
	if len(listed) != len(files) {
		t.Errorf("mdir lists %q, want the %d files written", listed, len(files))
	}
	dst := t.TempDir()
	for name, want := range files {
		mcopy := exec.Command(mcopyBin, "-n", "-i", at, "::"+name, filepath.Join(dst, name))
		mcopy.Env = env
		if out, err := mcopy.CombinedOutput(); err != nil {
			t.Errorf("mcopy %s: %v\n%s", name, err, out)
			continue
		}
		got, _ := os.ReadFile(filepath.Join(dst, name))
		if !bytes.Equal(got, want) {
			t.Errorf("%s as mcopy reads it: %d bytes, not the %d written", name, len(got), len(want))
		}
	}

	out, err = exec.Command(fileBin, "-s", part).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "FAT (32 bit)") || !strings.Contains(string(out), `label: "`+sdLabel) {
		t.Errorf("file -s %s: %v\n%s", part, err, out)
	}
	out, err = exec.Command(blkid, "-p", "-o", "export", "-O", "1048576", img).CombinedOutput()
	for _, kv := range []string{"TYPE=vfat", "VERSION=FAT32", "LABEL=" + sdLabel} {
		if err != nil || !regexp.MustCompile(`(?m)^`+kv+`$`).Match(out) {
			t.Errorf("blkid -p -O 1048576 %s lacks %s: %v\n%s", img, kv, err, out)
		}
	}
}

// tool finds a checking tool on PATH or in /sbin and /usr/sbin, where
// Debian puts fsck.fat, blkid and e2fsprogs and a user's PATH may not
// look.
func tool(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/sbin"} {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
	}
	t.Fatalf("%s is not installed (make deps installs dosfstools, mtools, file, util-linux and e2fsprogs)", name)
	return ""
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// copyPartition copies the boot partition of img (from its offset, its
// length from the MBR's first entry) to dst, leaving holes where the
// image has zeros.
func copyPartition(t *testing.T, img, dst string) {
	t.Helper()
	src, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var mbr [512]byte
	if _, err := src.ReadAt(mbr[:], 0); err != nil {
		t.Fatal(err)
	}
	// The first entry (at 446): its sector count is the le32 at 12.
	length := int64(binary.LittleEndian.Uint32(mbr[446+12:])) * 512
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	r := io.NewSectionReader(src, sdPartitionOffset, length)
	buf := make([]byte, 1<<20)
	var off int64
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 && bytes.ContainsFunc(buf[:n], func(r rune) bool { return r != 0 }) {
			if _, werr := out.WriteAt(buf[:n], off); werr != nil {
				t.Fatal(werr)
			}
		}
		off += int64(n)
		if err != nil {
			break
		}
	}
	if err := out.Truncate(off); err != nil {
		t.Fatal(err)
	}
}

// Every partition size the image can get is a valid FAT32: the minimum
// (64 MiB, where go-diskfs's FAT comes out two entries short), the
// rounding edge above it, the sizes that go-diskfs gets wrong with
// 512-byte clusters (129, 259 MiB) and with 4 KiB ones (505-507 MiB, a
// run of three), and the change of cluster size at 260 MiB.
func TestSDImageValidByDosfstools(t *testing.T) {
	t.Parallel()
	const MiB = 1 << 20
	for _, c := range []struct {
		name  string
		total int // bytes of files; the partition is twice that, in whole MiB, at least 64 MiB
	}{
		{"minimum", 4 << 10},
		{"above-minimum", 32*MiB + 1},
		{"129MiB", 64*MiB + MiB/2},
		{"259MiB", 129*MiB + MiB/2},
		{"260MiB-last-512B-clusters", 130 * MiB},
		{"261MiB-4KiB-clusters", 130*MiB + 1},
		{"505MiB", 252*MiB + MiB/2},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewChaCha8([32]byte{byte(c.total), byte(c.total >> 8), byte(c.total >> 16), byte(c.total >> 24)}))
			kernel := make([]byte, c.total-1000-1)
			for i := 0; i < len(kernel); i += 4096 {
				// One random word a block is enough to tell any block from another.
				kernel[i] = byte(rng.Uint32())
				kernel[i+min(8, len(kernel)-i-1)] = byte(i >> 12)
			}
			cfg := bytes.Repeat([]byte("x"), 1000)
			boot := []linker.BootFile{{Name: "kernel8.img", Data: kernel}, {Name: "config.txt", Data: cfg}, {Name: "cmdline.txt", Data: []byte("\n")}}
			img := filepath.Join(t.TempDir(), "sdcard.img")
			if err := linker.WriteSDImage(img, boot, ""); err != nil {
				t.Fatal(err)
			}
			files := map[string][]byte{}
			for _, f := range boot {
				files[f.Name] = f.Data
			}
			checkSDImage(t, img, files)
		})
	}
}
