package prof

// What a sample is of (Sample.Kind).
const (
	KindApp    = 1 // app code at EL0: PCs are the app's
	KindKernel = 2 // in the kernel: Arg says doing what
	KindIdle   = 3 // idle in WFI
)

// Kernel activities (Sample.Arg for KindKernel): a system call is its
// number + ArgSyscall; the rest name the kind of entry.
const (
	ArgIRQ       = 1 // handling interrupts
	ArgFault     = 2 // a fault or other exception from the app
	ArgLockWait  = 3 // waiting for the big kernel lock
	ArgSyscall   = 1 << 16
	MaxFrames    = 12
	TableEntries = 2048 // per core
)

// Sample is one distinct sample and how many times it was taken: the
// file holds these as they are in memory (little-endian, 120 bytes).
type Sample struct {
	Count  uint64 // times sampled (each a period of the sampling clock)
	Kind   uint8
	Frames uint8 // valid entries of PC, innermost first
	_      uint16
	Arg    uint32
	TID    uint32 // the thread (app samples); 0 when not one thread
	PID    uint32 // its process (0: not known, as in files before processes)
	PC     [MaxFrames]uint64
}

// SampleSize is Sample's size in memory and in the file.
const SampleSize = 120

// The file: Header, then for each core a CoreHeader, then each core's
// samples in core order.
const (
	Magic   = "gmprof\x00\x00"
	Version = 1
)

// Header opens a profile file.
type Header struct {
	Magic   [8]byte
	Version uint32
	Cores   uint32
	Freq    uint64 // counter frequency, Hz
	Period  uint64 // sampling period, counter ticks
}

// CoreHeader says how many distinct samples a core kept and how many
// samples it dropped because its table was full.
type CoreHeader struct {
	Kept    uint64
	Dropped uint64
}
