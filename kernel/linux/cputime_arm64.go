package linux

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// CPU time: what each thread has run (sched.Thread.CPUTicks, counted by
// Schedule from kernel entry to kernel entry: user and system time
// together, which gometal reports as user time, stime 0), summed into
// its process when it exits (lproc.DeadTicks) and into the parent when
// it reaps the process (ChildTicks, as Linux's cutime: the child's own
// and what it reaped). getrusage(2), times(2), wait4's and waitid's
// rusage, CLOCK_PROCESS_CPUTIME_ID and CLOCK_THREAD_CPUTIME_ID and
// /proc's stat read them. ru_maxrss is the address space's peak of
// resident pages.

// procCPUTicks is process p's run time: its exited threads' and its
// live ones' up to now (a counter value).
func procCPUTicks(p int32, now uint64) uint64 {
	n := lprocs[p].DeadTicks
	for i := range sched.Active() {
		if t := &sched.Threads[i]; liveIn(t, p) {
			n += t.CPUTime(now)
		}
	}
	return n
}

// peakRSS is process p's peak of resident pages (its space's, while it
// has one).
func peakRSS(p int32) int64 {
	if pp := &proc.Procs[p]; pp.State == proc.Live && pp.MM >= 0 {
		return mm.Spaces[pp.MM].Peak
	}
	return lprocs[p].MaxRSS
}

// threadExitTimes adds exiting thread t's run time to its process's.
func threadExitTimes(t *sched.Thread, p int32) {
	lprocs[p].DeadTicks += t.CPUTime(timer.Now())
}

// reapTimes adds zombie z's times, its own and its reaped children's,
// to its parent's children's (wait_task_zombie).
func reapTimes(z int32) {
	parent := proc.Procs[z].Parent
	if parent == proc.NoParent {
		return
	}
	lz, lp := &lprocs[z], &lprocs[parent]
	lp.ChildTicks += lz.DeadTicks + lz.ChildTicks
	lp.ChildMaxRSS = max(lp.ChildMaxRSS, lz.MaxRSS, lz.ChildMaxRSS)
}

// rusageOf is a struct rusage with run time ticks and peak resident
// pages rss (ru_maxrss in KiB).
func rusageOf(ticks uint64, rss int64) unix.Rusage {
	var ru unix.Rusage
	ru.Utime = unix.NsecToTimeval(timer.TicksToNanos(ticks))
	ru.Maxrss = rss * mm.PageSize >> 10
	return ru
}

// copyRusage writes ru at the app's addr.
func copyRusage(addr uintptr, ru *unix.Rusage) bool {
	return usermem.CopyOut(addr, usermem.BytesOf(unsafe.Pointer(ru), unsafe.Sizeof(*ru)))
}

// putRusage writes a struct rusage with run time ticks and peak
// resident pages rss.
func putRusage(addr uintptr, ticks uint64, rss int64) bool {
	ru := rusageOf(ticks, rss)
	return copyRusage(addr, &ru)
}

// childRusage is child z's rusage for a wait: its own and its reaped
// children's times, as Linux's wait_task_zombie reports them.
func childRusage(z int32) unix.Rusage {
	lz := &lprocs[z]
	return rusageOf(procCPUTicks(z, timer.Now())+lz.ChildTicks, max(peakRSS(z), lz.ChildMaxRSS))
}

func sysGetrusage(t *sched.Thread, f *sched.Frame) uint64 {
	p := lx(t).Proc
	now := timer.Now()
	var ok bool
	switch int32(f.X[0]) {
	case unix.RUSAGE_SELF:
		ok = putRusage(uintptr(f.X[1]), procCPUTicks(p, now), peakRSS(p))
	case unix.RUSAGE_CHILDREN:
		ok = putRusage(uintptr(f.X[1]), lprocs[p].ChildTicks, lprocs[p].ChildMaxRSS)
	case unix.RUSAGE_THREAD:
		ok = putRusage(uintptr(f.X[1]), t.CPUTime(now), peakRSS(p))
	default:
		return errno(unix.EINVAL)
	}
	if !ok {
		return errno(unix.EFAULT)
	}
	return 0
}

// sysTimes is times(2): the process's and its reaped children's times
// in clock ticks (USER_HZ), and the ticks since boot (an arbitrary
// point, as the man page allows).
func sysTimes(t *sched.Thread, f *sched.Frame) uint64 {
	now := timer.Now()
	hz := func(ticks uint64) int64 { return timer.TicksToNanos(ticks) / (1e9 / procUserHZ) }
	if a := uintptr(f.X[0]); a != 0 {
		p := lx(t).Proc
		tms := unix.Tms{Utime: hz(procCPUTicks(p, now)), Cutime: hz(lprocs[p].ChildTicks)}
		if !usermem.CopyOut(a, usermem.BytesOf(unsafe.Pointer(&tms), unsafe.Sizeof(tms))) {
			return errno(unix.EFAULT)
		}
	}
	return uint64(hz(now))
}

// cpuClockNanos answers clock_gettime for the CPU-time clocks of the
// caller's process and thread (ok false: another clock).
func cpuClockNanos(t *sched.Thread, id uint64) (int64, bool) {
	switch id {
	case unix.CLOCK_PROCESS_CPUTIME_ID:
		return timer.TicksToNanos(procCPUTicks(lx(t).Proc, timer.Now())), true
	case unix.CLOCK_THREAD_CPUTIME_ID:
		return timer.TicksToNanos(t.CPUTime(timer.Now())), true
	}
	return 0, false
}
