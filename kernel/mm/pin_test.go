package mm

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/gometal/gometal/drivers/cpu"
	"golang.org/x/sys/unix"
)

// Pin refuses while a change of mappings is under way, Present tells a
// buffer a pinned copy may use from one it may not, and a munmap waits
// for the pinned copy to end before it frees a frame.
func TestPinAgainstMunmap(t *testing.T) {
	if MaxCores != cpu.MaxCPUs {
		t.Fatalf("MaxCores %d, drivers/cpu.MaxCPUs %d", MaxCores, cpu.MaxCPUs)
	}
	a := testAlloc(t, 100)
	var s Space
	if !s.Init(a) {
		t.Fatal("Init")
	}
	base, e := s.Mmap(0, 4*PageSize, ProtRead|ProtWrite, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if e != 0 || s.Fault(base, AccessWrite) != FaultOK {
		t.Fatal("mmap and touch")
	}
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
