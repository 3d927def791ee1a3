package kernel

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel/prof"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"
)

// The whole-system profiler's hooks (kernel/prof holds the tables): boot
// argument gometal.profile=PATH turns it on (gometal.profile_hz=N sets
// the rate, default profDefaultHz per core). Each core's timer is armed
// for its next sampling point while it runs a thread (sched.ArmTimer);
// the time between points is charged to what the core did then:
//
//   - app code: the interrupt from EL0 that ends the period samples the
//     interrupted PC and the Go frame-pointer chain above it (Go keeps
//     frame pointers on arm64: the saved FP at [FP], the return address
//     at [FP+8], as runtime.fpTracebackPCs walks them);
//   - the kernel: interrupts are masked while it runs, so the periods that
//     ended inside it are charged at its exit to what it was doing (the
//     system call by number, interrupts, a fault) or, before the lock was
//     had, to waiting for the big kernel lock;
//   - idle: periods that ended in WFI, charged on waking (an idle core is
//     not woken to be sampled).
//
// At exit the tables go to the host file PATH through semihosting; the
// CLI turns them into a pprof profile with the app's symbols.

const profDefaultHz = 1000

var (
	profName    [512]byte
	profNameLen int
	profHz      uint64 = profDefaultHz
	// profActivity is what each core's current kernel entry is doing
	// (prof.Arg*), charged at its exit.
	profActivity [len(sched.CPUs)]uint32
	profHeader   prof.Header
	profCores    [len(sched.CPUs)]prof.CoreHeader
)

// profBootarg takes gometal.profile=PATH.
func profBootarg(path []byte) {
	if len(path) == 0 || len(path) >= len(profName) {
		Puts("gometal: gometal.profile= needs a host path shorter than 512 bytes; not profiling\n")
		return
	}
	profNameLen = copy(profName[:], path)
	profName[profNameLen] = 0
}

// profHzBootarg takes gometal.profile_hz=N (1 to 10000).
func profHzBootarg(v []byte) {
	n, ok := parseSize(v, 0)
	if !ok || n < 1 || n > 10000 {
		Puts("gometal: ignoring gometal.profile_hz=: want 1 to 10000\n")
		return
	}
	profHz = n
}

// profStart turns profiling on if it was asked for, once the timer's
// frequency, which sets the period, is known: no hook runs before.
func profStart() {
	if profNameLen > 0 {
		sched.ProfPeriod = max(timer.Freq()/profHz, 1)
		prof.Enable()
	}
}

// profDue returns how many sampling periods ended by counter value now
// on core c, and moves c's next sampling point past now.
func profDue(c *sched.CPU, now uint64) uint64 {
	p := sched.ProfPeriod
	if c.ProfNext == 0 {
		c.ProfNext = now + p
		return 0
	}
	if now < c.ProfNext {
		return 0
	}
	n := (now-c.ProfNext)/p + 1
	c.ProfNext += n * p
	return n
}

// profEnter charges a kernel entry's periods: those that ended while the
// app ran (to the interrupted code, f) and those that ended while the
// core waited for the kernel lock (entered: the counter before it asked).
func profEnter(c *sched.CPU, t *sched.Thread, f *sched.Frame, entered uint64) {
	if n := profDue(c, entered); n > 0 && t != nil {
		var s prof.Sample
		s.Kind = prof.KindApp
		s.TID = uint32(t.TID)
		s.PID = uint32(t.TGID)
		s.PC[0] = f.PC
		s.Frames = 1 + uint8(appFrames(f.X[29], s.PC[1:]))
		prof.Add(c.ID, &s, n)
	}
	if n := profDue(c, c.Heartbeat); n > 0 {
		profKernel(c, prof.ArgLockWait, n)
	}
}

// appFrames walks the app's frame-pointer chain from fp into pcs (return
// addresses, innermost first), stopping at a zero, unaligned or
// unmapped frame pointer. It only peeks (usermem.PeekU64): a sample must
// not fault the app's pages in, and it is also taken on the ways that
// hold no kernel lock, which the fault path needs.
func appFrames(fp uint64, pcs []uint64) int {
	n := 0
	for n < len(pcs) && fp != 0 && fp&7 == 0 {
		ret, ok := usermem.PeekU64(uintptr(fp + 8))
		next, ok2 := usermem.PeekU64(uintptr(fp))
		if !ok || !ok2 || ret == 0 {
			break
		}
		pcs[n] = ret
		n++
		if next <= fp { // frames go up the stack
			break
		}
		fp = next
	}
	return n
}

// profExit charges the periods that ended in the kernel to what this
// entry did.
func profExit(c *sched.CPU) {
	if n := profDue(c, timer.Now()); n > 0 {
		profKernel(c, profActivity[c.ID], n)
	}
}

// profIdle charges, on waking from WFI, the periods that ended in the
// kernel before it went idle and those it spent idle.
func profIdle(c *sched.CPU) {
	if n := profDue(c, c.IdleSince); n > 0 {
		profKernel(c, profActivity[c.ID], n)
	}
	if n := profDue(c, c.Heartbeat); n > 0 {
		var s prof.Sample
		s.Kind = prof.KindIdle
		prof.Add(c.ID, &s, n)
	}
}

func profKernel(c *sched.CPU, arg uint32, n uint64) {
	var s prof.Sample
	s.Kind = prof.KindKernel
	s.Arg = arg
	prof.Add(c.ID, &s, n)
}

// writeProfile writes the tables to the host file, if profiling is on.
func writeProfile() {
	if !prof.On() || !semihosting {
		return
	}
	prof.Disable()
	f, ok := CreateHostFile(&profName[0], profNameLen)
	if !ok {
		Puts("gometal: cannot create the profile file on the host\n")
		return
	}
	cores := onlineCores()
	copy(profHeader.Magic[:], prof.Magic)
	profHeader.Version = prof.Version
	profHeader.Cores = uint32(cores)
	profHeader.Freq = timer.Freq()
	profHeader.Period = sched.ProfPeriod
	for i := 0; i < cores; i++ {
		_, dropped := prof.Table(i)
		profCores[i] = prof.CoreHeader{Kept: prof.TableEntries, Dropped: dropped}
	}
	f.Write(unsafe.Pointer(&profHeader), uint64(unsafe.Sizeof(profHeader)))
	f.Write(unsafe.Pointer(&profCores[0]), uint64(cores)*uint64(unsafe.Sizeof(profCores[0])))
	for i := 0; i < cores; i++ {
		s, _ := prof.Table(i)
		f.Write(unsafe.Pointer(&s[0]), uint64(len(s))*prof.SampleSize)
	}
	if !f.Close() {
		Puts("gometal: writing the profile file on the host failed\n")
	}
}
