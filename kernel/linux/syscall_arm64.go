package linux

import (
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/tty"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"
	"github.com/gometal/gometal/sched/trace"

	"golang.org/x/sys/unix"
)

// A syscall handler gets the calling thread and its live frame (arguments
// in X0-X5) and returns the value for X0: a result, or -errno. A handler
// that blocks the thread calls sched.Block; its return value is then
// ignored and the waker or the timeout supplies X0.
type sysFn func(t *sched.Thread, f *sched.Frame) uint64

// sysTable maps arm64 syscall numbers (include/uapi/asm-generic/unistd.h)
// to handlers. The handlers live in sys_<area>.go.
var sysTable = [...]sysFn{
	unix.SYS_GETCWD:            sysGetcwd,
	unix.SYS_MOUNT:             sysMount,
	unix.SYS_GETRUSAGE:         sysGetrusage,
	unix.SYS_TIMES:             sysTimes,
	unix.SYS_UMOUNT2:           sysUmount2,
	unix.SYS_STATFS:            sysStatfs,
	unix.SYS_CHROOT:            sysChroot,
	unix.SYS_SYSLOG:            sysSyslog,
	unix.SYS_FLOCK:             sysFlock,
	unix.SYS_CAPGET:            sysCapget,
	unix.SYS_CAPSET:            sysCapset,
	unix.SYS_PPOLL:             sysPpoll,
	unix.SYS_PSELECT6:          sysPselect6,
	unix.SYS_FSTATFS:           sysFstatfs,
	unix.SYS_EVENTFD2:          sysEventfd2,
	unix.SYS_EPOLL_CREATE1:     sysEpollCreate1,
	unix.SYS_EPOLL_CTL:         sysEpollCtl,
	unix.SYS_EPOLL_PWAIT:       sysEpollPwait,
	unix.SYS_EPOLL_PWAIT2:      sysEpollPwait2,
	unix.SYS_TIMERFD_CREATE:    sysTimerfdCreate,
	unix.SYS_TIMERFD_SETTIME:   sysTimerfdSettime,
	unix.SYS_TIMERFD_GETTIME:   sysTimerfdGettime,
	unix.SYS_DUP:               sysDup,
	unix.SYS_DUP3:              sysDup3,
	unix.SYS_FCNTL:             sysFcntl,
	unix.SYS_IOCTL:             sysIoctl,
	unix.SYS_MKDIRAT:           sysMkdirat,
	unix.SYS_UNLINKAT:          sysUnlinkat,
	unix.SYS_RENAMEAT:          sysRenameat,
	unix.SYS_RENAMEAT2:         sysRenameat2,
	unix.SYS_SYMLINKAT:         sysSymlinkat,
	unix.SYS_LINKAT:            sysLinkat,
	unix.SYS_FTRUNCATE:         sysFtruncate,
	unix.SYS_FALLOCATE:         sysFallocate,
	unix.SYS_TRUNCATE:          sysTruncate,
	unix.SYS_FCHMOD:            sysFchmod,
	unix.SYS_FCHMODAT:          sysFchmodat,
	unix.SYS_FCHMODAT2:         sysFchmodat2,
	unix.SYS_WAIT4:             sysWait4,
	unix.SYS_MKNODAT:           sysMknodat,
	unix.SYS_WAITID:            sysWaitid,
	unix.SYS_FCHOWN:            sysFchown,
	unix.SYS_FCHOWNAT:          sysFchownat,
	unix.SYS_UTIMENSAT:         sysUtimensat,
	unix.SYS_FDATASYNC:         sysFsync,
	unix.SYS_SYNC:              sysSync,
	unix.SYS_SYNCFS:            sysSyncfs,
	unix.SYS_FACCESSAT:         sysFaccessat,
	unix.SYS_FACCESSAT2:        sysFaccessat2,
	unix.SYS_CHDIR:             sysChdir,
	unix.SYS_FCHDIR:            sysFchdir,
	unix.SYS_OPENAT:            sysOpenat,
	unix.SYS_CLOSE:             sysClose,
	unix.SYS_GETDENTS64:        sysGetdents64,
	unix.SYS_PIPE2:             sysPipe2,
	unix.SYS_LSEEK:             sysLseek,
	unix.SYS_READ:              sysRead,
	unix.SYS_WRITE:             sysWrite,
	unix.SYS_READV:             sysReadv,
	unix.SYS_WRITEV:            sysWritev,
	unix.SYS_PREAD64:           sysPread64,
	unix.SYS_PWRITE64:          sysPwrite64,
	unix.SYS_READLINKAT:        sysReadlinkat,
	unix.SYS_FSTATAT:           sysNewfstatat,
	unix.SYS_FSTAT:             sysFstat,
	unix.SYS_FSYNC:             sysFsync,
	unix.SYS_EXIT:              sysExit,
	unix.SYS_EXIT_GROUP:        sysExitGroup,
	unix.SYS_SET_TID_ADDRESS:   sysSetTidAddress,
	unix.SYS_FUTEX:             sysFutex,
	unix.SYS_SET_ROBUST_LIST:   sysZero,
	unix.SYS_NANOSLEEP:         sysSleep,
	unix.SYS_CLOCK_GETTIME:     sysClockGettime,
	unix.SYS_CLOCK_GETRES:      sysClockGetres,
	unix.SYS_CLOCK_SETTIME:     sysClockSettime,
	unix.SYS_CLOCK_ADJTIME:     sysClockAdjtime,
	unix.SYS_CLOCK_NANOSLEEP:   sysSleep,
	unix.SYS_SCHED_SETAFFINITY: sysSchedSetaffinity,
	unix.SYS_SCHED_GETAFFINITY: sysSchedGetaffinity,
	unix.SYS_SCHED_YIELD:       sysSchedYield,
	unix.SYS_KILL:              sysKill,
	unix.SYS_TKILL:             sysTkill,
	unix.SYS_TGKILL:            sysTgkill,
	unix.SYS_SIGALTSTACK:       sysSigaltstack,
	unix.SYS_RT_SIGACTION:      sysRtSigaction,
	unix.SYS_RT_SIGPROCMASK:    sysRtSigprocmask,
	unix.SYS_RT_SIGRETURN:      sysRtSigreturn,
	unix.SYS_RT_SIGPENDING:     sysRtSigpending,
	unix.SYS_RT_SIGSUSPEND:     sysRtSigsuspend,
	unix.SYS_RT_SIGTIMEDWAIT:   sysRtSigtimedwait,
	unix.SYS_RT_SIGQUEUEINFO:   sysRtSigqueueinfo,
	unix.SYS_RT_TGSIGQUEUEINFO: sysRtTgsigqueueinfo,
	unix.SYS_UNAME:             sysUname,
	unix.SYS_SYSINFO:           sysSysinfo,
	unix.SYS_GETRLIMIT:         sysGetrlimit,
	unix.SYS_SETRLIMIT:         sysSetrlimit,
	unix.SYS_PRLIMIT64:         sysPrlimit64,
	unix.SYS_UMASK:             sysUmask,
	unix.SYS_PRCTL:             sysPrctl,
	unix.SYS_GETCPU:            sysGetcpu,
	unix.SYS_GETTIMEOFDAY:      sysGettimeofday,
	unix.SYS_SETTIMEOFDAY:      sysSettimeofday,
	unix.SYS_ADJTIMEX:          sysAdjtimex,
	unix.SYS_GETPID:            sysGetpid,
	unix.SYS_GETPPID:           sysGetppid,
	unix.SYS_GETPGID:           sysGetpgid,
	unix.SYS_SETPGID:           sysSetpgid,
	unix.SYS_GETSID:            sysGetsid,
	unix.SYS_SETSID:            sysSetsid,
	unix.SYS_GETUID:            sysGetuid,
	unix.SYS_GETEUID:           sysGeteuid,
	unix.SYS_GETGID:            sysGetgid,
	unix.SYS_GETEGID:           sysGetegid,
	unix.SYS_GETGROUPS:         sysGetgroups,
	unix.SYS_SETGROUPS:         sysSetgroups,
	unix.SYS_SETUID:            sysSetuid,
	unix.SYS_SETGID:            sysSetgid,
	unix.SYS_SETREUID:          sysSetreuid,
	unix.SYS_SETREGID:          sysSetregid,
	unix.SYS_SETRESUID:         sysSetresuid,
	unix.SYS_SETRESGID:         sysSetresgid,
	unix.SYS_GETRESUID:         sysGetresuid,
	unix.SYS_GETRESGID:         sysGetresgid,
	unix.SYS_SETFSUID:          sysSetfsuid,
	unix.SYS_SETFSGID:          sysSetfsgid,
	unix.SYS_GETTID:            sysGettid,
	unix.SYS_BRK:               sysBrk,
	unix.SYS_MUNMAP:            sysMunmap,
	unix.SYS_CLONE:             sysClone,
	unix.SYS_CLONE3:            sysClone3,
	unix.SYS_EXECVE:            sysExecve,
	unix.SYS_EXECVEAT:          sysExecveat,
	unix.SYS_PIDFD_OPEN:        sysPidfdOpen,
	unix.SYS_PIDFD_SEND_SIGNAL: sysPidfdSendSignal,
	unix.SYS_PIDFD_GETFD:       sysPidfdGetfd,
	unix.SYS_MMAP:              sysMmap,
	unix.SYS_MPROTECT:          sysMprotect,
	unix.SYS_MADVISE:           sysMadvise,
	unix.SYS_MSYNC:             sysMsync,
	unix.SYS_MREMAP:            sysMremap,
	unix.SYS_GETRANDOM:         sysGetrandom,
	unix.SYS_REBOOT:            sysReboot,
	unix.SYS_SPLICE:            sysSplice,
	unix.SYS_TEE:               sysTee,
	unix.SYS_SENDFILE:          sysSendfile,
	unix.SYS_COPY_FILE_RANGE:   sysCopyFileRange,
	unix.SYS_SOCKET:            sysSocket,
	unix.SYS_SOCKETPAIR:        sysSocketpair,
	unix.SYS_BIND:              sysBind,
	unix.SYS_LISTEN:            sysListen,
	unix.SYS_ACCEPT:            sysAccept,
	unix.SYS_ACCEPT4:           sysAccept4,
	unix.SYS_CONNECT:           sysConnect,
	unix.SYS_GETSOCKNAME:       sysGetsockname,
	unix.SYS_GETPEERNAME:       sysGetpeername,
	unix.SYS_SETSOCKOPT:        sysSetsockopt,
	unix.SYS_GETSOCKOPT:        sysGetsockopt,
	unix.SYS_SHUTDOWN:          sysShutdown,
	unix.SYS_SENDTO:            sysSendto,
	unix.SYS_RECVFROM:          sysRecvfrom,
	unix.SYS_SENDMSG:           sysSendmsg,
	unix.SYS_RECVMSG:           sysRecvmsg,
}

