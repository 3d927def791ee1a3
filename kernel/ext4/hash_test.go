package ext4

import (
	"fmt"
	"strings"
	"testing"
)

// TestDirHash compares DirHash with debugfs' dx_hash for each hash and a
// seed, on names that cross the 16- and 32-byte chunks.
func TestDirHash(t *testing.T) {
	needE2fsprogs(t)
	im := makeImage(t, &tree{dir: t.TempDir()}, 1024, "8M")
	seed := [4]uint32{0x11111111, 0x33332222, 0x55554444, 0x55555555}
	for _, name := range []string{"a", "hello", "lost+found", strings.Repeat("x", 17), strings.Repeat("yz", 40), "entry-with-a-longish-name-00042"} {
		for v, alg := range []string{"legacy", "half_md4", "tea"} {
			out := debugfs(t, im.path, false, fmt.Sprintf("dx_hash -h %s -s 11111111-2222-3333-4444-555555555555 %s", alg, name))
			var wh, wm uint32
			if _, err := fmt.Sscanf(out[strings.Index(out, " is "):], " is 0x%x (minor 0x%x)", &wh, &wm); err != nil {
				t.Fatalf("dx_hash output %q: %v", out, err)
			}
			h, m, e := DirHash([]byte(name), uint8(v), &seed)
			if e != OK || h != wh || m != wm {
				t.Errorf("%s %q: %#x/%#x, debugfs %#x/%#x", alg, name, h, m, wh, wm)
			}
		}
	}
}

// countingSource counts the blocks a lookup reads.
type countingSource struct {
	memSource
	n int
}

func (c *countingSource) Block(n uint64) ([]byte, Errno) {
	c.n++
	return c.memSource.Block(n)
}

// TestDxLookup finds every name of the htree directory through the hash,
// reading a handful of blocks instead of all of them.
func TestDxLookup(t *testing.T) {
	needE2fsprogs(t)
	tr := buildTree(t, false)
	for _, opts := range []string{"metadata_csum", "^metadata_csum,^uninit_bg"} {
		t.Run(opts, func(t *testing.T) { dxLookupCase(t, tr, opts) })
	}
}

func dxLookupCase(t *testing.T, tr *tree, opts string) {
	im := makeImage(t, tr, 1024, "64M", "-O", opts)
	dir := im.resolve(t, "/"+tr.manyDir, false)
	names := im.list(t, dir)
	cs := &countingSource{memSource: *im.r.Src.(*memSource)}
	im.r.Src = cs
	most := 0
	for name, ino := range names {
		cs.n = 0
		got, e := im.r.Lookup(dir, []byte(name))
		if e != OK || got != ino {
			t.Fatalf("%q: %d %v want %d", name, got, e, ino)
		}
		most = max(most, cs.n)
	}
	blocks := int(dir.Size / uint64(im.r.BlockSize))
	t.Logf("%d names in %d blocks: a lookup read at most %d blocks", len(names), blocks, most)
	if most > 12 {
		t.Errorf("a lookup read %d blocks: not through the index", most)
	}
	cs.n = 0
	if _, e := im.r.Lookup(dir, []byte("absent")); e != ENOENT || cs.n > 12 {
		t.Errorf("absent name: %v after %d blocks", e, cs.n)
	}
}
