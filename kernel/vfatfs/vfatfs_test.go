//go:build !arm64

package vfatfs

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	"github.com/gometal/gometal/kernel/bcache"
	"github.com/gometal/gometal/kernel/block"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// The mount on the host: dosfstools' mkfs.fat makes FAT16 and FAT32
// images, mtools' mcopy fills them from a tree (long names, a
// subdirectory, an empty file, files over many clusters), and the tree
// kernel/fs shows is compared with the one they were made from.

func tool(t *testing.T, name string) string {
	t.Helper()
	for _, p := range []string{name, "/sbin/" + name, "/usr/sbin/" + name} {
		if q, err := exec.LookPath(p); err == nil {
			return q
		}
	}
	t.Skipf("TestMount: %s missing: make deps installs dosfstools and mtools", name)
	return ""
}

func tree(t *testing.T) (string, map[string][]byte) {
	d := t.TempDir()
	files := map[string][]byte{
		"config.txt":                         []byte("arm_64bit=1\n"),
		"kernel8.img":                        pattern(300000, 1),
		"A Long Name With Spaces.data":       pattern(5000, 2),
		"sub/nested-file-with-long-name.bin": pattern(70000, 3),
		"sub/UPPER.TXT":                      []byte("upper\n"),
		"empty":                              nil,
		"ünïcode name.txt":                   []byte("utf-8 name\n"), // a long name: UCS-2
	}
	os.Mkdir(filepath.Join(d, "sub"), 0o755)
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(d, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d, files
}

func pattern(n, seed int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + seed + i>>10)
	}
	return b
}

func image(t *testing.T, src string, fatBits int) string {
	img := filepath.Join(t.TempDir(), "fat.img")
	size := "64M"
	if out, err := exec.Command(tool(t, "mkfs.fat"), "-F", fmt.Sprint(fatBits), "-C", img, "65536").CombinedOutput(); err != nil {
		t.Fatalf("mkfs.fat: %v\n%s (%s)", err, out, size)
	}
	ents, _ := os.ReadDir(src)
	for _, e := range ents {
		cmd := exec.Command(tool(t, "mcopy"), "-s", "-i", img, filepath.Join(src, e.Name()), "::/")
		cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8") // names are UTF-8 on the host
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("mcopy %s: %v\n%s", e.Name(), err, out)
		}
	}
	return img
}

func mountImage(t *testing.T, img string) uint8 {
	usermem.HostReset(4096, 16)
	vfs.Reset()
	if !fs.HostReset(64 << 20) {
		t.Fatal("fs init")
	}
	vols = [MaxVolumes]volume{}
	bySuper = [fs.MaxSupers]int8{}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	block.NDisks = 0
	d, ok := block.AddVirtio(uint64(len(b))/512, true, true, 0)
	if !ok {
		t.Fatal("no disk slot")
	}
	bcache.HostDisk(b, true)
	if !Is(d.Major, d.First) {
		t.Fatal("Is: not a FAT")
	}
	if _, e := Mount(d.Major, d.First, false); e != unix.EROFS {
		t.Errorf("read-write mount: %v, want EROFS", e)
	}
	s, e := Mount(d.Major, d.First, true)
	if e != 0 {
		t.Fatalf("mount: %v", e)
	}
	return s
}

// read lists instance s's files (path to bytes), walking its tree.
func read(t *testing.T, dir int32, prefix string, got map[string][]byte) {
	if e := fs.Fill(dir); e != 0 {
		t.Fatalf("fill %s: %v", prefix, e)
	}
	for pos := int64(2); ; {
		i, name, next, ok := fs.Entry(dir, pos)
		if !ok {
			break
		}
		pos = next
		nm := string(name)
		if fs.Inodes[i].IsDir() {
			read(t, i, prefix+nm+"/", got)
			continue
		}
		var b []byte
		var zero [mm.PageSize]byte
		for off := int64(0); off < fs.Inodes[i].Size; {
			c, e := fs.Chunk(&fs.Inodes[i], off, &zero)
			if e != 0 || len(c) == 0 {
				t.Fatalf("read %s%s at %d: %v", prefix, nm, off, e)
			}
			b = append(b, c...)
			off += int64(len(c))
		}
		got[prefix+nm] = b
	}
}

func TestMount(t *testing.T) {
	src, files := tree(t)
	for _, bits := range []int{16, 32} {
		t.Run(fmt.Sprintf("FAT%d", bits), func(t *testing.T) {
			s := mountImage(t, image(t, src, bits))
			got := map[string][]byte{}
			read(t, fs.Supers[s].Root, "", got)
			var names []string
			for n := range got {
				names = append(names, n)
			}
			sort.Strings(names)
			if len(got) != len(files) {
				t.Errorf("files %q, want %d", names, len(files))
			}
			for n, want := range files {
				if b, ok := got[n]; !ok || !bytes.Equal(b, want) {
					t.Errorf("%s: %d bytes (there: %v), want %d", n, len(b), ok, len(want))
				}
			}
			var st unix.Statfs_t
			fs.Statfs(fs.Supers[s].Root, &st)
			if st.Type != superMagic || st.Flags&unix.ST_RDONLY == 0 {
				t.Errorf("statfs: %+v", st)
			}
			fs.FreeSuper(s)
		})
	}
}
