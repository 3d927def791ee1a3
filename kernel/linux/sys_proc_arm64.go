package linux

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/ext4fs"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/inet"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"unsafe"

	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// The app is process 1, as /init is on Linux.
const appPID = 1

// The process IDs come from the process table (kernel/proc). A
// process's PID never changes while its threads run, and its parent only
// when it is orphaned (a 32-bit store, read whole), so getpid and
// getppid read them without a lock (unlocked_arm64.go).
func sysGetpid(t *sched.Thread, f *sched.Frame) uint64  { return uint64(pidOf(t)) }
func sysGetppid(t *sched.Thread, f *sched.Frame) uint64 { return uint64(proc.PPID(lx(t).Proc)) }

// targetProc is the process a pid_t argument names (Linux takes the
// register's low 32 bits): 0 the caller's, else the live or zombie
// process with that PID (-1: none, negative PIDs included).
func targetProc(t *sched.Thread, pid int32) int32 {
	if pid == 0 {
		return lx(t).Proc
	}
	return proc.ByPID(pid)
}

func sysGetpgid(t *sched.Thread, f *sched.Frame) uint64 {
	p := targetProc(t, int32(f.X[0]))
	if p < 0 {
		return errno(unix.ESRCH)
	}
	return uint64(proc.Procs[p].PGID)
}

func sysGetsid(t *sched.Thread, f *sched.Frame) uint64 {
	p := targetProc(t, int32(f.X[0]))
	if p < 0 {
		return errno(unix.ESRCH)
	}
	return uint64(proc.Procs[p].SID)
}

func sysSetpgid(t *sched.Thread, f *sched.Frame) uint64 {
	// pid_t arguments: the registers' low 32 bits, as Linux takes them.
	if e := proc.Setpgid(lx(t).Proc, int32(f.X[0]), int32(f.X[1])); e != 0 {
		return errno(e)
	}
	return 0
}

func sysSetsid(t *sched.Thread, f *sched.Frame) uint64 {
	sid, e := proc.Setsid(lx(t).Proc)
	if e != 0 {
		return errno(e)
	}
	return uint64(sid)
}

func sysGettid(t *sched.Thread, f *sched.Frame) uint64 { return uint64(t.TID) }

func sysExit(t *sched.Thread, f *sched.Frame) uint64 {
	exitThread(t, int(f.X[0]&0xFF))
	return 0
}

func sysExitGroup(t *sched.Thread, f *sched.Frame) uint64 {
	if lx(t).Proc == proc.Init {
		appExit(int(f.X[0] & 0xFF)) // the end of the run: no need to stop each thread
	}
	exitGroup(t, proc.Exited(int(f.X[0]&0xFF)))
	return 0
}

// initExited ends the run when PID 1's last thread has gone, with the
// status a shell would report: the exit code, or 128 + the signal.
func initExited(status int32) {
	ws := unix.WaitStatus(status)
	if ws.Signaled() {
		appExit(128 + int(ws.Signal()))
	}
	appExit(ws.ExitStatus())
}

// appExit ends the run: the app's status becomes QEMU's exit status
// (kernel.Exit).
func appExit(status int) {
	appEnded(status)
	kernel.Exit(status)
}

// appEnded reports the app's end on the console and carries the files
// asked for to the host.
func appEnded(status int) {
	ext4fs.SyncAll() // the volumes' last changes durable before the power goes
	copyOut()
	if kernel.StatsAtExit {
		printStats()
	}
	if kernel.Info("app exited with status ") {
		kernel.PutDec(int64(status))
		kernel.InfoEnd()
	}
}

// putLockCounts prints one lock's (or kind of lock's) line of the stats.
func putLockCounts(name string, c cpu.LockCounts) {
	kernel.Puts("gometal: stats: lock ")
	kernel.Puts(name)
	kernel.Puts(":")
	putCounter("taken", c.Taken)
	putCounter("contended", c.Contended)
	putCounter("waited-us", uint64(timer.TicksToNanos(c.WaitTicks)/1000))
	kernel.Puts("\n")
}

