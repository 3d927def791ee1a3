package linux

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/bcache"
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/mount"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/procfs"
	"github.com/gometal/gometal/kernel/sysfs"
	"github.com/gometal/gometal/kernel/tty"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// /proc's contents (proc(5); kernel/procfs keeps its tree). Each file
// is made whole into procfs.Out when it is read, as Linux's seq_file
// makes it, and the read takes its window; each "magic" link is made
// when it is read or followed. The formats are Linux 6.1's
// (fs/proc/array.c, meminfo.c, stat.c, base.c), field for field, since
// tools split them on spaces and count.

// mountProc mounts /proc at boot, making the directory if the
// initramfs has none: Go's os.Executable and the tools of a shell read
// it, and with no init script to mount it (a Go program is init), the
// kernel does, as a distribution's initramfs does first thing.
func mountProc() {
	var w fs.Walk
	dir, ok := bootMountpoint(&w, "/proc", 0o555)
	if !ok {
		return
	}
	fs.SynthRead = readProc
	fs.SynthLink = procLink
	procfs.ProcessOf = processOfTID
	fs.SynthJump = procJump
	fs.SynthWrite = writeProc
	mount.Devices = deviceNodes()
	mount.SysfsInstance = sysfsInstance
	mount.NinepInstance = kernel.ShareInstance
	mount.SetMemory(uint64(mm.Pages.Total()))
	// As the kernel's own mount, with the flags distributions mount it
	// with (and Linux 6.1 shows: nosuid,nodev,noexec,relatime).
	mount.Mount([]byte("proc"), fs.Path{}, fs.Path{Mnt: w.Mnt, Ino: dir}, []byte("proc"),
		unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, nil)
}

// bootMountpoint finds directory path for a mount the kernel makes at
// boot, making it with mode if the initramfs has none.
func bootMountpoint(w *fs.Walk, path string, mode uint32) (int32, bool) {
	if fs.Resolve(w, fs.RootPath(), []byte(path), fs.ForCreate) != 0 {
		return 0, false
	}
	dir := w.Node
	if dir < 0 {
		var e unix.Errno
		if dir, e = fs.Create(w, unix.S_IFDIR|mode); e != 0 {
			return 0, false
		}
	}
	return dir, true
}

// devptsBootOptions are the options distributions mount devpts with
// (systemd's and Debian's initramfs: gid=5 is the tty group, mode=620
// lets it write to a user's terminal), and Linux then shows
// ptmxmode=000 for the instance's own ptmx.
const devptsBootOptions = "gid=5,mode=620,ptmxmode=000"

// mountDevpts mounts devpts at /dev/pts at boot when the root has a
// /dev (the initramfs's, with /dev/ptmx), making /dev/pts: as a
// distribution's initramfs does, so a program that opens a pty finds
// its slave at /dev/pts/N with no init to mount it. u-root's init mounts
// it again there, which stacks (newMount lets devpts stack as proc).
func mountDevpts() {
	tty.Added, tty.Removed = mount.PtsAdded, mount.PtsRemoved
	var w fs.Walk
	if fs.Resolve(&w, fs.RootPath(), []byte("/dev"), 0) != 0 || w.Node < 0 {
		return
	}
	dir, ok := bootMountpoint(&w, "/dev/pts", 0o755)
	if !ok {
		return
	}
	mount.Mount([]byte("devpts"), fs.Path{}, fs.Path{Mnt: w.Mnt, Ino: dir}, []byte("devpts"),
		unix.MS_NOSUID|unix.MS_NOEXEC, []byte(devptsBootOptions))
}

// userHZ turns counter ticks into USER_HZ clock ticks.
func userHZ(ticks uint64) uint64 { return uint64(timer.TicksToNanos(ticks)) / (1e9 / procUserHZ) }

// idleNanos is the time core i spent idle.
func idleNanos(i int) uint64 { return uint64(timer.TicksToNanos(sched.CPUs[i].IdleTicks)) }

// processOfTID is procfs.ProcessOf: the PID of live thread tid's
// process, or 0.
func processOfTID(tid int32) int32 {
	for i := range sched.Active() {
		t := &sched.Threads[i]
		if t.TID == tid && t.State != sched.Free && t.State != sched.Dead {
			return pidOf(t)
		}
	}
	return 0
}

