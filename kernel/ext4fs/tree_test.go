//go:build !arm64

package ext4fs

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"github.com/gometal/gometal/kernel/fs"
)

// Deep extent trees: a sparse file of one-block extents, written in
// order (appends: full nodes) or at random (splits in the middle), grows
// the tree to depth 2 and 3 on 1 KiB blocks (a leaf holds 84 extents,
// the root 4 entries); then truncated in steps back to nothing. After
// each stage e2fsck -fn is clean, debugfs shows the depth, and a fresh
// mount reads every byte as written.
func TestDeepTree(t *testing.T) {
	for _, c := range []struct {
		name    string
		extents int
		random  bool
		depth   int
		size    string
	}{
		{"random-2", 3000, true, 2, "16M"},
		{"append-3", 30000, false, 3, "48M"},
	} {
		t.Run(c.name, func(t *testing.T) {
			img := mkfsSize(t, sourceTree(t), 1024, c.size)
			m := mountRW(t, img)
			const path = "/mnt/deep"
			m.create(path, 0o100644)
			order := make([]int, c.extents)
			for i := range order {
				order[i] = i
			}
			if c.random {
				rng := rand.New(rand.NewPCG(uint64(c.extents), 3))
				rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			}
			// Extent i is logical block 2i: a hole between every two, so
			// no two ever merge.
			model := make([]byte, 2*1024*c.extents-1024)
			for _, i := range order {
				data := pattern(1024, i)
				m.writeAt(path, int64(2*i*1024), data)
				copy(model[2*i*1024:], data)
			}
			// check commits, checks the image and reads it back in a
			// fresh mount (the host's kernel/fs starts over), then mounts
			// it read-write again for the next stage.
			check := func(stage string, wantDepth int) {
				t.Helper()
				SyncAll()
				out := m.image()
				if d := treeDepth(t, out, "deep"); d != wantDepth {
					t.Errorf("%s: depth %d, want %d", stage, d, wantDepth)
				}
				got := remountRead(t, out, "deep")
				if !bytes.Equal(got, model) {
					t.Fatalf("%s: %d bytes read, want %d (equal prefix %d)", stage, len(got), len(model), prefix(got, model))
				}
				m = mountRW(t, out)
			}
			check("written", c.depth)
			// Truncate in steps back to nothing, at odd places.
			for _, frac := range []int{7, 5, 3, 1, 0} {
				size := len(model) * frac / 8 &^ 511
				if frac > 0 {
					size += 300
				}
				var w fs.Walk
				i, e := fs.Lookup(&w, fs.RootPath(), []byte(path), 0)
				m.errno("lookup", e)
				m.errno(fmt.Sprintf("truncate to %d", size), fs.Truncate(&fs.Inodes[i], int64(size)))
				model = model[:size]
				switch frac {
				case 3:
					check(fmt.Sprintf("truncated to %d", size), c.depth) // the depth stays, as Linux's
				case 0:
					check("truncated to 0", 0)
				}
			}
		})
	}
}

// treeDepth is the depth of name's extent tree as debugfs's "ex" shows
// it (its "Level" column: "0/ 3").
func treeDepth(t *testing.T, img, name string) int {
	t.Helper()
	out := debugfs(t, img, "ex "+name)
	mm := regexp.MustCompile(`(?m)^\s*\d+/\s*(\d+)`).FindStringSubmatch(out)
	if mm == nil {
		return 0 // no index levels: the root is a leaf (or empty)
	}
	d, _ := strconv.Atoi(mm[1])
	return d
}

// remountRead mounts img read-only afresh and reads name from its root.
func remountRead(t *testing.T, img, name string) []byte {
	t.Helper()
	setup(t)
	major, minor, _ := diskOf(t, img, true)
	s, e := Mount(major, minor, true, false)
	if e != 0 {
		t.Fatalf("mount again: %v", e)
	}
	return fileBytes(t, s, name)
}