func printStats() {
	kernel.Puts("gometal: stats:")
	putCounter("syscalls", syscallCount)
	var unlockedCount uint64
	for i := range sched.CPUs {
		unlockedCount += sched.CPUs[i].Stats.Unlocked
	}
	putCounter("unlocked", unlockedCount)
	var lockFree, early, faults uint64
	for i := range sched.CPUs {
		lockFree += sched.CPUs[i].Stats.LockFree
		early += sched.CPUs[i].Stats.EarlyWakes
		faults += sched.CPUs[i].Stats.Faults
	}
	putCounter("lock-free", lockFree)
	putCounter("lock-free-faults", faults)
	kernel.Puts("\n")
	// Each lock, in rank order: how often it was taken, how often a core
	// found it held, and how long such cores waited in all.
	for i := 0; sched.Lock(i) != nil; i++ {
		l := sched.Lock(i)
		putLockCounts(l.Name, l.LockCounts)
	}
	// The scheduler's state locks, each kind summed: the wait queues'
	// (futex queues, and the objects' queues that hash to them) and the
	// cores' (sched/statelock.go).
	cores, waitq := sched.StateLockCounts()
	putLockCounts("waitq", waitq)
	putLockCounts("cores", cores)
	// The objects' own locks (one per pipe and per eventfd), summed.
	putLockCounts("objects", vfs.ObjectLockCounts())
	// How many scheduler-state sections needed one core's lock, how many
	// a wait queue's and a waiter's idle home core's, and how many every
	// core's (sched/statelock.go).
	var own, home, all uint64
	for i := range sched.CPUs {
		own += sched.CPUs[i].Stats.StateOwn
		home += sched.CPUs[i].Stats.StateHome
		all += sched.CPUs[i].Stats.StateAll
	}
	kernel.Puts("gometal: stats: state-locks:")
	putCounter("one-core", own)
	putCounter("home-core", home)
	putCounter("every-core", all)
	kernel.Puts("\n")
	// Pipe reads and writes answered under the pipe's lock alone, those
	// that waited without the kernel lock, and those left to it (to
	// fault, allocate, signal).
	kernel.Puts("gometal: stats: unlocked-io:")
	putCounter("unlocked", vfs.UnlockedIOStats.Unlocked)
	putCounter("waits", vfs.UnlockedIOStats.Waits)
	putCounter("locked", vfs.UnlockedIOStats.Locked)
	kernel.Puts("\n")
	kernel.Puts("gometal: stats: wake-ups:")
	putCounter("woke-on-core", early)
	// The idle waits that polled their last stretch, and how late the
	// timer woke a halted core, on average over the cores
	// (sched/idlepoll_arm64.go).
	var polls, late, n uint64
	for i := range sched.CPUs {
		if sched.CPUs[i].Online {
			polls += sched.CPUs[i].Stats.Polls
			late += sched.CPUs[i].TimerLate()
			n++
		}
	}
	putCounter("idle-polls", polls)
	putCounter("timer-late-us", uint64(timer.TicksToNanos(late/max(n, 1))/1000))
	if cpu.OrderCheck {
		putCounter("lock-order-checks", cpu.Checks())
	}
	kernel.Puts("\n")
	// How epoll waits went: events at once, empty polls, waits that
	// blocked, waiters woken by events (of which by an eventfd write: the
	// runtime's netpollBreak), timeouts, and the collects made without
	// the kernel lock.
	kernel.Puts("gometal: stats: epoll:")
	putCounter("ready", vfs.EpollStats.Ready)
	putCounter("polls", vfs.EpollStats.Polls)
	putCounter("blocked", vfs.EpollStats.Blocked)
	putCounter("woken", vfs.Stats.EpollWoken)
	putCounter("breaks", vfs.Stats.Breaks)
	putCounter("timeouts", sched.Timeouts[sched.WaitEpoll])
	putCounter("unlocked", vfs.EpollStats.Unlocked)
	kernel.Puts("\n")
	// The network interface, if there is one: frames received, what the
	// stack answered, datagrams for ports nobody has, and frames dropped
	// as malformed or not ours (inet.Counters has them by reason).
	if inet.If.MAC != ([6]byte{}) {
		st := &inet.Stats
		kernel.Puts("gometal: stats: net:")
		putCounter("frames", st.Frames)
		putCounter("arp-replies", st.ARPReplies)
		putCounter("echo-replies", st.EchoReplies)
		putCounter("udp-no-port", st.NoPort)
		putCounter("dropped", st.Dropped())
		putCounter("tx-full", st.TxFailed)
		kernel.Puts("\n")
		// TCP: segments each way, how many were retransmitted (by
		// timeout and fast), resets each way, and SYNs a full backlog
		// or table dropped.
		kernel.Puts("gometal: stats: tcp:")
		putCounter("segs-in", st.TCPSegsIn)
		putCounter("segs-out", st.TCPSegsOut)
		putCounter("retransmits", st.TCPRetransmits)
		putCounter("fast-retransmits", st.TCPFastRetransmits)
		putCounter("out-of-order", st.TCPOutOfOrder)
		putCounter("resets-in", st.TCPResetsIn)
		putCounter("resets-out", st.TCPResetsOut)
		putCounter("listen-drops", st.TCPListenDrops)
		kernel.Puts("\n")
		printConns()
	}
	// File waits, all through vfs.Wait: how many blocked per kind of
	// file, the Notify calls, and the callers they woke (each runs its
	// call again: sched.Retries).
	kernel.Puts("gometal: stats: waits:")
	for k := vfs.Kind(0); k < vfs.NumKinds; k++ {
		if n := vfs.Stats.Waits[k]; n != 0 {
			putCounter(k.String(), n)
		}
	}
	putCounter("notifies", vfs.Stats.Notifies)
	putCounter("woken", vfs.Stats.Woken)
	putCounter("retries", sched.Retries)
	kernel.Puts("\n")
	// Signals: handler frames built per signal number, the SGIs sent so
	// that another core delivers one (for SIGURG, that is the runtime's
	// preemption request), blocking syscalls a signal cut short, and the
	// sends and returns made without the kernel lock.
	// Processes: made (and of those copied: fork), programs run, ended,
	// stopped, killed for memory, and the pages a write fault copied
	// after a fork shared them (or took over, the last user), and the
	// ASID generations begun (kernel/mm/asid.go).
	kernel.Puts("gometal: stats: processes:")
	putCounter("forks", procStats.Forks)
	putCounter("fork-copies", procStats.Copies)
	putCounter("execs", procStats.Execs)
	putCounter("exits", procStats.Exits)
	putCounter("stops", procStats.Stops)
	putCounter("oom-kills", procStats.OOMKills)
	putCounter("cow-copies", mm.COWCopies)
	putCounter("cow-reuses", mm.COWReuses)
	putCounter("asid-rollovers", kernel.ASIDRollovers())
	kernel.Puts("\n")
	// Disks: virtio-blk requests made and the most one device held at
	// once, and the page cache's reads in flight: started, the read(2)
	// calls that slept on one, the callers that polled one instead.
	req, most := kernel.BlockStats()
	kernel.Puts("gometal: stats: disk:")
	putCounter("requests", req)
	putCounter("most-in-flight", most)
	putCounter("reads-in-flight", fs.InflightStats.Started)
	putCounter("sleeps", fs.InflightStats.Sleeps)
	putCounter("polled", fs.InflightStats.Polled)
	kernel.Puts("\n")
	kernel.Puts("gometal: stats: signals:")
	for sig := 1; sig < nsig; sig++ {
		if n := sigDelivered[sig]; n != 0 {
			kernel.Puts(" ")
			kernel.PutDec(int64(sig))
			kernel.Puts("=")
			kernel.PutDec(int64(n))
		}
	}
	putCounter("sgi-kicks", sigKicks)
	putCounter("interrupted", sigInterrupted)
	putCounter("restarted", sigRestarted)
	// The tgkill and rt_sigreturn calls answered without the kernel lock.
	putCounter("unlocked-sends", unlockedSignals.Sends)
	putCounter("unlocked-returns", unlockedSignals.Returns)
	kernel.Puts("\n")
	for i := range sched.CPUs {
		c := &sched.CPUs[i]
		if !c.Online {
			continue
		}
		s := &c.Stats
		kernel.Puts("gometal: stats: core ")
		kernel.PutDec(int64(i))
		kernel.Puts(":")
		putCounter("timer-irqs", s.Ticks)
		putCounter("sgi-in", s.SGIsIn)
		putCounter("uart-irqs", s.UARTIRQs)
		putCounter("sgi-out", s.SGIsOut)
		putCounter("switches", s.Switches)
		putCounter("steals", s.Steals)
		putCounter("spreads", s.Spreads)
		putCounter("idles", s.Idles)
		putCounter("migrations", s.Migrations)
		kernel.Puts("\n")
	}
}

