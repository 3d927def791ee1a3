package ext4

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// TestJournalCommit writes transactions into a fresh image's journal
// with the commit side (descriptors, escaped copies, commit blocks, the
// journal superblock's log start; needs_recovery on the volume) and has
// e2fsck replay them: every home block must then hold what was logged,
// unescaped, and the volume check clean. The first transaction has more
// blocks than one descriptor holds, and one copy starts with the jbd2
// magic; our own planner must find the same writes. With the second
// transaction's commit block torn, e2fsck replays the first alone. One
// more starts the log 10 blocks before the ring's end, so the first
// transaction wraps around it.
func TestJournalCommit(t *testing.T) {
	needE2fsprogs(t)
	for _, bs := range []int{1024, 4096} {
		for _, c := range []struct{ torn, wrap bool }{{false, false}, {true, false}, {false, true}} {
			t.Run(fmt.Sprintf("%dk-torn=%v-wrap=%v", bs/1024, c.torn, c.wrap), func(t *testing.T) {
				commitCase(t, bs, c.torn, c.wrap)
			})
		}
	}
}

func commitCase(t *testing.T, bs int, torn, wrap bool) {
	im := makeImage(t, &tree{dir: t.TempDir()}, bs, "32M")
	j, src := openJournal(t, im)
	if j.Start != 0 {
		t.Fatalf("a fresh journal: %+v", j)
	}
	jblock := func(n uint32) []byte {
		b, e := src.Block(uint64(n))
		if e != OK {
			t.Fatal(e)
		}
		return b // the image's own bytes: writing it writes the image
	}
	// As ext4's mount: checksums v3 (metadata_csum) and 64-bit tags.
	if !j.UseFeatures(jblock(0), im.r.RoCompat&RoCompatMetadataCsum != 0, im.r.Incompat&Incompat64bit != 0) ||
		j.Incompat&JbdIncompatCsumV3 == 0 || j.Incompat&JbdIncompat64bit == 0 {
		t.Fatalf("journal features: %+v", j)
	}
	const home = 5000
	first := j.Sequence
	at := j.First
	if wrap {
		at = j.MaxLen - 10
	}
	start := at
	want := map[uint64][]byte{}
	// logTx lays out transaction seq with n blocks homed from home0;
	// it returns the commit block's log block.
	logTx := func(seq uint32, home0 uint64, n int) uint32 {
		per := j.TagsPerBlock()
		for done := 0; done < n; {
			k := min(per, n-done)
			desc := at
			at = j.NextLogBlock(at)
			tags := make([]JournalTag, k)
			for i := 0; i < k; i++ {
				h := home0 + uint64(done+i)
				d := pattern(int(h)+int(seq), bs)
				if done+i == 1 {
					binary.BigEndian.PutUint32(d, jbdMagic) // escaped in the log
				}
				want[h] = append([]byte(nil), d...)
				tags[i] = j.LogCopy(d, seq, h)
				copy(jblock(at), d)
				at = j.NextLogBlock(at)
			}
			j.PutDescriptor(jblock(desc), seq, tags)
			done += k
		}
		c := at
		j.PutCommit(jblock(c), seq, 1700000000, 5)
		at = j.NextLogBlock(at)
		return c
	}
	n1 := j.TagsPerBlock() + 3
	logTx(first, home, n1)
	commit2 := logTx(first+1, home+uint64(n1), 4)
	jsb := jblock(0)
	j.MarkLog(jsb, start, first)
	SetRecover(im.img[SuperOffset : SuperOffset+SuperSize])
	if torn {
		jblock(commit2)[jbdCommitSecOff] ^= 0xFF // its checksum no longer matches
		for h := home + uint64(n1); h < home+uint64(n1)+4; h++ {
			want[h] = append([]byte(nil), im.img[h*uint64(bs):(h+1)*uint64(bs)]...) // not replayed
		}
	}

	// Our planner reads the log as jbd2 does.
	var j2 Journal
	if e := ParseJournal(jsb, uint32(bs), uint64(j.MaxLen), &j2); e != OK {
		t.Fatalf("the journal superblock after MarkLog: %v", e)
	}
	var writes [512]JournalWrite
	var revokes [4]JournalRevoke
	var p ReplayPlan
	if e := j2.PlanReplay(src, writes[:], revokes[:], &p); e != OK {
		t.Fatalf("plan: %v", e)
	}
	wantN, wantEnd := n1+4, first+2
	if torn {
		wantN, wantEnd = n1, first+1
	}
	if len(p.Writes) != wantN || p.EndSeq != wantEnd || p.BadData != 0 || !p.Writes[1].Escaped {
		t.Errorf("plan: %d writes to seq %d (%d bad), second escaped %v; want %d to %d",
			len(p.Writes), p.EndSeq, p.BadData, len(p.Writes) > 1 && p.Writes[1].Escaped, wantN, wantEnd)
	}

	if err := os.WriteFile(im.path, im.img, 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command(tool("e2fsck"), "-fy", im.path).CombinedOutput() // replays: status 1
	got, err := os.ReadFile(im.path)
	if err != nil {
		t.Fatal(err)
	}
	for h, w := range want {
		if !bytes.Equal(got[h*uint64(bs):(h+1)*uint64(bs)], w) {
			t.Errorf("home block %d after e2fsck's replay differs from what was logged\n%s", h, out)
			break
		}
	}
	if out, err := exec.Command(tool("e2fsck"), "-fn", im.path).CombinedOutput(); err != nil {
		t.Errorf("e2fsck -fn after the replay: %v\n%s", err, out)
	}
}