// writeProc is fs.SynthWrite: /proc/sysrq-trigger and gpio-mockup's
// line files are the files written.
func writeProc(i int32, buf uintptr, count uint64) uint64 {
	if fs.Inodes[i].Synth.Kind == procfs.KSysrqTrigger {
		return writeSysrqTrigger(buf, count)
	}
	if fs.Inodes[i].Synth.Kind == sysfs.KMockupLine {
		return writeMockupLine(fs.Inodes[i].Synth.Arg, buf, count)
	}
	return vfs.Err(unix.EIO)
}

// procUserHZ is the clock tick /proc counts in (USER_HZ, AT_CLKTCK).
const procUserHZ = 100

// procOfPID is the slot of process pid, or -1.
func procOfPID(pid int32) int32 { return proc.ByPID(pid) }

// readProc is fs.SynthRead.
func readProc(i int32, buf uintptr, count uint64, off int64) uint64 {
	s := fs.Inodes[i].Synth
	slot := int32(-1)
	if s.PID != 0 && !sysfs.Is(s.Kind) { // sysfs's PID field is an ifindex
		if slot = procOfPID(s.PID); slot < 0 {
			return vfs.Err(unix.ESRCH) // the process is gone (Linux: ESRCH too)
		}
	}
	switch s.Kind {
	case procfs.KCmdline:
		sp := spaceOfProc(slot)
		if sp == nil {
			return 0
		}
		return readProcMemory(sp, sp.ArgStart, sp.ArgEnd, buf, count, off)
	case procfs.KEnviron:
		sp := spaceOfProc(slot)
		if sp == nil {
			return 0
		}
		return readProcMemory(sp, sp.EnvStart, sp.EnvEnd, buf, count, off)
	}
	o := &procfs.Out
	o.Reset()
	switch s.Kind {
	case procfs.KStat:
		procStat(o, slot, s.Arg)
	case procfs.KStatus:
		procStatus(o, slot, s.Arg)
	case procfs.KComm:
		o.Raw(commOf(slot, s.Arg)).Byte('\n')
	case procfs.KMaps:
		procMaps(o, slot)
	case procfs.KPidMounts:
		procMounts(o)
	case procfs.KMountinfo:
		mount.WriteMountinfo(o)
	case procfs.KMeminfo:
		procMeminfo(o)
	case procfs.KUptime:
		up := uint64(clock.Monotonic()) / 1e7 // hundredths of a second
		o.Frac(up).Byte(' ').Frac(idleHundredths()).Byte('\n')
	case procfs.KLoadavg:
		procLoadavg(o)
	case procfs.KKernelCmdline:
		o.Raw(kernel.Cmdline()).Byte('\n')
	case procfs.KSysStat:
		procSysStat(o)
	case procfs.KCpuinfo:
		procCpuinfo(o)
	case procfs.KFilesystems:
		o.Str("nodev\tsysfs\nnodev\ttmpfs\nnodev\tproc\nnodev\tdevtmpfs\nnodev\tdevpts\n\text4\nnodev\t9p\n") // registration order; ext4 has a device
	case procfs.KPartitions:
		procPartitions(o)
	case procfs.KVersion:
		o.Str("Linux version ").Str(unameRelease).Str(" (gometal) (").Str("Go, the gometal kernel").Str(") ").Str(unameVersion).Byte('\n')
	default:
		if sysfs.Is(s.Kind) {
			readSys(o, s.Kind, s.PID, s.Arg)
		}
	}
	if off < 0 {
		off = 0
	}
	var chunk [512]byte
	done := uint64(0)
	for done < count {
		n := procfs.Window(chunk[:min(count-done, uint64(len(chunk)))], off+int64(done))
		if n == 0 {
			break
		}
		if !usermem.CopyOut(buf+uintptr(done), chunk[:n]) {
			if done > 0 {
				break
			}
			return vfs.Err(unix.EFAULT)
		}
		done += uint64(n)
	}
	return done
}

// spaceOfProc is a live process's address space, or nil (a zombie has
// none: its cmdline reads empty, as on Linux).
func spaceOfProc(slot int32) *mm.Space {
	p := &proc.Procs[slot]
	if p.State != proc.Live || p.MM < 0 {
		return nil
	}
	return &mm.Spaces[p.MM]
}