// putCounter prints " name=v".
// printConns prints a line for each TCP connection still in the table
// (a listener, one the app holds open, one finishing its close).
func printConns() {
	shown, more, timeWait := 0, 0, 0
	for i := 0; i < inet.MaxConns; i++ {
		c, ok := inet.ConnStats(i)
		if !ok {
			continue
		}
		// TIME-WAIT is only waiting (RFC 9293 §3.6.1): counted, not
		// listed; past the first few the rest are counted too.
		if c.State == inet.TCPTimeWait {
			timeWait++
			continue
		}
		if shown == statConnLines {
			more++
			continue
		}
		shown++
		kernel.Puts("gometal: stats: tcp conn: ")
		kernel.Puts(c.State.String())
		putCounter("port", uint64(c.LocalPort))
		putCounter("peer-port", uint64(c.Port))
		if c.Owned {
			kernel.Puts(" owned")
		}
		putCounter("unacked", uint64(c.Unacked))
		putCounter("unsent", uint64(c.Unsent))
		putCounter("unread", uint64(c.Received))
		putCounter("snd-wnd", uint64(c.SndWnd))
		putCounter("cwnd", uint64(c.Cwnd))
		putCounter("retries", uint64(c.Retries))
		putCounter("rto-ms", uint64(c.RTO/1e6))
		kernel.Puts("\n")
	}
	if more+timeWait > 0 {
		kernel.Puts("gometal: stats: tcp conns:")
		putCounter("more", uint64(more))
		putCounter("time-wait", uint64(timeWait))
		kernel.Puts("\n")
	}
}

