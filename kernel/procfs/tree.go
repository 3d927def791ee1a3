package procfs

import (
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Kinds of /proc inode (fs.Synth.Kind).
const (
	KRoot uint8 = iota + 1 // /proc
	KSelf                  // /proc/self -> <pid>
	KPid                   // /proc/<pid>
	KStat                  // /proc/<pid>/stat
	KStatus
	KCmdline
	KEnviron
	KComm
	KMaps
	KPidMounts
	KExe // -> the program's path
	KCwd // -> the working directory
	KRootLink
	KFdDir
	KFd      // /proc/<pid>/fd/<n> -> what descriptor n names
	KTaskDir // /proc/<pid>/task: a directory per thread
	KMeminfo
	KUptime
	KLoadavg
	KKernelCmdline
	KSysStat
	KCpuinfo
	KMounts // -> self/mounts
	KFilesystems
	KVersion
	KSysrqTrigger // write a SysRq command's key
	KMountinfo    // /proc/<pid>/mountinfo
	KPartitions   // the disks and their partitions (kernel/block)
	KDeviceTree   // -> /sys/firmware/devicetree/base
)

const (
	modeFile = unix.S_IFREG | 0o444
	modeLink = unix.S_IFLNK | 0o777
	modeDir  = unix.S_IFDIR | 0o555
)

// entry is a name a /proc directory always holds.
type entry struct {
	name string
	mode uint32
	kind uint8
}

// rootEntries are /proc's own files (the process directories come and
// go: Refresh).
var rootEntries = [...]entry{
	{"self", modeLink, KSelf},
	{"meminfo", modeFile, KMeminfo},
	{"uptime", modeFile, KUptime},
	{"loadavg", modeFile, KLoadavg},
	{"cmdline", modeFile, KKernelCmdline},
	{"stat", modeFile, KSysStat},
	{"cpuinfo", modeFile, KCpuinfo},
	{"mounts", modeLink, KMounts},
	{"device-tree", modeLink, KDeviceTree},
	{"filesystems", modeFile, KFilesystems},
	{"partitions", modeFile, KPartitions},
	{"version", modeFile, KVersion},
	{"sysrq-trigger", unix.S_IFREG | 0o200, KSysrqTrigger},
}

// pidEntries are what each /proc/<pid> holds, with Linux's modes.
var pidEntries = [...]entry{
	{"stat", modeFile, KStat},
	{"status", modeFile, KStatus},
	{"cmdline", modeFile, KCmdline},
	{"environ", unix.S_IFREG | 0o400, KEnviron},
	{"comm", unix.S_IFREG | 0o644, KComm},
	{"maps", modeFile, KMaps},
	{"mounts", modeFile, KPidMounts},
	{"mountinfo", modeFile, KMountinfo},
	{"exe", modeLink, KExe},
	{"cwd", modeLink, KCwd},
	{"root", modeLink, KRootLink},
	{"fd", unix.S_IFDIR | 0o500, KFdDir},
	{"task", modeDir, KTaskDir},
}

// Root is /proc's root inode and Super its instance once Instance made
// them (0 before).
var (
	Root  int32
	Super uint8
)

// ProcessOf is the layer above's answer to which process a live thread
// belongs to: its PID for thread tid, 0 if no such thread lives (kernel/
// linux sets it; threads are sched's, their processes Linux's).
var ProcessOf func(tid int32) int32

// A thread's directory (/proc/<pid>/task/<tid>, and /proc/<tid> for a
// thread that does not lead its process, found but not listed) is a
// process directory with the thread's TID in Synth.Arg: its files tell
// of the process, with the thread's own ID and state where Linux's do.

// Instance is /proc's file-system instance, made the first time it is
// asked for: every mount of proc shows this one (one PID namespace).
func Instance() (uint8, unix.Errno) {
	if Root == 0 {
		sb, r, e := fs.NewSynthRoot(fs.TypeProc, fs.Synth{Kind: KRoot})
		if e != 0 {
			return 0, e
		}
		for _, en := range rootEntries {
			if _, e := fs.MakeSynth(r, []byte(en.name), en.mode, fs.Synth{Kind: en.kind, Writable: en.mode&0o222 != 0}); e != 0 {
				return 0, e
			}
		}
		Root, Super = r, sb
		fs.SynthRefresh = Refresh
		fs.SynthLookup = Lookup
	}
	return Super, 0
}

// Refresh is fs.SynthRefresh: /proc gets a directory for every process
// in the table (zombies too, as on Linux) and loses those of processes
// reaped; a process's fd directory gets a link for every descriptor
// its table holds and loses those closed.
func Refresh(dir int32) {
	switch s := fs.Inodes[dir].Synth; s.Kind {
	case KRoot:
		refreshRoot(dir)
	case KFdDir:
		refreshFDs(dir, s.PID)
	case KTaskDir:
		refreshTasks(dir, s.PID)
	}
}

// Lookup is fs.SynthLookup: /proc/<tid> of a thread that does not lead
// its process is made when looked up, hidden from listings, as Linux's
// proc_pid_lookup finds any task by its ID.
func Lookup(dir int32, n int) {
	nm := fs.SynthName[:n]
	if fs.Inodes[dir].Synth.Kind != KRoot {
		return
	}
	tid, ok := parseDecimal(nm)
	if !ok || ProcessOf == nil {
		return
	}
	pid := ProcessOf(tid)
	if pid == 0 || pid == tid {
		return
	}
	makePidDir(dir, nm, fs.Synth{Kind: KPid, Hidden: true, PID: pid, Arg: tid})
}

// parseDecimal reads a positive PID.
func parseDecimal(nm []byte) (int32, bool) {
	v := int64(0)
	for _, c := range nm {
		if c < '0' || c > '9' || v > 1<<31 {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return int32(v), len(nm) > 0 && v > 0 && v < 1<<31
}

// makePidDir makes a process (or thread) directory named nm with its
// entries, each about s.PID (and thread s.Arg).
func makePidDir(dir int32, nm []byte, s fs.Synth) bool {
	pd, e := fs.MakeSynth(dir, nm, modeDir, s)
	if e != 0 {
		return false
	}
	for _, en := range pidEntries {
		if en.kind == KTaskDir && s.Arg != 0 {
			continue // a thread's directory has no task/ of its own here
		}
		if _, e := fs.MakeSynth(pd, []byte(en.name), en.mode, fs.Synth{Kind: en.kind, PID: s.PID, Arg: s.Arg}); e != 0 {
			return false
		}
	}
	return true
}

// refreshTasks keeps /proc/<pid>/task to the process's live threads.
func refreshTasks(dir, pid int32) {
	var nm [12]byte
	fs.SynthEntries(dir, func(i int32, name []byte) bool {
		if tid := fs.Inodes[i].Synth.Arg; ProcessOf(tid) != pid {
			fs.RemoveSynth(dir, name)
		}
		return true
	})
	for i := range sched.Active() {
		t := &sched.Threads[i]
		if t.State == sched.Free || t.State == sched.Dead || ProcessOf(t.TID) != pid {
			continue
		}
		name := Decimal(nm[:], int64(t.TID))
		if fs.LookupIn(dir, name) < 0 && !makePidDir(dir, name, fs.Synth{Kind: KPid, PID: pid, Arg: t.TID}) {
			return
		}
	}
}

func refreshRoot(dir int32) {
	var nm [12]byte
	fs.SynthEntries(dir, func(i int32, name []byte) bool {
		s := fs.Inodes[i].Synth
		if s.Kind == KPid && (proc.ByPID(s.PID) < 0 || s.Hidden && ProcessOf(s.Arg) != s.PID) {
			fs.RemoveSynth(dir, name)
		}
		return true
	})
	for i := range proc.Procs {
		p := &proc.Procs[i]
		if p.State == proc.Free {
			continue
		}
		name := Decimal(nm[:], int64(p.PID))
		if fs.LookupIn(dir, name) >= 0 {
			continue
		}
		if !makePidDir(dir, name, fs.Synth{Kind: KPid, PID: p.PID}) {
			return // out of inodes: the listing shows what fits
		}
	}
}

func refreshFDs(dir, pid int32) {
	var nm [12]byte
	slot := proc.ByPID(pid)
	var ft *proc.FDTable
	if slot >= 0 && proc.Procs[slot].State == proc.Live {
		ft = &proc.FDTables[proc.Procs[slot].Files]
	}
	fs.SynthEntries(dir, func(i int32, name []byte) bool {
		if fd := fs.Inodes[i].Synth.Arg; ft == nil || ft.Slots[fd].File == 0 {
			fs.RemoveSynth(dir, name)
		}
		return true
	})
	if ft == nil {
		return
	}
	for fd := range ft.Slots {
		if ft.Slots[fd].File == 0 {
			continue
		}
		name := Decimal(nm[:], int64(fd))
		if fs.LookupIn(dir, name) >= 0 {
			continue
		}
		if _, e := fs.MakeSynth(dir, name, unix.S_IFLNK|0o700, fs.Synth{Kind: KFd, PID: pid, Arg: int32(fd)}); e != 0 {
			return
		}
	}
}