// readProcMemory reads [start, end) of another process's memory from
// off on: /proc/PID/cmdline and environ, as Linux's access_remote_vm.
func readProcMemory(s *mm.Space, start, end uintptr, buf uintptr, count uint64, off int64) uint64 {
	if off < 0 {
		off = 0
	}
	if start+uintptr(off) >= end {
		return 0
	}
	n := min(uint64(end-start-uintptr(off)), count)
	var chunk [512]byte
	done := uint64(0)
	for done < n {
		m := min(n-done, uint64(len(chunk)))
		if !usermem.CopyInFrom(s, chunk[:m], start+uintptr(off)+uintptr(done)) {
			break // unmapped by the process meanwhile
		}
		if !usermem.CopyOut(buf+uintptr(done), chunk[:m]) {
			if done > 0 {
				break
			}
			return vfs.Err(unix.EFAULT)
		}
		done += m
	}
	return done
}

// commOf is a process's name, or with tid not 0 that thread's.
func commOf(slot, tid int32) []byte {
	c := proc.Procs[slot].Comm[:]
	for i := range sched.Active() {
		if t := &sched.Threads[i]; tid != 0 && t.TID == tid && liveIn(t, slot) {
			c = lx(t).Comm[:]
		}
	}
	for i, b := range c {
		if b == 0 {
			return c[:i]
		}
	}
	return c
}

// procState is the letter stat and status show for thread tid of the
// process (0: the process, which Linux shows as its leader thread):
// Z a zombie, T stopped, R running or runnable, S asleep (Linux's D,
// uninterruptible, is a vfork parent here too: S).
func procState(slot, tid int32) byte {
	p := &proc.Procs[slot]
	switch {
	case p.State == proc.Zombie:
		return 'Z'
	case lprocs[slot].Stopped:
		return 'T'
	}
	if tid == 0 {
		tid = p.PID
	}
	state := byte('S')
	for i := range sched.Active() {
		t := &sched.Threads[i]
		if !liveIn(t, slot) || t.TID != tid {
			continue
		}
		if t.State == sched.Running || t.State == sched.Runnable {
			state = 'R'
		}
	}
	return state
}

// procCore is the core the process's first live thread last ran on.
func procCore(slot int32) int {
	for i := range sched.Active() {
		if t := &sched.Threads[i]; liveIn(t, slot) {
			return int(t.CPU)
		}
	}
	return 0
}

// stateName is status's State line.
func stateName(c byte) string {
	switch c {
	case 'R':
		return "R (running)"
	case 'T':
		return "T (stopped)"
	case 'Z':
		return "Z (zombie)"
	}
	return "S (sleeping)"
}

func ppidOf(slot int32) int64 {
	if par := proc.Procs[slot].Parent; par != proc.NoParent {
		return int64(proc.Procs[par].PID)
	}
	return 0
}

// sigSets are a process's signal sets as stat and status show them:
// pending (the first thread's and the process's), blocked (the first
// thread's), ignored and caught.
func sigSets(slot int32) (pend, shdPend, blocked, ignored, caught uint64) {
	shdPend = lprocs[slot].Pending
	for i := range sched.Active() {
		if t := &sched.Threads[i]; liveIn(t, slot) {
			pend, blocked = lx(t).SigPending, lx(t).SigMask
			break
		}
	}
	if proc.Procs[slot].State == proc.Live {
		acts := &sigHands[proc.Procs[slot].SigHand].Actions
		for sig := 1; sig < nsig; sig++ {
			switch acts[sig].handler {
			case sigIGN:
				ignored |= sigBit(sig)
			case sigDFL:
			default:
				caught |= sigBit(sig)
			}
		}
	}
	return
}

// vmStats sums a process's mappings: virtual size, and where its code
// (the lowest executable mapping that is not the kernel's) lies. The
// VMAs are read under the space's lock: the process's threads map and
// unmap without the kernel lock.
func vmStats(s *mm.Space) (size, startCode, endCode uintptr) {
	s.Lock()
	for k := 0; k < s.VMAs.Len(); k++ {
		v := s.VMAs.At(k)
		size += v.End - v.Start
		if v.Prot&mm.ProtExec != 0 && v.Flags&mm.VMAFixed == 0 && startCode == 0 {
			startCode, endCode = v.Start, v.End
		}
	}
	s.Unlock()
	return
}

