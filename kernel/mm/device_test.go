package mm

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A device mapping (VMADevice, as /dev/fb0's mmap makes) shows the
// device's own memory: a fault maps its frames, special and
// non-cacheable, to the end of the last-level table; none is counted
// or resident, so munmap, a fork's teardown and the space's own give
// none to the allocator; mprotect keeps them the device's; a fork
// shares them writable; MADV_DONTNEED and growing by mremap are
// refused as Linux refuses them for VM_PFNMAP; past the device's
// memory is SIGBUS.
func TestSpaceDeviceMapping(t *testing.T) {
	a := testAlloc(t, 400)
	Spaces = [MaxSpaces]Space{}
	const devPages = 600 // more than a last-level table maps
	buf := make([]byte, (devPages+1)*PageSize)
	dev := PageUp(uintptr(unsafe.Pointer(&buf[0])))
	defer func() { _ = buf[0] }()
	uses := 0
	FileRef = func(file, mnt int32, delta int) { uses += delta }
	DevicePage = func(file int32, off uintptr) (uintptr, uintptr) {
		if file != 5 || off >= devPages*PageSize {
			return 0, 0
		}
		return dev + off, devPages*PageSize - off
	}
	defer func() { FileRef, DevicePage = nil, nil }()
	before := a.Used()

	i := NewSpace(a)
	s := &Spaces[i]
	v := VMA{Prot: ProtRead | ProtWrite, Flags: VMAShared | VMADevice, File: 5}
	base, e := s.MmapVMA(0, devPages*PageSize, v, unix.MAP_SHARED, true)
	if e != 0 || uses != 1 {
		t.Fatalf("mmap: %v, uses %d", e, uses)
	}
	if s.Fault(base, AccessWrite) != FaultOK {
		t.Fatal("fault")
	}
	_, d, ok := s.PT.Lookup(base)
	if !ok || d&descSpecial == 0 || d&attrMask != attrNormalNC || !Writable(d) {
		t.Fatalf("the entry %#x: want special, Normal non-cacheable, writable", d)
	}
	inTable := min(uintptr(512)-index(base, 3), devPages)
	for k := uintptr(0); k < devPages; k++ {
		pa, ok := s.PresentPage(base+k*PageSize, AccessWrite)
		if k < inTable && (!ok || pa != dev+k*PageSize) || k >= inTable && ok {
			t.Fatalf("page %d after one fault: present %v at %#x (table holds %d)", k, ok, pa, inTable)
		}
	}
	last := base + (devPages-1)*PageSize
	if s.Fault(last, AccessRead) != FaultOK {
		t.Fatal("fault on the last page")
	}
	if pa, _ := s.PresentPage(last, AccessRead); pa != dev+(devPages-1)*PageSize {
		t.Fatalf("last page at %#x", pa)
	}
	if s.Resident != 0 {
		t.Fatalf("device pages counted resident: %d", s.Resident)
	}
	past, _ := s.MmapVMA(0, PageSize, VMA{Prot: ProtRead, Flags: VMAShared | VMADevice, File: 5, Off: devPages * PageSize}, unix.MAP_SHARED, true)
	if r := s.Fault(past, AccessRead); r != FaultBus {
		t.Fatalf("past the device: %d, want FaultBus", r)
	}

	if s.Mprotect(base, PageSize, ProtRead) != 0 {
		t.Fatal("mprotect")
	}
	if _, d, _ := s.PT.Lookup(base); d&descSpecial == 0 || d&attrMask != attrNormalNC || Writable(d) {
		t.Fatalf("after mprotect read-only: %#x", d)
	}
	s.Mprotect(base, PageSize, 0)
	s.Mprotect(base, PageSize, ProtRead|ProtWrite)
	if s.Fault(base, AccessWrite) != FaultOK {
		t.Fatal("fault after mprotect")
	}
	if pa, ok := s.PresentPage(base, AccessWrite); !ok || pa != dev {
		t.Fatalf("after hiding and showing: %#x %v", pa, ok)
	}
	if e := s.DontNeed(base, PageSize); e != unix.EINVAL {
		t.Fatalf("MADV_DONTNEED: %v, want EINVAL", e)
	}
	if _, e := s.Mremap(base, devPages*PageSize, (devPages+1)*PageSize, unix.MREMAP_MAYMOVE, 0); e != unix.EFAULT {
		t.Fatalf("mremap growing: %v, want EFAULT", e)
	}

	c := CopySpace(i)
	if c < 0 || uses != 4 {
		t.Fatalf("fork: %d, uses %d", c, uses)
	}
	ch := &Spaces[c]
	if pa, ok := ch.PresentPage(base+PageSize, AccessWrite); !ok || pa != dev+PageSize || ch.Resident != 0 {
		t.Fatalf("the child's entry: %#x %v, resident %d", pa, ok, ch.Resident)
	}
	if _, ok := s.PresentPage(base+PageSize, AccessWrite); !ok {
		t.Fatal("the fork made the parent's device page read-only")
	}
	if ch.Munmap(base, 2*PageSize) != 0 {
		t.Fatal("munmap")
	}
	moved, e := s.Mremap(base, PageSize, PageSize, unix.MREMAP_MAYMOVE|unix.MREMAP_FIXED, base-PageSize)
	if e != 0 {
		t.Fatalf("mremap moving: %v", e)
	}
	if pa, ok := s.PresentPage(moved, AccessWrite); !ok || pa != dev {
		t.Fatalf("moved: %#x %v", pa, ok)
	}
	s.Put()
	ch.Put()
	ReapSpaces()
	if uses != 0 || a.Used() != before {
		t.Fatalf("after teardown: uses %d, %d pages used, want 0 and %d", uses, a.Used(), before)
	}
}

// A private device mapping shows the device read-only, and a write
// copies the page into one of the space's own (Linux's COW of a
// VM_PFNMAP page), which is counted, resident, and given back.
func TestSpacePrivateDeviceMapping(t *testing.T) {
	a := testAlloc(t, 64)
	Spaces = [MaxSpaces]Space{}
	buf := make([]byte, 5*PageSize)
	dev := PageUp(uintptr(unsafe.Pointer(&buf[0])))
	defer func() { _ = buf[0] }()
	PageBytes(dev + PageSize)[9] = 'd'
	DevicePage = func(file int32, off uintptr) (uintptr, uintptr) {
		if off >= 4*PageSize {
			return 0, 0
		}
		return dev + off, 4*PageSize - off
	}
	FileRef = func(file, mnt int32, delta int) {}
	defer func() { FileRef, DevicePage = nil, nil }()
	before := a.Used()
	i := NewSpace(a)
	s := &Spaces[i]
	base, _ := s.MmapVMA(0, 4*PageSize, VMA{Prot: ProtRead | ProtWrite, Flags: VMADevice, File: 5}, unix.MAP_PRIVATE, true)
	if s.Fault(base+PageSize, AccessRead) != FaultOK {
		t.Fatal("read fault")
	}
	if pa, ok := s.PresentPage(base+PageSize, AccessRead); !ok || pa != dev+PageSize {
		t.Fatalf("read: %#x %v", pa, ok)
	}
	if _, ok := s.PresentPage(base+PageSize, AccessWrite); ok {
		t.Fatal("a private device page is writable before a write")
	}
	if s.Fault(base+PageSize, AccessWrite) != FaultOK {
		t.Fatal("write fault")
	}
	pa, ok := s.PresentPage(base+PageSize, AccessWrite)
	if !ok || pa == dev+PageSize || PageBytes(pa)[9] != 'd' || s.Resident != 1 {
		t.Fatalf("the copy: %#x %v, byte %q, resident %d", pa, ok, PageBytes(pa)[9], s.Resident)
	}
	PageBytes(pa)[9] = 'p'
	if PageBytes(dev + PageSize)[9] != 'd' {
		t.Fatal("a write to the copy reached the device")
	}
	if _, d, _ := s.PT.Lookup(base + PageSize); d&descSpecial != 0 {
		t.Fatal("the copy's entry is special")
	}
	// Faulted again (mprotect away and back), the copy stays the copy.
	s.Mprotect(base, 4*PageSize, ProtRead)
	s.Mprotect(base, 4*PageSize, ProtRead|ProtWrite)
	if s.Fault(base+PageSize, AccessWrite) != FaultOK {
		t.Fatal("write fault after mprotect")
	}
	if p2, _ := s.PresentPage(base+PageSize, AccessWrite); p2 != pa {
		t.Fatalf("after mprotect the page is %#x, want the copy %#x", p2, pa)
	}
	s.Put()
	ReapSpaces()
	if a.Used() != before {
		t.Fatalf("after teardown %d pages used, want %d", a.Used(), before)
	}
}
