package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Credentials: the ID system calls over the calling process's
// proc.Cred (its rules are there). The getters read without a lock, as
// getpid does: an ID is one 32-bit word.

func credOf(t *sched.Thread) *proc.Cred { return &procOf(t).Cred }

func sysGetuid(t *sched.Thread, f *sched.Frame) uint64  { return uint64(credOf(t).User.R) }
func sysGeteuid(t *sched.Thread, f *sched.Frame) uint64 { return uint64(credOf(t).User.E) }
func sysGetgid(t *sched.Thread, f *sched.Frame) uint64  { return uint64(credOf(t).Group.R) }
func sysGetegid(t *sched.Thread, f *sched.Frame) uint64 { return uint64(credOf(t).Group.E) }

func credErr(e unix.Errno) uint64 {
	if e != 0 {
		return errno(e)
	}
	return 0
}

// ids is the user IDs for the calls on them, else the group IDs;
// privilege is always the effective user's (CAP_SETUID, CAP_SETGID).
func ids(t *sched.Thread, user bool) (*proc.IDs, bool) {
	c := credOf(t)
	if user {
		return &c.User, c.Privileged()
	}
	return &c.Group, c.Privileged()
}

func setID(t *sched.Thread, f *sched.Frame, user bool) uint64 {
	d, p := ids(t, user)
	return credErr(d.Set(uint32(f.X[0]), p))
}

func setREID(t *sched.Thread, f *sched.Frame, user bool) uint64 {
	d, p := ids(t, user)
	return credErr(d.SetRE(uint32(f.X[0]), uint32(f.X[1]), p))
}

func setRESID(t *sched.Thread, f *sched.Frame, user bool) uint64 {
	d, p := ids(t, user)
	return credErr(d.SetRES(uint32(f.X[0]), uint32(f.X[1]), uint32(f.X[2]), p))
}

// getRESID writes the real, effective and saved IDs to three pointers.
func getRESID(t *sched.Thread, f *sched.Frame, user bool) uint64 {
	d, _ := ids(t, user)
	for i, v := range [...]uint32{d.R, d.E, d.S} {
		if !usermem.WriteU32(uintptr(f.X[i]), v) {
			return errno(unix.EFAULT)
		}
	}
	return 0
}

func setFSID(t *sched.Thread, f *sched.Frame, user bool) uint64 {
	d, p := ids(t, user)
	return uint64(d.SetFS(uint32(f.X[0]), p))
}

func sysSetuid(t *sched.Thread, f *sched.Frame) uint64    { return setID(t, f, true) }
func sysSetgid(t *sched.Thread, f *sched.Frame) uint64    { return setID(t, f, false) }
func sysSetreuid(t *sched.Thread, f *sched.Frame) uint64  { return setREID(t, f, true) }
func sysSetregid(t *sched.Thread, f *sched.Frame) uint64  { return setREID(t, f, false) }
func sysSetresuid(t *sched.Thread, f *sched.Frame) uint64 { return setRESID(t, f, true) }
func sysSetresgid(t *sched.Thread, f *sched.Frame) uint64 { return setRESID(t, f, false) }
func sysGetresuid(t *sched.Thread, f *sched.Frame) uint64 { return getRESID(t, f, true) }
func sysGetresgid(t *sched.Thread, f *sched.Frame) uint64 { return getRESID(t, f, false) }
func sysSetfsuid(t *sched.Thread, f *sched.Frame) uint64  { return setFSID(t, f, true) }
func sysSetfsgid(t *sched.Thread, f *sched.Frame) uint64  { return setFSID(t, f, false) }

// getgroups(size, list): size 0 asks only for the count; a size below
// the count is EINVAL.
func sysGetgroups(t *sched.Thread, f *sched.Frame) uint64 {
	c := credOf(t)
	size := int32(f.X[0])
	if size == 0 {
		return uint64(c.NGroups)
	}
	if size < c.NGroups || size < 0 {
		return errno(unix.EINVAL)
	}
	if c.NGroups > 0 && !usermem.CopyOut(uintptr(f.X[1]), usermem.BytesOf(unsafe.Pointer(&c.Groups[0]), uintptr(c.NGroups)*4)) {
		return errno(unix.EFAULT)
	}
	return uint64(c.NGroups)
}

// ngroupsMax is Linux's NGROUPS_MAX: more is EINVAL before anything else.
const ngroupsMax = 65536

func sysSetgroups(t *sched.Thread, f *sched.Frame) uint64 {
	n := int64(f.X[0])
	if n < 0 || n > ngroupsMax {
		return errno(unix.EINVAL)
	}
	if !credOf(t).Privileged() {
		return errno(unix.EPERM)
	}
	if n > proc.MaxGroups {
		return errno(unix.EINVAL)
	}
	var g [proc.MaxGroups]uint32
	if n > 0 && !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&g[0]), uintptr(n)*4), uintptr(f.X[1])) {
		return errno(unix.EFAULT)
	}
	return credErr(credOf(t).SetGroups(g[:n]))
}