// procStat is /proc/PID/stat: Linux 6.1's 52 fields (do_task_stat).
// A process's run time is its utime (cputime_arm64.go: stime is 0); the
// fault counts are 0.
func procStat(o *procfs.Buf, slot, tid int32) {
	p := &proc.Procs[slot]
	id := p.PID
	if tid != 0 {
		id = tid // a thread's own stat: its ID first
	}
	st := procState(slot, tid)
	pend, shd, blocked, ign, caught := sigSets(slot)
	var vsize, startCode, endCode, rss uintptr
	var brk, argS, argE, envS, envE uintptr
	if s := spaceOfProc(slot); s != nil {
		vsize, startCode, endCode = vmStats(s)
		rss = uintptr(s.Resident)
		brk, argS, argE, envS, envE = s.Brk, s.ArgStart, s.ArgEnd, s.EnvStart, s.EnvEnd
	}
	o.Dec(int64(id)).Str(" (").Raw(commOf(slot, tid)).Str(") ").Byte(st).Byte(' ')
	o.Dec(ppidOf(slot)).Byte(' ').Dec(int64(p.PGID)).Byte(' ').Dec(int64(p.SID)).Byte(' ')
	// tty_nr, tpgid: the controlling terminal (the console, 5:1, in
	// new_encode_dev's form) and its foreground group, or 0 and -1.
	if tm := cttyOf(p); tm != nil {
		o.Dec(int64(ttyNr(ttyRdev(tm)))).Byte(' ').Dec(int64(tm.Pgrp)).Byte(' ')
	} else {
		o.Str("0 -1 ")
	}
	o.Str("4194560 ") // flags: PF_FORKNOEXEC|PF_RANDOMIZE-like, as Linux shows a user task
	o.Str("0 0 0 0 ") // minflt cminflt majflt cmajflt
	run := procCPUTicks(slot, timer.Now())
	if tid != 0 {
		if th := sched.ByTID(tid); th != nil {
			run = th.CPUTime(timer.Now())
		}
	}
	o.Udec(userHZ(run)).Str(" 0 ").Udec(userHZ(lprocs[slot].ChildTicks)).Str(" 0 ") // utime stime cutime cstime
	o.Str("20 0 ")                                                                  // priority, nice
	o.Dec(int64(p.Threads)).Str(" 0 ")                                              // num_threads, itrealvalue
	o.Udec(uint64(lprocs[slot].Start / (1e9 / procUserHZ))).Byte(' ')
	o.Udec(uint64(vsize)).Byte(' ').Udec(uint64(rss)).Str(" 18446744073709551615 ")
	o.Udec(uint64(startCode)).Byte(' ').Udec(uint64(endCode)).Byte(' ').Udec(mm.StackTop).Str(" 0 0 ")
	o.Udec(pend | shd).Byte(' ').Udec(blocked).Byte(' ').Udec(ign).Byte(' ').Udec(caught).Str(" 0 0 0 ")
	o.Dec(int64(p.ExitSignal)).Byte(' ').Dec(int64(procCore(slot))).Str(" 0 0 0 0 0 ")
	o.Udec(0).Byte(' ').Udec(0).Byte(' ').Udec(uint64(brk)).Byte(' ')
	o.Udec(uint64(argS)).Byte(' ').Udec(uint64(argE)).Byte(' ').Udec(uint64(envS)).Byte(' ').Udec(uint64(envE)).Byte(' ')
	exit := int64(0)
	if p.State == proc.Zombie {
		exit = int64(p.Status)
	}
	o.Dec(exit).Byte('\n')
}

