package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// clone3(2): clone's arguments in a struct (struct clone_args,
// include/uapi/linux/sched.h), which clone3 checks as Linux's
// copy_clone_args_from_user and clone3_args_valid do and then hands to
// clone's own path in clone's register layout. Go calls it only to
// start a process in a cgroup or a time namespace, which gometal does
// not have.

// cloneArgs is struct clone_args as of Linux 5.7 (CLONE_ARGS_SIZE_VER2).
type cloneArgs struct {
	Flags, Pidfd, ChildTID, ParentTID, ExitSignal, Stack, StackSize, TLS, SetTID, SetTIDSize, Cgroup uint64
}

const (
	cloneArgsSizeVer0 = 64 // CLONE_ARGS_SIZE_VER0: up to tls
	cloneIntoCgroup   = 0x200000000
	cloneClearSighand = 0x100000000
)

func sysClone3(t *sched.Thread, f *sched.Frame) uint64 {
	addr, size := uintptr(f.X[0]), f.X[1]
	var a cloneArgs
	switch {
	case size < cloneArgsSizeVer0:
		return errno(unix.EINVAL)
	case size > uint64(unsafe.Sizeof(a)):
		// A newer struct: its extra bytes must be zero (E2BIG else),
		// read a page at most, as copy_struct_from_user does.
		if size > 4096 {
			return errno(unix.E2BIG)
		}
		var b [8]byte
		for off := uintptr(unsafe.Sizeof(a)); off < uintptr(size); off += 8 {
			n := min(8, uintptr(size)-off)
			if !usermem.CopyIn(b[:n], addr+off) {
				return errno(unix.EFAULT)
			}
			for _, c := range b[:n] {
				if c != 0 {
					return errno(unix.E2BIG)
				}
			}
		}
		size = uint64(unsafe.Sizeof(a))
	}
	if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&a), uintptr(size)), addr) {
		return errno(unix.EFAULT)
	}
	switch {
	case a.Flags&cloneExitSignal != 0 || a.ExitSignal&^cloneExitSignal != 0 || a.ExitSignal != 0 && !validSignal(int(a.ExitSignal)):
		return errno(unix.EINVAL) // clone3 takes the signal apart (CSIGNAL must be clear)
	case a.Stack == 0 && a.StackSize != 0, a.Stack != 0 && a.StackSize == 0:
		return errno(unix.EINVAL)
	case a.Flags&(cloneClearSighand) != 0 && a.Flags&unix.CLONE_SIGHAND != 0:
		return errno(unix.EINVAL)
	case a.SetTIDSize != 0:
		return errno(unix.EINVAL) // choosing the child's TID (set_tid): not here
	case a.Flags&cloneIntoCgroup != 0:
		return errno(unix.EBADF) // no cgroup directory can be named: there are none
	case a.Flags&cloneClearSighand != 0:
		return errno(unix.EINVAL) // CLONE_CLEAR_SIGHAND: not here (resetHandlers could)
	case a.Flags&unix.CLONE_PIDFD != 0 && a.Flags&unix.CLONE_PARENT_SETTID != 0 && a.Pidfd != a.ParentTID:
		// clone's layout has one pointer for both; Linux keeps two.
		return errno(unix.EINVAL)
	}
	g := *f
	g.X[0] = a.Flags | a.ExitSignal
	g.X[1] = 0
	if a.Stack != 0 {
		g.X[1] = a.Stack + a.StackSize // the stack grows down from its top
	}
	g.X[2] = a.ParentTID
	if a.Flags&unix.CLONE_PIDFD != 0 {
		g.X[2] = a.Pidfd
	}
	g.X[3], g.X[4] = a.TLS, a.ChildTID
	// The child starts from g: its X1-X4 are clone's arguments rather
	// than clone3's (caller-saved registers, which nothing reads after
	// the call); its X0 is 0 either way.
	return sysClone(t, &g)
}
