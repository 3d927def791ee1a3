package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Capabilities (capabilities(7)): gometal keeps no capability sets of
// its own; a process's follow its user IDs, as they do on Linux for a
// program that never calls capset: a process whose effective user ID is
// 0 has every capability effective and permitted, one whose real,
// effective and saved IDs are all non-zero has none
// (cap_emulate_setxuid). capget reports that; capset accepts only what
// changes nothing (EPERM otherwise).

// capsOf is process p's effective and permitted sets.
func capsOf(p *proc.Process) (eff, perm uint64) {
	const all = 1<<(unix.CAP_LAST_CAP+1) - 1
	u := p.Cred.User
	if u.E == 0 {
		eff = all
	}
	if u.R == 0 || u.E == 0 || u.S == 0 {
		perm = all
	}
	return eff, perm
}

// capHeader reads the header at addr and checks its version
// (cap_validate_magic): the number of data structs, or an errno; an
// unknown version is answered with the one preferred, written back.
func capHeader(addr uintptr, hdr *unix.CapUserHeader, dataAddr uint64) (int, unix.Errno) {
	if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(hdr), unsafe.Sizeof(*hdr)), addr) {
		return 0, unix.EFAULT
	}
	switch hdr.Version {
	case unix.LINUX_CAPABILITY_VERSION_1: // one 32-bit set of each
		return 1, 0
	case unix.LINUX_CAPABILITY_VERSION_2, unix.LINUX_CAPABILITY_VERSION_3: // two
		return 2, 0
	}
	hdr.Version = unix.LINUX_CAPABILITY_VERSION_3
	if !usermem.CopyOut(addr, usermem.BytesOf(unsafe.Pointer(hdr), unsafe.Sizeof(*hdr))) {
		return 0, unix.EFAULT
	}
	if dataAddr == 0 {
		return 0, 0 // a probe of the version: 0 (capget) with the version written
	}
	return 0, unix.EINVAL
}

func sysCapget(t *sched.Thread, f *sched.Frame) uint64 {
	var hdr unix.CapUserHeader
	n, e := capHeader(uintptr(f.X[0]), &hdr, f.X[1])
	if e != 0 || n == 0 {
		return errno(e)
	}
	p := procOf(t)
	switch {
	case hdr.Pid < 0:
		return errno(unix.EINVAL)
	case hdr.Pid != 0:
		slot := proc.ByPID(hdr.Pid)
		if slot < 0 || proc.Procs[slot].State != proc.Live {
			return errno(unix.ESRCH)
		}
		p = &proc.Procs[slot]
	}
	if f.X[1] == 0 {
		return 0
	}
	eff, perm := capsOf(p)
	var data [2]unix.CapUserData
	for i := range data {
		data[i] = unix.CapUserData{Effective: uint32(eff >> (32 * i)), Permitted: uint32(perm >> (32 * i))}
	}
	if !usermem.CopyOut(uintptr(f.X[1]), usermem.BytesOf(unsafe.Pointer(&data), uintptr(n)*unsafe.Sizeof(data[0]))) {
		return errno(unix.EFAULT)
	}
	return 0
}

func sysCapset(t *sched.Thread, f *sched.Frame) uint64 {
	var hdr unix.CapUserHeader
	n, e := capHeader(uintptr(f.X[0]), &hdr, f.X[1])
	if e != 0 {
		return errno(e)
	}
	if n == 0 {
		return errno(unix.EINVAL)
	}
	if hdr.Pid != 0 && hdr.Pid != pidOf(t) {
		return errno(unix.EPERM) // only one's own (since 2.6.25)
	}
	var data [2]unix.CapUserData
	if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&data), uintptr(n)*unsafe.Sizeof(data[0])), uintptr(f.X[1])) {
		return errno(unix.EFAULT)
	}
	eff, perm := capsOf(procOf(t))
	for i := 0; i < n; i++ {
		d := data[i]
		if d.Effective != uint32(eff>>(32*i)) || d.Permitted != uint32(perm>>(32*i)) || d.Inheritable != 0 {
			return errno(unix.EPERM) // a change gometal cannot keep
		}
	}
	return 0
}