// procStatus is /proc/PID/status, the lines of Linux 6.1's
// proc_pid_status that describe what gometal has.
func procStatus(o *procfs.Buf, slot, tid int32) {
	p := &proc.Procs[slot]
	id := p.PID
	if tid != 0 {
		id = tid
	}
	pend, shd, blocked, ign, caught := sigSets(slot)
	o.Str("Name:\t").Raw(commOf(slot, tid)).Byte('\n')
	umask := uint32(0o022)
	if p.State == proc.Live {
		umask = proc.FSContexts[p.FS].Umask
	}
	o.Str("Umask:\t").Oct(uint64(umask), 4).Byte('\n')
	o.Str("State:\t").Str(stateName(procState(slot, tid))).Byte('\n')
	o.Str("Tgid:\t").Dec(int64(p.PID)).Str("\nNgid:\t0\nPid:\t").Dec(int64(id))
	o.Str("\nPPid:\t").Dec(ppidOf(slot)).Str("\nTracerPid:\t0\n")
	c := &p.Cred
	o.Str("Uid:\t").Udec(uint64(c.User.R)).Byte('\t').Udec(uint64(c.User.E)).Byte('\t').Udec(uint64(c.User.S)).Byte('\t').Udec(uint64(c.User.FS)).Byte('\n')
	o.Str("Gid:\t").Udec(uint64(c.Group.R)).Byte('\t').Udec(uint64(c.Group.E)).Byte('\t').Udec(uint64(c.Group.S)).Byte('\t').Udec(uint64(c.Group.FS)).Byte('\n')
	o.Str("FDSize:\t").Dec(proc.MaxFDs).Str("\nGroups:\t")
	for k := 0; k < int(c.NGroups); k++ {
		o.Udec(uint64(c.Groups[k])).Byte(' ')
	}
	o.Str("\nNStgid:\t").Dec(int64(p.PID)).Str("\nNSpid:\t").Dec(int64(p.PID))
	o.Str("\nNSpgid:\t").Dec(int64(p.PGID)).Str("\nNSsid:\t").Dec(int64(p.SID)).Byte('\n')
	if s := spaceOfProc(slot); s != nil {
		size, _, _ := vmStats(s)
		o.Str("VmSize:\t").Pad(uint64(size>>10), 8).Str(" kB\nVmRSS:\t").Pad(uint64(s.Resident)*mm.PageSize>>10, 8).Str(" kB\n")
	}
	o.Str("Threads:\t").Dec(int64(p.Threads)).Byte('\n')
	o.Str("SigQ:\t0/").Dec(rlimitSigPending).Byte('\n')
	o.Str("SigPnd:\t").Hex(pend, 16).Str("\nShdPnd:\t").Hex(shd, 16)
	o.Str("\nSigBlk:\t").Hex(blocked, 16).Str("\nSigIgn:\t").Hex(ign, 16).Str("\nSigCgt:\t").Hex(caught, 16)
	o.Str("\nCapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\nCapEff:\t000001ffffffffff\nCapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\n")
	o.Str("Cpus_allowed_list:\t0-").Dec(int64(sched.OnlineCPUs() - 1)).Byte('\n')
}

// rlimitSigPending is RLIMIT_SIGPENDING as getrlimit reports it.
const rlimitSigPending = 7823

// mapsPath holds a mapped file's path for procMaps (under the kernel
// lock).
var mapsPath [fs.PathMax]byte

// procMaps is /proc/PID/maps (show_map_vma): a line per mapping, the
// kernel's pages named as Linux names its vDSO.
func procMaps(o *procfs.Buf, slot int32) {
	s := spaceOfProc(slot)
	if s == nil {
		return
	}
	lp := &lprocs[slot]
	s.Lock() // as vmStats: the VMAs change without the kernel lock
	for k := 0; k < s.VMAs.Len(); k++ {
		v := s.VMAs.At(k)
		start := o.Len()
		o.Hex(uint64(v.Start), 8).Byte('-').Hex(uint64(v.End), 8).Byte(' ')
		perm := [4]byte{'-', '-', '-', 'p'}
		if v.Flags&mm.VMAShared != 0 {
			perm[3] = 's'
		}
		if v.Prot&mm.ProtRead != 0 {
			perm[0] = 'r'
		}
		if v.Prot&mm.ProtWrite != 0 {
			perm[1] = 'w'
		}
		if v.Prot&mm.ProtExec != 0 {
			perm[2] = 'x'
		}
		o.Raw(perm[:]).Byte(' ')
		var name []byte
		if v.File != 0 {
			// A file mapping: its offset, device (major:minor in hex)
			// and inode, and its path (show_map_vma).
			n := &fs.Inodes[v.File]
			dev := fs.Dev(n.Super)
			o.Hex(uint64(v.Off), 8).Byte(' ').Hex(uint64(unix.Major(dev)), 2).Byte(':').Hex(uint64(unix.Minor(dev)), 2).Byte(' ').Udec(n.Ino)
			if v.Flags&mm.VMAAnonShared != 0 {
				name = []byte("/dev/zero (deleted)") // as Linux names shmem_zero_setup's file
			} else {
				name = mapsPath[:fs.PathOfAny(fs.Path{Mnt: v.Mnt, Ino: v.File}, mapsPath[:])]
			}
		} else {
			o.Str("00000000 00:00 0")
		}
		switch {
		case v.File != 0:
		case v.Flags&mm.VMAStack != 0:
			name = []byte("[stack]")
		case v.Flags&mm.VMAFixed != 0 && v.Start == vdsoVA:
			name = []byte("[vdso]")
		case v.Flags&mm.VMAFixed != 0:
			name = []byte("[sigpage]")
		case v.Start < mm.MmapBottom && lp.ExeLen > 0:
			name = lp.ExePath[:lp.ExeLen] // the program's image
		}
		if len(name) > 0 {
			for o.Len()-start < 73 {
				o.Byte(' ')
			}
			o.Raw(name)
		}
		o.Byte('\n')
	}
	s.Unlock()
}

