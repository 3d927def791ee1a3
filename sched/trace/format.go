package trace

// Kind is what an event records.
type Kind uint8

const (
	KindNone Kind = iota
	// KindRun: a thread starts running on this core. Arg: its tid; Code:
	// RunLocal or RunStolen.
	KindRun
	// KindStop: the running thread leaves the core. Arg: its tid; Code:
	// why (Stop*); Num: the wait kind (sched.WaitKind) for StopBlocked.
	KindStop
	// KindIdle: the core goes to WFI; KindWake: it comes back.
	KindIdle
	KindWake
	// KindIRQ: an interrupt taken. Arg: its INTID; Code: IRQ*.
	KindIRQ
	// KindSGI: an SGI sent. Arg: the target core; Code: SGI*.
	KindSGI
	// KindSyscall: a system call starts. Arg: tid; Num: its number.
	KindSyscall
	// KindSysret: it returns (Code 0) or blocks (Code 1, to be run again
	// when woken). Arg: tid; Num: its number.
	KindSysret
	// KindSignal: a signal frame built. Arg: tid; Num: the signal (23,
	// SIGURG, is how Go's runtime preempts a goroutine).
	KindSignal
	// KindProc: a thread's process and name, from now on (a process
	// made, a program run, a name set): ProcWords events in a row on
	// one core, Code 0 to ProcWords-1, each Arg one word: the tid, the
	// pid, then the name's 16 bytes four at a time (little-endian, NUL
	// padded).
	KindProc
	NumKinds
)

// ProcWords is how many KindProc events name one thread.
const ProcWords = 6

// Why a thread stopped running (KindStop's Code).
const (
	StopBlocked uint8 = iota // it waits (Num: the wait kind)
	StopSlice                // its time slice ended and another was waiting
	StopYield                // it gave up the core (sched_yield)
	StopExit                 // it exited
	StopMigrate              // its affinity moved it to another core
)

// How a thread came to run (KindRun's Code).
const (
	RunLocal  uint8 = iota // from this core's queue
	RunStolen              // taken from another core's queue
)

// What an interrupt was (KindIRQ's Code).
const (
	IRQTimer uint8 = iota // the core's timer: deadlines and time slices
	IRQSGI                // another core's SGI
	IRQUART               // console input
	IRQOther
)

// Why an SGI was sent (KindSGI's Code).
const (
	SGIWakeup uint8 = iota // a thread was queued for an idle (or busy, empty-queued) core
	SGIKick                // make a core enter the kernel: a signal for its thread
	SGIStop                // the machine is stopping
)

// Event is one record: 16 bytes, as the file holds it.
type Event struct {
	TS   uint64 // the counter (CNTVCT_EL0) when it happened
	Kind Kind
	Code uint8
	Num  uint16
	Arg  uint32
}

// EventSize is the size of an Event in memory and in the file.
const EventSize = 16

// RingEvents is each core's ring: 32,768 events (512 KiB).
const RingEvents = 1 << 15

// The file: Header, then for each core a CoreHeader, then each core's
// events in core order.
const (
	Magic   = "gmtrace\x00"
	Version = 1
)

// Header opens a trace file.
type Header struct {
	Magic   [8]byte
	Version uint32
	Cores   uint32
	Freq    uint64 // counter frequency, Hz
}

// CoreHeader says how many events a core recorded (Written) and how many
// the file holds (Kept, the newest; Written - Kept were lost).
type CoreHeader struct {
	Written uint64
	Kept    uint64
}
