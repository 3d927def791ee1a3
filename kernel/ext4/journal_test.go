package ext4

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// journalSource serves the journal inode's logical blocks.
type journalSource struct {
	r  *Reader
	in *Inode
}

func (s *journalSource) Block(n uint64) ([]byte, Errno) {
	if n >= maxFileBlocks {
		return nil, EUCLEAN
	}
	var m Mapping
	if e := s.r.MapBlock(s.in, uint32(n), &m); e != OK {
		return nil, e
	}
	if m.Hole || m.Unwritten {
		return nil, EUCLEAN
	}
	return s.r.Src.Block(m.Phys)
}

func openJournal(t *testing.T, im *image) (*Journal, *journalSource) {
	t.Helper()
	var jin Inode
	if e := im.r.Inode(im.r.JournalInum, &jin); e != OK {
		t.Fatalf("journal inode: %v", e)
	}
	src := &journalSource{r: &im.r, in: &jin}
	b, e := src.Block(0)
	if e != OK {
		t.Fatal(e)
	}
	var j Journal
	if e := ParseJournal(b, im.r.BlockSize, jin.Size/uint64(im.r.BlockSize), &j); e != OK {
		t.Fatalf("journal superblock: %v", e)
	}
	return &j, src
}

// TestJournalReplayPlan writes three transactions into a fresh image's
// journal with debugfs (jo -c: checksum v3; a revoke; a block that starts
// with the jbd2 magic, so it is escaped), plans the replay, checks it
// against logdump's layout, applies it to a copy and compares the home
// blocks with what e2fsck's own replay wrote. Then again with the last
// commit block torn: that transaction is dropped.
func TestJournalReplayPlan(t *testing.T) {
	needE2fsprogs(t)
	for _, bs := range []int{1024, 4096} {
		for _, torn := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dk-torn=%v", bs/1024, torn), func(t *testing.T) {
				journalCase(t, bs, torn)
			})
		}
	}
}

func journalCase(t *testing.T, bs int, torn bool) {
	d := t.TempDir()
	im := makeImage(t, &tree{dir: d}, bs, "32M")
	data := pattern(7, 3*bs)
	binary.BigEndian.PutUint32(data[0:], jbdMagic) // escaped when logged
	df := filepath.Join(d, "jdata")
	os.WriteFile(df, data, 0o644)
	cmds := filepath.Join(d, "cmds")
	os.WriteFile(cmds, []byte(fmt.Sprintf(`jo -c
jw -b 5000,5001,5002 %s
jc
jo
jw -r 5001
jw -b 5002 %s
jc
`, df, df)), 0o644)
	run(t, "debugfs", "-w", "-f", cmds, im.path)
	im = loadImage(t, im.path)
	if im.r.Incompat&IncompatRecover == 0 {
		t.Fatalf("debugfs left no needs_recovery")
	}
	j, src := openJournal(t, im)
	if j.Incompat&JbdIncompatCsumV3 == 0 || j.Start == 0 {
		t.Fatalf("journal: %+v", j)
	}
	// Journal blocks as logdump shows them: 1 descriptor, 2-4 data, 5
	// commit, 6 revoke, 7 commit, 8 descriptor, 9 data, 10 commit.
	if torn {
		b, _ := src.Block(10)
		b[0] ^= 0xFF
	}
	var writes [16]JournalWrite
	var revokes [16]JournalRevoke
	var p ReplayPlan
	if e := j.PlanReplay(src, writes[:], revokes[:], &p); e != OK {
		t.Fatalf("plan: %v", e)
	}
	want := []JournalWrite{{5000, 2, 1, true}, {5002, 9, 3, true}}
	wantEnd := uint32(4)
	if torn {
		want = []JournalWrite{{5000, 2, 1, true}, {5002, 4, 1, false}}
		wantEnd = 3
	}
	if p.FirstSeq != 1 || p.EndSeq != wantEnd || fmt.Sprint(p.Writes) != fmt.Sprint(want) ||
		len(p.Revokes) != 1 || p.Revokes[0] != (JournalRevoke{5001, 2}) || p.BadData != 0 {
		t.Fatalf("plan %+v, want writes %v end %d", p, want, wantEnd)
	}
	// Apply it to a copy; e2fsck replays the original.
	mine := append([]byte(nil), im.img...)
	for _, w := range p.Writes {
		b, e := src.Block(uint64(w.JBlock))
		if e != OK {
			t.Fatal(e)
		}
		dst := mine[w.Home*uint64(bs) : (w.Home+1)*uint64(bs)]
		copy(dst, b)
		if w.Escaped {
			Unescape(dst)
		}
	}
	if torn {
		os.WriteFile(im.path, im.img, 0o644) // e2fsck sees the torn commit too
	}
	cmd := exec.Command(tool("e2fsck"), "-fy", im.path)
	cmd.CombinedOutput() // replays; exit status 1 or more: it changed things
	ref, err := os.ReadFile(im.path)
	if err != nil {
		t.Fatal(err)
	}
	for _, blk := range []uint64{5000, 5001, 5002} {
		a, b := mine[blk*uint64(bs):(blk+1)*uint64(bs)], ref[blk*uint64(bs):(blk+1)*uint64(bs)]
		if !bytes.Equal(a, b) {
			t.Errorf("home block %d differs from e2fsck's replay", blk)
		}
	}
}

func FuzzJournal(f *testing.F) {
	// A v2 superblock then blocks of the log; checksums off, so mutations
	// go deep: descriptor, data, revoke, commit.
	const bs = 1024
	img := make([]byte, 8*bs)
	be := binary.BigEndian
	hdr := func(b []byte, kind, seq uint32) {
		be.PutUint32(b[0:], jbdMagic)
		be.PutUint32(b[4:], kind)
		be.PutUint32(b[8:], seq)
	}
	hdr(img, jbdSuperV2, 0)
	be.PutUint32(img[12:], bs)
	be.PutUint32(img[16:], 8)
	be.PutUint32(img[20:], 1)
	be.PutUint32(img[24:], 1)
	be.PutUint32(img[28:], 1)
	be.PutUint32(img[40:], JbdIncompatRevoke|JbdIncompat64bit)
	hdr(img[bs:], jbdDescriptor, 1)
	be.PutUint32(img[bs+12:], 100)
	be.PutUint16(img[bs+12+6:], jbdFlagLastTag)
	hdr(img[3*bs:], jbdRevoke, 1)
	be.PutUint32(img[3*bs+12:], 24)
	be.PutUint64(img[3*bs+16:], 100)
	hdr(img[4*bs:], jbdCommit, 1)
	f.Add(img)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2*bs {
			return
		}
		src := &memSource{img: data, bs: bs}
		var j Journal
		if ParseJournal(data, bs, uint64(len(data)/bs), &j) != OK {
			return
		}
		var writes [8]JournalWrite
		var revokes [8]JournalRevoke
		var p ReplayPlan
		j.PlanReplay(src, writes[:], revokes[:], &p)
		for _, w := range p.Writes {
			if w.JBlock < j.First || w.JBlock >= j.MaxLen {
				t.Fatalf("write from journal block %d outside [%d, %d)", w.JBlock, j.First, j.MaxLen)
			}
		}
	})
}