// statConnLines bounds the connections printConns lists one by one.
const statConnLines = 16

func putCounter(name string, v uint64) {
	kernel.Puts(" ")
	kernel.Puts(name)
	kernel.Puts("=")
	kernel.PutDec(int64(v))
}

func sysSetTidAddress(t *sched.Thread, f *sched.Frame) uint64 {
	lx(t).ClearTID = uintptr(f.X[0])
	return uint64(t.TID)
}

// Clone flags Go uses for a thread: CLONE_VM|CLONE_FS|CLONE_FILES|
// CLONE_SIGHAND|CLONE_SYSVSEM|CLONE_THREAD (0x50f00). Without
// CLONE_THREAD, clone makes a process (process_arm64.go); a thread
// must share its process's memory and handlers (copy_process's checks).
const cloneThreadFlags = unix.CLONE_VM | unix.CLONE_THREAD | unix.CLONE_SIGHAND

func sysClone(t *sched.Thread, f *sched.Frame) uint64 {
	flags := f.X[0]
	if flags&unix.CLONE_THREAD == 0 {
		return cloneProcess(t, f, flags)
	}
	if flags&cloneThreadFlags != cloneThreadFlags || flags&unix.CLONE_PIDFD != 0 {
		return errno(unix.EINVAL)
	}
	if lprocs[lx(t).Proc].Exiting {
		return errno(unix.EAGAIN)
	}
	n := newThread()
	if n == nil {
		return errno(unix.EAGAIN)
	}
	childRegs(n, f, flags)
	// A new thread joins its creator's process and starts with its
	// signal mask and affinity, and no alternate signal stack.
	lx(n).Proc = lx(t).Proc
	n.TGID = t.TGID
	procOf(t).Threads++
	n.Space = t.Space
	lx(n).SigMask = lx(t).SigMask
	n.Affinity = t.Affinity
	lx(n).KeepCaps = lx(t).KeepCaps // its cred, copied
	lx(n).Comm = lx(t).Comm
	traceProc(n)
	lx(n).TimerSlack = lx(t).TimerSlack // Linux's copy_process, both
	lx(n).DefaultSlack = lx(t).TimerSlack
	if flags&unix.CLONE_PARENT_SETTID != 0 {
		usermem.WriteU32(uintptr(f.X[2]), uint32(n.TID))
	}
	if flags&unix.CLONE_CHILD_SETTID != 0 {
		usermem.WriteU32(uintptr(f.X[4]), uint32(n.TID))
	}
	if flags&unix.CLONE_CHILD_CLEARTID != 0 {
		lx(n).ClearTID = uintptr(f.X[4])
	}
	sched.Ready(n)
	return uint64(n.TID)
}

