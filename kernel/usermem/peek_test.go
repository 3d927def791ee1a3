//go:build !arm64

package usermem

import (
	"testing"

	"github.com/gometal/gometal/kernel/mm"
)

// Peek reads only what is mapped now and never faults a page in: what
// the lock-free FUTEX_WAIT relies on to leave the address space alone.
func TestPeekReadsOnlyPresentPages(t *testing.T) {
	base := HostReset(64, 4)
	used := mm.Pages.Used()
	if _, ok := PeekU32(base); ok {
		t.Fatal("PeekU32 of a page never touched: ok, want a miss")
	}
	if mm.Pages.Used() != used {
		t.Fatalf("PeekU32 faulted a page in: %d pages used, want %d", mm.Pages.Used(), used)
	}
	// The second page first: its fault maps the pages after it
	// (mm's fault-around), never the one before.
	if !WriteU32(base+mm.PageSize, 7) { // faults the page in, as the app would
		t.Fatal("WriteU32 failed")
	}
	// Eight bytes across from the first page, which has none yet.
	if _, ok := PeekU64(base + mm.PageSize - 4); ok {
		t.Fatal("PeekU64 across from an absent page: ok, want a miss")
	}
	if !WriteU32(base+8, 0xfeedface) {
		t.Fatal("WriteU32 failed")
	}
	if v, ok := PeekU32(base + 8); !ok || v != 0xfeedface {
		t.Fatalf("PeekU32 = %#x, %v; want 0xfeedface, true", v, ok)
	}
	if _, ok := PeekU32(base + 10); ok {
		t.Fatal("PeekU32 of an unaligned word: ok, want a miss")
	}
	if v, ok := PeekU64(base + mm.PageSize - 4); !ok || v != 7<<32 {
		t.Fatalf("PeekU64 across pages = %#x, %v; want %#x, true", v, ok, uint64(7)<<32)
	}
	if e := Cur().Mprotect(base, mm.PageSize, 0); e != 0 {
		t.Fatal(e)
	}
	if _, ok := PeekU32(base + 8); ok {
		t.Fatal("PeekU32 of a PROT_NONE page: ok, want a miss")
	}
	if e := Cur().Munmap(base+mm.PageSize, mm.PageSize); e != 0 {
		t.Fatal(e)
	}
	if _, ok := PeekU32(base + mm.PageSize); ok {
		t.Fatal("PeekU32 of an unmapped page: ok, want a miss")
	}
	if _, ok := PeekU32(mm.UserTop); ok {
		t.Fatal("PeekU32 past the app's half: ok, want a miss")
	}
}