// errno turns an error number into the X0 value Linux returns.
func errno(e unix.Errno) uint64 { return vfs.Err(e) }

var unknownSeen [512 / 64]uint64

func syscall(c *sched.CPU, t *sched.Thread, f *sched.Frame) {
	nr := f.X[8]
	c.LastSyscall = nr
	trace.Record(c.ID, trace.KindSyscall, 0, uint16(nr), uint32(t.TID))
	var fn sysFn
	if nr < uint64(len(sysTable)) {
		fn = sysTable[nr]
	}
	if fn == nil {
		if nr < 512 && unknownSeen[nr/64]&(1<<(nr%64)) == 0 {
			unknownSeen[nr/64] |= 1 << (nr % 64)
			if kernel.Info("unimplemented syscall ") {
				kernel.PutDec(int64(nr))
				kernel.Puts(" (returning ENOSYS)")
				kernel.InfoEnd()
			}
		}
		f.X[0] = errno(unix.ENOSYS)
		trace.Record(c.ID, trace.KindSysret, 0, uint16(nr), uint32(t.TID))
		return
	}
	syscallCount++
	t.SysNr, t.OrigX0 = nr, f.X[0]
	if !t.Retried {
		// A fresh call has moved nothing yet: a wait that timed out
		// (a terminal read's VTIME, which had given bytes) leaves its
		// count behind, and a later call's interruption must not
		// return it (interruptResult).
		t.Progress = 0
	}
	l := lx(t)
	l.Interrupted = false
	t.BlockedCall = false
	r := fn(t, f)
	// A run that Retry started is over either way; the next one sets
	// Retried again if it comes from a Retry.
	t.Retried = false
	// Whether the call blocked, not whether the thread is blocked now:
	// a waker without the kernel lock (a FUTEX_WAKE, a pipe written
	// under its own lock) may have ended the wait already, and then
	// Schedule gives the thread its result or runs the call again.
	if !t.BlockedCall {
		f.X[0] = r
		t.Progress = 0
	} else if (l.SigPending|sharedOf(t).Pending)&^l.SigMask != 0 || l.Dying {
		// A signal that is already pending interrupts the wait at once,
		// as on Linux; otherwise nothing would wake the thread for it.
		// So does its group's end: dieWake may have found it running,
		// on its way into this wait.
		cancelWait(t, f)
	}
	blocked := uint8(0)
	if t.State == sched.Blocked {
		blocked = 1
	}
	trace.Record(c.ID, trace.KindSysret, blocked, uint16(nr), uint32(t.TID))
}

var syscallCount uint64

func sysZero(t *sched.Thread, f *sched.Frame) uint64 { return 0 }

// Install makes this the personality the core calls (kernel.OS); boot
// calls it before the kernel starts.
func Install() {
	kernel.OS = kernel.Personality{Syscall: syscall, Unlocked: unlocked, LockFree: lockFree, Fault: fault, Exception: exception, Resume: deliverSignals, Pending: signalsPending, Init: loadInit, LogWritten: kmsgWritten}
	sched.AlarmFired = alarmFired
	vfs.TimerfdCatchUp = timerfdCatchUp
	tty.Signal = ttySignal
	tty.SysRq = sysrq
	tty.JobControl = ttyJobControl
	tty.Wait = ttyWait
	tty.Resumed = ttyResumed
	tty.Hangup = ptyHangup
	initGPIOImpls()
}