// procMounts is /proc/mounts and /proc/PID/mounts.
func procMounts(o *procfs.Buf) { mount.WriteMounts(o) }

// meminfoLine is one line of /proc/meminfo: the name padded to 16
// columns, kB right-aligned in 8 (show_val_kb).
func meminfoLine(o *procfs.Buf, name string, pages uint64) {
	n := o.Len()
	o.Str(name).Byte(':')
	for o.Len()-n < 16 {
		o.Byte(' ')
	}
	o.Pad(pages*mm.PageSize>>10, 8).Str(" kB\n")
}

// procMeminfo is /proc/meminfo: the lines tools read (free, top, Go's
// tests), from the page allocator; with no swap, Cached is the tmpfs
// pages (Shmem, which cannot be dropped) and the backed files' pages
// (which can: they are available). Buffers is the buffer cache.
// Mapped: file pages an address space maps.
func procMeminfo(o *procfs.Buf) {
	total := uint64(mm.Pages.Total())
	free := total - uint64(mm.Pages.Used())
	shmem := uint64(fs.DataPages())
	cache := uint64(fs.CachePages())
	buffers := uint64(bcache.Cached())
	meminfoLine(o, "MemTotal", total)
	meminfoLine(o, "MemFree", free)
	meminfoLine(o, "MemAvailable", free+cache)
	meminfoLine(o, "Buffers", buffers)
	meminfoLine(o, "Cached", shmem+cache)
	meminfoLine(o, "SwapCached", 0)
	meminfoLine(o, "Mapped", uint64(fs.MappedPages()))
	meminfoLine(o, "Shmem", shmem)
	meminfoLine(o, "SReclaimable", 0)
	meminfoLine(o, "SwapTotal", 0)
	meminfoLine(o, "SwapFree", 0)
}

// idleHundredths is /proc/uptime's second figure: the cores' idle time
// summed, in hundredths of a second.
func idleHundredths() uint64 {
	var ns uint64
	for i := range sched.CPUs {
		ns += idleNanos(i)
	}
	return ns / 1e7
}

// procLoadavg is /proc/loadavg: the load averages (sched.LoadAvg,
// kernel/sched/loadavg.c's), the runnable and total thread counts and
// the last PID (loadavg_proc_show).
func procLoadavg(o *procfs.Buf) {
	run, all := 0, 0
	for i := range sched.Active() {
		t := &sched.Threads[i]
		if t.State == sched.Free || t.State == sched.Dead {
			continue
		}
		all++
		if t.State == sched.Running || t.State == sched.Runnable {
			run++
		}
	}
	for i := range sched.LoadAvg {
		// LOAD_INT and LOAD_FRAC, with the rounding of loadavg_proc_show.
		l := sched.LoadAvg[i].Load() + sched.FixedOne/200
		o.Udec(l >> sched.FShift).Byte('.')
		if frac := (l & (sched.FixedOne - 1)) * 100 >> sched.FShift; frac < 10 {
			o.Byte('0').Udec(frac)
		} else {
			o.Udec(frac)
		}
		o.Byte(' ')
	}
	o.Dec(int64(run)).Byte('/').Dec(int64(all)).Byte(' ').Dec(int64(sched.LastTID())).Byte('\n')
}

