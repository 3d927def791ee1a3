package mm

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/gometal/gometal/drivers/cpu"
	"golang.org/x/sys/unix"
)

// touchedSpace is a space with 4 pages mapped at base, all touched
// (fault-around maps the 3 after the one touched).
func touchedSpace(t *testing.T) (*Space, uintptr) {
	s := &Space{}
	if !s.Init(testAlloc(t, 100)) {
		t.Fatal("Init")
	}
	base, e := s.Mmap(0, 4*PageSize, ProtRead|ProtWrite, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if e != 0 || s.Fault(base, AccessWrite) != FaultOK {
		t.Fatal("mmap and touch")
	}
	return s, base
}

// Pin refuses while a change of mappings is under way, Present tells a
// buffer a pinned copy may use from one it may not, and a munmap waits
// for the pinned copy to end before it frees a frame.
func TestPinAgainstMunmap(t *testing.T) {
	if MaxCores != cpu.MaxCPUs {
		t.Fatalf("MaxCores %d, drivers/cpu.MaxCPUs %d", MaxCores, cpu.MaxCPUs)
	}
	s, base := touchedSpace(t)
	if !s.Present(base+10, 3*PageSize, AccessWrite) {
		t.Fatal("touched pages (fault-around maps all 4) not present")
	}
	if s.Present(base+3*PageSize, 2*PageSize, AccessRead) || s.Present(^uintptr(0)-10, 20, AccessRead) {
		t.Fatal("a range past the mapping, or wrapping, reported present")
	}
	atomic.StoreUint32(&s.changing, 1)
	if s.Pin(2) || atomic.LoadUint32(&s.pins[2]) != 0 {
		t.Fatal("pinned while mappings change")
	}
	s.settle()
	if !s.Pin(2) {
		t.Fatal("Pin refused with nothing changing")
	}
	done := make(chan struct{})
	go func() {
		s.Munmap(base, 4*PageSize)
		close(done)
	}()
	select {
	case <-done:
		t.Fatal("munmap did not wait for the pinned copy")
	case <-time.After(50 * time.Millisecond):
	}
	if !s.Present(base, 4*PageSize, AccessWrite) {
		t.Fatal("pages gone under a pinned copy")
	}
	s.Unpin(2)
	<-done
	if s.Present(base, PageSize, AccessRead) || s.Pin(2) != true {
		t.Fatal("after munmap: page still present, or Pin refused")
	}
}

// The mapping calls made without the kernel lock never wait for a pin:
// with a core pinned, a removal or restriction answers ErrBusy and
// changes nothing (the locked way then waits), and lets pins on again;
// a call that only adds goes ahead. PinPage pins the page it finds, or
// faults one in first.
func TestNoWaitChangesAgainstPin(t *testing.T) {
	s, base := touchedSpace(t)
	if !s.Pin(3) {
		t.Fatal("Pin")
	}
	vmas := s.VMAs.Len()
	if e := s.MunmapOr(base, PageSize, false); e != ErrBusy {
		t.Fatalf("munmap with a core pinned: %v, want ErrBusy", e)
	}
	if e := s.MprotectOr(base, PageSize, ProtRead, false); e != ErrBusy {
		t.Fatalf("mprotect with a core pinned: %v, want ErrBusy", e)
	}
	if e := s.DontNeedOr(base, PageSize, false); e != ErrBusy {
		t.Fatalf("MADV_DONTNEED with a core pinned: %v, want ErrBusy", e)
	}
	if _, e := s.MmapOr(base, PageSize, ProtRead, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_FIXED, false); e != ErrBusy {
		t.Fatalf("MAP_FIXED over a mapping with a core pinned: %v, want ErrBusy", e)
	}
	if s.VMAs.Len() != vmas || !s.Present(base, 4*PageSize, AccessWrite) {
		t.Fatal("a call that answered ErrBusy changed the space")
	}
	if atomic.LoadUint32(&s.changing) != 0 {
		t.Fatal("ErrBusy left new pins off")
	}
	if _, e := s.MmapOr(0, PageSize, ProtRead, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS, false); e != 0 {
		t.Fatalf("mmap of a fresh range with a core pinned: %v", e)
	}
	s.Unpin(3)
	if e := s.MunmapOr(base+3*PageSize, PageSize, false); e != 0 {
		t.Fatalf("munmap with no core pinned: %v", e)
	}
	pa, pinned, ok := s.PinPage(1, base+2*PageSize, AccessWrite)
	if !ok || !pinned || pa == 0 || atomic.LoadUint32(&s.pins[1]) == 0 {
		t.Fatal("PinPage of a present page did not pin it")
	}
	s.Unpin(1)
	if _, _, ok := s.PinPage(1, base+3*PageSize, AccessRead); ok {
		t.Fatal("PinPage of an unmapped page succeeded")
	}
	next, _ := s.Mmap(0, PageSize, ProtRead|ProtWrite, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if _, pinned, ok := s.PinPage(1, next, AccessWrite); !ok || !pinned {
		t.Fatal("PinPage did not fault in an untouched page")
	}
	s.Unpin(1)
}
