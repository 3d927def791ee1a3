//go:build !arm64

package ext4fs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gometal/gometal/kernel/fs"
)

// A file with names in two directories is one inode of the tree, however
// the directories are read (fs/storedhash.go): written through one name
// it reads back the same through the other, also after the first
// directory's entries were dropped and read again, and the image stays
// e2fsck-clean with one inode of two links.
func TestHardLinkOneInode(t *testing.T) {
	src := t.TempDir()
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(src, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(src, "a/one"), pattern(9000, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(src, "a/one"), filepath.Join(src, "b/two")); err != nil {
		t.Fatal(err)
	}
	m := mountRW(t, mkfs(t, src, 4096))
	lookup := func(path string) int32 {
		t.Helper()
		var w fs.Walk
		i, e := fs.Lookup(&w, fs.RootPath(), []byte(path), 0)
		if e != 0 {
			t.Fatalf("%s: %v", path, e)
		}
		return i
	}
	one, two := lookup("/mnt/a/one"), lookup("/mnt/b/two")
	if one != two {
		t.Fatalf("a/one is tree inode %d, b/two %d: one file, two inodes", one, two)
	}
	want := pattern(20000, 2)
	m.writeAt("/mnt/a/one", 0, want)
	if got := fileBytes(t, m.s, "b", "two"); !bytes.Equal(got, want) {
		t.Errorf("b/two after a write through a/one: %d bytes, want the %d written", len(got), len(want))
	}
	// a's entries dropped and read again: its name finds the inode b's
	// name holds, with what was written.
	fs.HostForget(lookup("/mnt/a"))
	if again := lookup("/mnt/a/one"); again != two {
		t.Errorf("a/one read again is tree inode %d, b/two %d", again, two)
	}
	if got := fileBytes(t, m.s, "a", "one"); !bytes.Equal(got, want) {
		t.Errorf("a/one read again: %d bytes, want the %d written", len(got), len(want))
	}
	m.errno("unlink a/one", fs.Unlink(m.walk("/mnt/a/one"), false))
	if got := fileBytes(t, m.s, "b", "two"); !bytes.Equal(got, want) {
		t.Errorf("b/two after a/one's unlink: %d bytes, want %d", len(got), len(want))
	}
	SyncAll()
	img := m.image() // e2fsck -fn clean
	if out := debugfs(t, img, "stat /b/two"); !bytes.Contains([]byte(out), []byte("Links: 1")) {
		t.Errorf("debugfs stat /b/two: want Links: 1\n%s", out)
	}
}