// procSysStat is /proc/stat: per core, idle time (the rest counted as
// user time: gometal does not split it yet), then the counts.
func procSysStat(o *procfs.Buf) {
	up := uint64(clock.Monotonic()) / (1e9 / procUserHZ)
	n := sched.OnlineCPUs()
	var idleAll uint64
	for i := 0; i < n; i++ {
		idleAll += idleNanos(i) / (1e9 / procUserHZ)
	}
	busy := up*uint64(n) - min(idleAll, up*uint64(n))
	o.Str("cpu  ").Udec(busy).Str(" 0 0 ").Udec(idleAll).Str(" 0 0 0 0 0 0\n")
	for i := 0; i < n; i++ {
		idle := min(idleNanos(i)/(1e9/procUserHZ), up)
		o.Str("cpu").Dec(int64(i)).Byte(' ').Udec(up - idle).Str(" 0 0 ").Udec(idle).Str(" 0 0 0 0 0 0\n")
	}
	o.Str("intr 0\nctxt 0\nbtime ").Dec(clock.Wall() / 1e9)
	o.Str("\nprocesses ").Udec(procStats.Forks + 1)
	run, all := 0, 0
	for i := range sched.Active() {
		if t := &sched.Threads[i]; t.State == sched.Running || t.State == sched.Runnable {
			run++
		} else if t.State == sched.Blocked {
			all++
		}
	}
	o.Str("\nprocs_running ").Dec(int64(run)).Str("\nprocs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n")
}

// procCpuinfo is /proc/cpuinfo as arm64 Linux prints it (c_show).
func procCpuinfo(o *procfs.Buf) {
	midr := cpu.ReadMIDR()
	h, _ := hwcaps()
	for i := 0; i < sched.OnlineCPUs(); i++ {
		o.Str("processor\t: ").Dec(int64(i)).Str("\nBogoMIPS\t: 125.00\nFeatures\t:")
		for b, name := range hwcapNames {
			if h&(1<<uint(b)) != 0 && name != "" {
				o.Byte(' ').Str(name)
			}
		}
		o.Str("\nCPU implementer\t: 0x").Hex(midr>>24&0xff, 2)
		o.Str("\nCPU architecture: 8\nCPU variant\t: 0x").Hex(midr>>20&0xf, 1)
		o.Str("\nCPU part\t: 0x").Hex(midr>>4&0xfff, 3)
		o.Str("\nCPU revision\t: ").Dec(int64(midr & 0xf)).Str("\n\n")
	}
	if b := &kernel.Board; b.Present {
		// The lines the Raspberry Pi's kernel adds (its arm64
		// cpuinfo.c's c_show): "BCM2835" on every Pi, the revision
		// code and serial the firmware gave, the device tree's model.
		o.Str("Hardware\t: BCM2835\nRevision\t: ").Hex(uint64(b.Revision), 4)
		o.Str("\nSerial\t\t: ").Hex(b.Serial, 16)
		o.Str("\nModel\t\t: ").Raw(kernel.BoardModel()).Byte('\n')
	}
}

// hwcapNames are the AT_HWCAP bits' names in /proc/cpuinfo
// (arch/arm64/kernel/cpuinfo.c), for the bits hwcaps sets.
var hwcapNames = [...]string{
	0: "fp", 1: "asimd", 2: "evtstrm", 3: "aes", 4: "pmull", 5: "sha1", 6: "sha2", 7: "crc32",
	8: "atomics", 12: "asimdrdm", 17: "sha3", 20: "asimddp", 21: "sha512",
}

// procLink is fs.SynthLink: a /proc link's target into fs.LinkBuf.
func procLink(i int32) int {
	s := fs.Inodes[i].Synth
	b := fs.LinkBuf[:]
	if s.Kind == procfs.KSelf {
		var d [12]byte
		return copy(b, procfs.Decimal(d[:], int64(pidOf(current()))))
	}
	return procLinkOf(s, b)
}

