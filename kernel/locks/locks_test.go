package locks

import (
	"testing"

	"golang.org/x/sys/unix"
)

func ranges(inode int32, owner uint64) [][3]int64 {
	var out [][3]int64
	for i := range table {
		if l := &table[i]; l.Used && l.Inode == inode && l.Owner == owner {
			out = append(out, [3]int64{int64(l.Type), l.Start, l.End})
		}
	}
	return out
}

func TestSplitMergeConflict(t *testing.T) {
	Reset()
	const a, b = 1, 2
	if e := Set(7, Record, a, 10, unix.F_WRLCK, 0, 99); e != 0 {
		t.Fatal(e)
	}
	// Unlocking the middle splits it.
	Set(7, Record, a, 10, unix.F_UNLCK, 40, 59)
	if got := ranges(7, a); len(got) != 2 {
		t.Fatalf("after the split: %v", got)
	}
	// Another owner may lock the hole, not the rest.
	if e := Set(7, Record, b, 11, unix.F_RDLCK, 40, 59); e != 0 {
		t.Errorf("the hole: %v", e)
	}
	if e := Set(7, Record, b, 11, unix.F_RDLCK, 30, 45); e != unix.EAGAIN {
		t.Errorf("over a write lock: %v", e)
	}
	if l := Conflict(7, Record, b, unix.F_RDLCK, 0, 5); l == nil || l.Pid != 10 || l.Start != 0 || l.End != 39 {
		t.Errorf("conflict: %+v", l)
	}
	// Read locks share; a flock is another class.
	if e := Set(7, Record, a, 10, unix.F_RDLCK, 45, 50); e != 0 {
		t.Errorf("two read locks: %v", e)
	}
	if e := Set(7, Flock, b, 11, unix.F_WRLCK, 0, EOF); e != 0 {
		t.Errorf("flock beside record locks: %v", e)
	}
	// Re-locking the whole as one type merges everything the owner had.
	Set(7, Record, b, 11, unix.F_UNLCK, 0, EOF)
	Set(7, Record, a, 10, unix.F_WRLCK, 0, EOF)
	if got := ranges(7, a); len(got) != 1 || got[0] != [3]int64{unix.F_WRLCK, 0, EOF} {
		t.Errorf("merged: %v", got)
	}
	if !Release(-1, a) || len(ranges(7, a)) != 0 {
		t.Error("release")
	}
}

func TestDeadlock(t *testing.T) {
	Reset()
	Waiting(1, 2)
	if !WouldDeadlock(2, 1) || WouldDeadlock(3, 1) {
		t.Error("cycle 1->2->1 not seen, or 3 blamed")
	}
	Waiting(1, 0)
	if WouldDeadlock(2, 1) {
		t.Error("a finished wait still counted")
	}
}

func TestFullTableChangesNothing(t *testing.T) {
	Reset()
	for i := 0; i < MaxLocks; i++ {
		if e := Set(int32(i), Record, 1, 1, unix.F_WRLCK, 0, 9); e != 0 {
			t.Fatal(i, e)
		}
	}
	if e := Set(0, Record, 1, 1, unix.F_UNLCK, 3, 4); e != unix.ENOLCK {
		t.Errorf("a split with no room: %v", e)
	}
	if got := ranges(0, 1); len(got) != 1 || got[0][1] != 0 || got[0][2] != 9 {
		t.Errorf("the failed split changed the lock: %v", got)
	}
}
