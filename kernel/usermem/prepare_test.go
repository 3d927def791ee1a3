//go:build !arm64

package usermem

import (
	"testing"

	"github.com/gometal/gometal/kernel/mm"
)

// Prepare faults an answer's pages in before the answer is written: a
// span across two pages is made present, an address outside every
// mapping is the write's to answer (FaultMapErr), and when no frame is
// left it says so (FaultOOM) instead of leaving the write to fail.
func TestPrepare(t *testing.T) {
	const appPages = 64
	base := HostReset(16, appPages)
	at := base + mm.PageSize - 8
	if r := Prepare(at, 16); r != mm.FaultOK {
		t.Fatalf("Prepare across a page boundary = %v, want FaultOK", r)
	}
	for _, p := range []uintptr{at, at + 15} {
		if _, ok := Cur().PresentPage(p, mm.AccessWrite); !ok {
			t.Fatalf("page of %#x not present after Prepare", p)
		}
	}
	if r := Prepare(base+appPages*mm.PageSize, 8); r != mm.FaultMapErr {
		t.Fatalf("Prepare past the mapping = %v, want FaultMapErr", r)
	}
	// Use up the frames, then ask for one more page.
	p := base + 2*mm.PageSize
	for ; p < base+appPages*mm.PageSize; p += mm.PageSize {
		if Cur().Fault(p, mm.AccessWrite) != mm.FaultOK {
			break
		}
	}
	if p == base+appPages*mm.PageSize {
		t.Fatal("memory never ran out")
	}
	if r := Prepare(p, 8); r != mm.FaultOOM {
		t.Fatalf("Prepare with no frame left = %v, want FaultOOM", r)
	}
	if r := Prepare(at, 16); r != mm.FaultOK {
		t.Fatalf("Prepare of present pages with no frame left = %v, want FaultOK", r)
	}
}
