//go:build !arm64

package ext4fs

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// TestJournalRecovery mounts volumes whose journals debugfs left with
// committed transactions (needs_recovery set): a new copy of a/f4096's
// first block, and one of a/f70000's first block that a later transaction
// revokes. The mount replays them: the file reads the new bytes, the
// revoked block is untouched, the volume is clean for e2fsck -fn, and
// its home blocks and journal superblock are what e2fsck's own replay
// of the same image makes. A read-only device is refused (EROFS) unless
// mounted noload, which reads the volume as the disk has it.
func TestJournalRecovery(t *testing.T) {
	src := sourceTree(t)
	for _, bs := range []int{4096, 1024} {
		t.Run(fmt.Sprint(bs), func(t *testing.T) {
			d := t.TempDir()
			img := mkfs(t, src, bs)
			h1, h2 := bmap(t, img, "a/f4096"), bmap(t, img, "a/f70000")
			fresh := bytes.Repeat([]byte("journal!"), bs/8)
			other := bytes.Repeat([]byte("revoked!"), bs/8)
			os.WriteFile(filepath.Join(d, "fresh"), fresh, 0o644)
			os.WriteFile(filepath.Join(d, "other"), other, 0o644)
			cmds := fmt.Sprintf("jo -c\njw -b %d %s\njc\njo\njw -b %d %s\njc\njo\njw -r %d\njc\n",
				h1, filepath.Join(d, "fresh"), h2, filepath.Join(d, "other"), h2)
			os.WriteFile(filepath.Join(d, "cmds"), []byte(cmds), 0o644)
			if out, err := exec.Command("debugfs", "-w", "-f", filepath.Join(d, "cmds"), img).CombinedOutput(); err != nil {
				t.Fatalf("debugfs: %v\n%s", err, out)
			}
			before, _ := os.ReadFile(img)

			// A read-only device: refused, unless noload.
			setup(t)
			var said string
			Say = func(level uint8, line []byte) { said = string(line); t.Logf("log %d: %s", level, line) }
			major, minor, _ := diskOf(t, img, true)
			if _, e := Mount(major, minor, true, false); e != unix.EROFS || !strings.Contains(said, "noload") {
				t.Errorf("read-only device: %v %q, want EROFS and a hint at noload", e, said)
			}
			s, e := Mount(major, minor, true, true)
			if e != 0 {
				t.Fatalf("noload: %v", e)
			}
			if got := fileBytes(t, s, "a", "f4096"); bytes.Equal(got[:bs], fresh) {
				t.Errorf("noload read the journal's copy")
			}
			fs.FreeSuper(s)

			setup(t)
			major, minor, disk := diskOf(t, img, false)
			s, e = Mount(major, minor, true, false)
			if e != 0 {
				t.Fatalf("mount: %v", e)
			}
			if got := fileBytes(t, s, "a", "f4096"); !bytes.Equal(got[:bs], fresh) {
				t.Errorf("a/f4096 after replay: %.16q, want %.16q", got, fresh)
			}
			if got := fileBytes(t, s, "a", "f70000"); !bytes.Equal(got[:bs], before[h2*uint64(bs):(h2+1)*uint64(bs)]) {
				t.Errorf("a revoked block was replayed: %.16q", got)
			}
			if flushes < 3 {
				t.Errorf("%d flushes, want one after each step (3)", flushes)
			}
			fs.FreeSuper(s)
			mine := filepath.Join(d, "mine.img")
			os.WriteFile(mine, *disk, 0o644)
			if out, err := exec.Command("e2fsck", "-fn", mine).CombinedOutput(); err != nil {
				t.Errorf("e2fsck -fn after the replay: %v\n%s", err, out)
			}
			// e2fsck's own replay of the same image.
			ref := filepath.Join(d, "ref.img")
			os.WriteFile(ref, before, 0o644)
			exec.Command("e2fsck", "-fy", ref).Run()
			theirs, _ := os.ReadFile(ref)
			for _, blk := range []uint64{h1, h2} {
				if !bytes.Equal(blockOf(*disk, bs, blk), blockOf(theirs, bs, blk)) {
					t.Errorf("home block %d differs from e2fsck's replay", blk)
				}
			}
			jm, jt := journalSuper(t, mine), journalSuper(t, ref)
			seq := binary.BigEndian.Uint32
			if seq(jm[24:]) != seq(jt[24:]) || seq(jm[28:]) != 0 || seq(jt[28:]) != 0 {
				t.Errorf("journal superblock: sequence %d start %d; e2fsck's: %d %d",
					seq(jm[24:]), seq(jm[28:]), seq(jt[24:]), seq(jt[28:]))
			}

			// Clean now: a second mount replays nothing.
			setup(t)
			major, minor, _ = diskOf(t, mine, true)
			if s, e = Mount(major, minor, true, false); e != 0 {
				t.Fatalf("mount after the replay: %v", e)
			}
			if got := fileBytes(t, s, "a", "f4096"); !bytes.Equal(got[:bs], fresh) {
				t.Errorf("a/f4096 on the next mount: %.16q", got)
			}
		})
	}
}

// bmap is the first block of path in img (debugfs's bmap).
func bmap(t *testing.T, img, path string) uint64 {
	t.Helper()
	out, err := exec.Command("debugfs", "-R", "bmap "+path+" 0", img).Output()
	if err != nil {
		t.Fatalf("debugfs bmap %s: %v", path, err)
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(out)), 10, 64)
	if err != nil || n == 0 {
		t.Fatalf("debugfs bmap %s: %q", path, out)
	}
	return n
}

func blockOf(img []byte, bs int, n uint64) []byte {
	return img[n*uint64(bs) : (n+1)*uint64(bs)]
}

// journalSuper is the journal superblock of img (debugfs's dump of
// the journal inode's first block).
func journalSuper(t *testing.T, img string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "journal")
	if b, err := exec.Command("debugfs", "-R", "dump <8> "+out, img).CombinedOutput(); err != nil {
		t.Fatalf("debugfs dump <8>: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil || len(b) < 1024 {
		t.Fatalf("the journal: %v (%d bytes)", err, len(b))
	}
	return b[:1024]
}

// fileBytes reads path (names from the root) of instance s.
func fileBytes(t *testing.T, s uint8, names ...string) []byte {
	t.Helper()
	i := fs.Supers[s].Root
	for _, n := range names {
		if e := fs.Fill(i); e != 0 {
			t.Fatalf("fill: %v", e)
		}
		if i = fs.LookupIn(i, []byte(n)); i < 0 {
			t.Fatalf("%s: not found", n)
		}
	}
	var got []byte
	var zero [mm.PageSize]byte
	for off := int64(0); off < fs.Inodes[i].Size; {
		b, e := fs.Chunk(&fs.Inodes[i], off, &zero)
		if e != 0 || len(b) == 0 {
			t.Fatalf("read at %d: %v", off, e)
		}
		got = append(got, b...)
		off += int64(len(b))
	}
	return got
}