// childRegs starts clone's new thread n as a copy of the caller's
// registers f returning 0, on the stack clone names (the caller's if
// none) and with the TLS it names (CLONE_SETTLS).
func childRegs(n *sched.Thread, f *sched.Frame, flags uint64) {
	n.Ctx = *f
	n.Ctx.X[0] = 0
	if sp := f.X[1]; sp != 0 {
		n.Ctx.SP = sp
	}
	if flags&unix.CLONE_SETTLS != 0 {
		n.Ctx.TPIDR = f.X[3]
	}
}

func sysSchedYield(t *sched.Thread, f *sched.Frame) uint64 {
	c := kernel.ThisCPU()
	c.SliceEnd = 0 // let Schedule rotate if anyone waits
	return 0
}

// onlineMask is the set of cores that run threads (bit i = core i).
func onlineMask() uint64 {
	var m uint64
	for i := range sched.CPUs {
		if sched.CPUs[i].Online {
			m |= 1 << uint(i)
		}
	}
	return m
}

// affinityTarget is the thread a sched_{get,set}affinity pid names: 0 is
// the caller, the app's pid is its main thread, anything else a TID.
func affinityTarget(t *sched.Thread, pid uint64) *sched.Thread {
	switch int32(pid) {
	case 0:
		return t
	case pidOf(t):
		// A process's PID is its first thread's TID.
		if m := sched.ByTID(pidOf(t)); m != nil {
			return m
		}
	}
	return sched.ByTID(int32(pid))
}

// cpuMaskBytes is the size of the kernel's cpumask (Linux returns
// nr_cpu_ids rounded up to a long: 8 bytes for up to 64 cores).
const cpuMaskBytes = 8

func sysSchedGetaffinity(t *sched.Thread, f *sched.Frame) uint64 {
	size := f.X[1]
	if size < cpuMaskBytes || size&7 != 0 {
		return errno(unix.EINVAL)
	}
	o := affinityTarget(t, f.X[0])
	if o == nil {
		return errno(unix.ESRCH)
	}
	mask := onlineMask()
	if o.Affinity != 0 {
		mask &= o.Affinity
	}
	if !usermem.WriteU64(uintptr(f.X[2]), mask) {
		return errno(unix.EFAULT)
	}
	return cpuMaskBytes
}

// sysSchedSetaffinity restricts a thread to a set of cores. A mask with
// no online core is EINVAL, as on Linux; bits past the first 64 are
// ignored (there are at most 8 cores). A running thread that may no
// longer use its core moves at its core's next kernel entry (sched's
// migration rule); one running on another core is kicked there now.
func sysSchedSetaffinity(t *sched.Thread, f *sched.Frame) uint64 {
	o := affinityTarget(t, f.X[0])
	if o == nil {
		return errno(unix.ESRCH)
	}
	if f.X[1] < cpuMaskBytes {
		return errno(unix.EINVAL)
	}
	m, ok := usermem.ReadU64(uintptr(f.X[2]))
	if !ok {
		return errno(unix.EFAULT)
	}
	m &= onlineMask()
	if m == 0 {
		return errno(unix.EINVAL)
	}
	o.Affinity = m
	if o.State == sched.Running && m&(1<<uint(o.CPU)) == 0 {
		if int(o.CPU) == kernel.ThisCPU().ID {
			kernel.ThisCPU().SliceEnd = 0
		} else {
			sched.Kick(int(o.CPU))
		}
	}
	return 0
}

// sysGetcpu tells the caller which core it runs on (NUMA node 0):
// getcpu(2), int getcpu(unsigned *cpu, unsigned *node), either pointer
// may be NULL.
func sysGetcpu(t *sched.Thread, f *sched.Frame) uint64 {
	// lab:syscall begin
	if f.X[0] != 0 && !usermem.WriteU32(uintptr(f.X[0]), uint32(kernel.ThisCPU().ID)) {
		return errno(unix.EFAULT)
	}
	if f.X[1] != 0 && !usermem.WriteU32(uintptr(f.X[1]), 0) {
		return errno(unix.EFAULT)
	}
	return 0
	// lab:syscall stub
	// // TODO(lab syscall): the app's arguments are in f.X[0] (cpu) and
	// // f.X[1] (node); kernel.ThisCPU() is this core; usermem copies to
	// // the app's memory. Answer as getcpu(2) does.
	// return errno(unix.ENOSYS)
	// lab:syscall end
}

