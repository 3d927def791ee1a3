package proc

import "golang.org/x/sys/unix"

// Resource limits (Linux's signal_struct->rlim, getrlimit(2)): each
// process has its own, copied at fork, kept across execve, changed by
// setrlimit and prlimit64. The Linux layer enforces those that mean
// something here (RLIMIT_NOFILE: the lowest descriptor a process may not
// have); the rest are kept and reported.

// Limit is one resource's soft (Cur) and hard (Max) limit.
type Limit struct{ Cur, Max uint64 }

// NumLimits is RLIM_NLIMITS.
const NumLimits = 16

// Infinity is RLIM_INFINITY.
const Infinity = ^uint64(0)

// Limits are what a process starts with when no process made it (PID
// 1), as Linux's INIT_RLIMITS (include/asm-generic/resource.h) with the
// values this kernel has: RLIMIT_NOFILE is the descriptor table's size
// (Linux: 1024 soft, 4096 hard; Go raises the soft to the hard limit at
// start either way), RLIMIT_NPROC and RLIMIT_SIGPENDING the tables'.
func initLimits(l *[NumLimits]Limit) {
	for i := range l {
		l[i] = Limit{Infinity, Infinity}
	}
	l[unix.RLIMIT_STACK] = Limit{8 << 20, Infinity} // _STK_LIM
	l[unix.RLIMIT_CORE] = Limit{0, Infinity}
	l[unix.RLIMIT_NOFILE] = Limit{MaxFDs, MaxFDs}
	l[unix.RLIMIT_NPROC] = Limit{MaxProcs, MaxProcs}
	l[unix.RLIMIT_MEMLOCK] = Limit{8 << 20, 8 << 20} // MLOCK_LIMIT
	l[rlimitMsgqueue] = Limit{819200, 819200}        // MQ_BYTES_MAX
	l[rlimitNice] = Limit{0, 0}
	l[rlimitRtprio] = Limit{0, 0}
	l[rlimitSigpending] = Limit{SigpendingMax, SigpendingMax}
}

// The limits golang.org/x/sys names only on some systems
// (include/uapi/asm-generic/resource.h).
const (
	rlimitSigpending = 11
	rlimitMsgqueue   = 12
	rlimitNice       = 13
	rlimitRtprio     = 14
)

// SigpendingMax is the queued real-time signals the machine holds (the
// Linux layer's pool), reported as RLIMIT_SIGPENDING.
const SigpendingMax = 1024

// SetLimit changes process p's limit on res (setrlimit's rules,
// do_prlimit): EINVAL for an unknown resource or a soft limit above
// the hard one; EPERM for raising the hard limit without privilege, or
// RLIMIT_NOFILE's past what the descriptor table holds (nr_open).
func SetLimit(p int32, res int, nl Limit, privileged bool) unix.Errno {
	if res < 0 || res >= NumLimits {
		return unix.EINVAL
	}
	if nl.Cur > nl.Max {
		return unix.EINVAL
	}
	old := &Procs[p].Limits[res]
	if nl.Max > old.Max && !privileged {
		return unix.EPERM
	}
	if res == unix.RLIMIT_NOFILE && nl.Max > MaxFDs {
		return unix.EPERM
	}
	*old = nl
	return 0
}