// procLinkOf makes the target of a process's link.
func procLinkOf(s fs.Synth, b []byte) int {
	var tmp [24]byte
	put := func(p []byte) int { return copy(b, p) }
	switch s.Kind {
	case procfs.KMounts:
		return put([]byte("self/mounts"))
	case procfs.KDeviceTree:
		return put([]byte("/sys/firmware/devicetree/base")) // as Linux's proc_device_tree link
	}
	slot := procOfPID(s.PID)
	if slot < 0 || proc.Procs[slot].State != proc.Live {
		return 0 // gone: an empty target reads as ENOENT
	}
	p := &proc.Procs[slot]
	switch s.Kind {
	case procfs.KExe:
		lp := &lprocs[slot]
		return put(lp.ExePath[:lp.ExeLen])
	case procfs.KRootLink:
		n, e := fs.PathOf(rootOf(&proc.FSContexts[p.FS]), b)
		if e != 0 {
			return 0
		}
		return n
	case procfs.KCwd:
		c := &proc.FSContexts[p.FS]
		n, e := fs.PathOf(fs.Path{Mnt: c.CwdMnt, Ino: c.Cwd}, b)
		if e != 0 {
			return 0
		}
		return n
	case procfs.KFd:
		ft := &proc.FDTables[p.Files]
		fi := ft.Slots[s.Arg].File
		if fi == 0 {
			return 0
		}
		return fileLink(&vfs.Files[fi-1], b, tmp[:])
	}
	return 0
}

// fileLink is what /proc/PID/fd/N reads for an open description: a
// file's path, else Linux's "type:[inode]" names.
func fileLink(f *vfs.File, b, tmp []byte) int {
	switch f.Impl.Kind() {
	case vfs.KindFile, vfs.KindDir:
		if n, ok := f.Impl.(*fs.Inode); ok {
			return fs.PathOfAny(fs.Path{Mnt: fs.MountOf(f), Ino: n.Index()}, b)
		}
	case vfs.KindConsole:
		// A pty's slave is /dev/pts/N (what ttyname finds); its master
		// /dev/ptmx, as Linux's link to the ptmx node it was opened by.
		if tm, ok := f.Impl.(*tty.Terminal); ok && tm.PtyOf() != nil {
			n := copy(b, "/dev/pts/")
			return n + copy(b[n:], procfs.Decimal(tmp, int64(tm.PtyOf().N())))
		}
		if _, ok := f.Impl.(*tty.Pty); ok {
			return copy(b, "/dev/ptmx")
		}
		return copy(b, "/dev/console")
	case vfs.KindPipe:
		n := copy(b, "pipe:[")
		st := f.Impl.Stat(f)
		n += copy(b[n:], procfs.Decimal(tmp, int64(st.Ino)))
		return n + copy(b[n:], "]")
	case vfs.KindSocket:
		n := copy(b, "socket:[")
		st := f.Impl.Stat(f)
		n += copy(b[n:], procfs.Decimal(tmp, int64(st.Ino)))
		return n + copy(b[n:], "]")
	case vfs.KindEventfd:
		return copy(b, "anon_inode:[eventfd]")
	case vfs.KindTimerfd:
		return copy(b, "anon_inode:[timerfd]")
	case vfs.KindEpoll:
		return copy(b, "anon_inode:[eventpoll]")
	case vfs.KindPidfd:
		return copy(b, "anon_inode:[pidfd]")
	case vfs.KindDevice:
		// A device description's node (memory devices, /dev/kmsg).
		return fs.PathOfAny(fs.Path{Mnt: fs.MountOf(f), Ino: devNodes[f.Index()]}, b)
	}
	return copy(b, "anon_inode:[unknown]")
}

// ttyNr encodes device number dev (major<<8 | minor here) as
// /proc/PID/stat's tty_nr: new_encode_dev's minor low byte, major, then
// the minor's high bits.
// ttyRdev is terminal tm's device number: the console's 5:1 or a pty
// slave's 136:N.
func ttyRdev(tm *tty.Terminal) uint32 {
	if p := tm.PtyOf(); p != nil {
		return tty.SlaveRdev(p.N())
	}
	return tty.Rdev
}

func ttyNr(dev uint32) uint32 {
	major, minor := dev>>8, dev&0xff
	return minor&0xff | major<<8 | (minor&^0xff)<<12
}