func putField(dst *[65]byte, s string) {
	copy(dst[:], s)
}

// The kernel's release and version as uname(2) and /proc/version tell
// them: Linux 6.1's ABI is what gometal answers to.
const (
	unameRelease = "6.1.0-gometal"
	unameVersion = "#1 SMP gometal"
)

func sysUname(t *sched.Thread, f *sched.Frame) uint64 {
	var u unix.Utsname
	copy(u.Sysname[:], "Linux")
	copy(u.Nodename[:], "gometal")
	copy(u.Release[:], unameRelease)
	copy(u.Version[:], unameVersion)
	copy(u.Machine[:], "aarch64")
	copy(u.Domainname[:], "(none)")
	if !usermem.CopyOut(uintptr(f.X[0]), usermem.BytesOf(unsafe.Pointer(&u), unsafe.Sizeof(u))) {
		return errno(unix.EFAULT)
	}
	return 0
}

// Resource limits: each process's own (proc.Limit, proc/rlimit.go).

func sysGetrlimit(t *sched.Thread, f *sched.Frame) uint64 {
	if f.X[0] >= proc.NumLimits {
		return errno(unix.EINVAL)
	}
	return putLimit(uintptr(f.X[1]), procOf(t).Limits[f.X[0]])
}

func sysSetrlimit(t *sched.Thread, f *sched.Frame) uint64 {
	var nl proc.Limit
	if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&nl), unsafe.Sizeof(nl)), uintptr(f.X[1])) {
		return errno(unix.EFAULT)
	}
	return errno(proc.SetLimit(lx(t).Proc, int(f.X[0]), nl, procOf(t).Cred.Privileged()))
}

// sysPrlimit64 reads and sets the limits of process pid (0: the
// caller): ESRCH if there is none; EPERM if the caller is not root and
// the target's real, effective and saved IDs are not all the caller's
// (do_prlimit's check_prlimit_permission).
func sysPrlimit64(t *sched.Thread, f *sched.Frame) uint64 {
	p := lx(t).Proc
	if pid := int32(f.X[0]); pid != 0 {
		if p = proc.ByPID(pid); p < 0 || proc.Procs[p].State != proc.Live {
			return errno(unix.ESRCH)
		}
	}
	res := f.X[1]
	if res >= proc.NumLimits {
		return errno(unix.EINVAL)
	}
	me := &procOf(t).Cred
	if p != lx(t).Proc && !me.Privileged() && !proc.Procs[p].Cred.SameUser(me) {
		return errno(unix.EPERM)
	}
	old := proc.Procs[p].Limits[res]
	if nlAddr := uintptr(f.X[2]); nlAddr != 0 {
		var nl proc.Limit
		if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&nl), unsafe.Sizeof(nl)), nlAddr) {
			return errno(unix.EFAULT)
		}
		if e := proc.SetLimit(p, int(res), nl, me.Privileged()); e != 0 {
			return errno(e)
		}
	}
	if oldAddr := uintptr(f.X[3]); oldAddr != 0 {
		return putLimit(oldAddr, old)
	}
	return 0
}

func putLimit(addr uintptr, l proc.Limit) uint64 {
	if !usermem.CopyOut(addr, usermem.BytesOf(unsafe.Pointer(&l), unsafe.Sizeof(l))) {
		return errno(unix.EFAULT)
	}
	return 0
}

func sysUmask(t *sched.Thread, f *sched.Frame) uint64 {
	c := fsCtx()
	old := c.Umask
	c.Umask = uint32(f.X[0]) & 0o777
	return uint64(old)
}

// putInt32 writes v at the app's address a (prctl's PR_GET_* that
// answer through a pointer): 0, or EFAULT.
func putInt32(a uint64, v int32) uint64 {
	if !usermem.WriteU32(uintptr(a), uint32(v)) {
		return errno(unix.EFAULT)
	}
	return 0
}

func sysPrctl(t *sched.Thread, f *sched.Frame) uint64 {
	switch f.X[0] {
	case unix.PR_GET_KEEPCAPS:
		if lx(t).KeepCaps {
			return 1
		}
		return 0
	case unix.PR_SET_KEEPCAPS:
		// Per thread, 0 or 1 (there are no capabilities to keep, but
		// syscall.AllThreadsSyscall's tests set it on every thread).
		if f.X[1] > 1 {
			return errno(unix.EINVAL)
		}
		lx(t).KeepCaps = f.X[1] == 1
		return 0
	case unix.PR_SET_PDEATHSIG:
		if sig := int(f.X[1]); sig != 0 && !validSignal(sig) {
			return errno(unix.EINVAL)
		}
		sharedOf(t).PdeathSig = int32(f.X[1])
		return 0
	case unix.PR_GET_PDEATHSIG:
		return putInt32(f.X[1], sharedOf(t).PdeathSig)
	case unix.PR_SET_CHILD_SUBREAPER:
		procOf(t).Subreaper = f.X[1] != 0
		return 0
	case unix.PR_GET_CHILD_SUBREAPER:
		v := int32(0)
		if procOf(t).Subreaper {
			v = 1
		}
		return putInt32(f.X[1], v)
	case unix.PR_SET_NAME:
		// The calling thread's name, at most 15 bytes; the leader's is
		// the process's too (/proc/PID/comm).
		var name [len(proc.Process{}.Comm)]byte
		n, e := usermem.CopyInString(name[:len(name)-1], uintptr(f.X[1]))
		if e != 0 && e != unix.ENAMETOOLONG {
			return errno(e)
		}
		if e == unix.ENAMETOOLONG {
			n = len(name) - 1
		}
		c := &lx(t).Comm
		*c = [len(c)]byte{}
		copy(c[:], name[:n])
		if t.TID == pidOf(t) {
			procOf(t).Comm = *c
		}
		traceProc(t)
		return 0
	case unix.PR_GET_NAME:
		if !usermem.CopyOut(uintptr(f.X[1]), lx(t).Comm[:]) {
			return errno(unix.EFAULT)
		}
		return 0
	case unix.PR_GET_TIMERSLACK:
		return lx(t).TimerSlack
	case unix.PR_SET_TIMERSLACK:
		// As Linux (kernel/sys.c): 0 puts the thread's default back,
		// anything else is the slack in ns; it never fails.
		if f.X[1] == 0 {
			lx(t).TimerSlack = lx(t).DefaultSlack
		} else {
			lx(t).TimerSlack = f.X[1]
		}
		return 0
	}
	// PR_SET_VMA (VMA naming) and the rest: EINVAL, as a kernel without
	// the option answers. ENOSYS would make Go retry on every mmap.
	return errno(unix.EINVAL)
}

// reboot(2) magic numbers and the commands that end the machine.
const (
	rebootMagic1  = 0xfee1dead
	rebootMagic2  = 672274793 // LINUX_REBOOT_MAGIC2; 2A-2C are accepted too
	rebootMagic2A = 85072278
	rebootMagic2B = 369367448
	rebootMagic2C = 537993216
)

// sysReboot: a Go /init that powers the machine off when done (as it
// must on Linux, where init may not exit) ends the run with status 0 on
// gometal too. Restart resets the board where it has a way to
// (machineRestart), else EINVAL.
func sysReboot(t *sched.Thread, f *sched.Frame) uint64 {
	m2 := uint32(f.X[1])
	if uint32(f.X[0]) != rebootMagic1 || m2 != rebootMagic2 && m2 != rebootMagic2A && m2 != rebootMagic2B && m2 != rebootMagic2C {
		return errno(unix.EINVAL)
	}
	switch uint32(f.X[2]) {
	case unix.LINUX_REBOOT_CMD_POWER_OFF, unix.LINUX_REBOOT_CMD_HALT:
		appEnded(0)
		kernel.PowerOff()
		return 0
	case unix.LINUX_REBOOT_CMD_RESTART:
		if kernel.Restart() {
			return 0
		}
	}
	return errno(unix.EINVAL)
}
