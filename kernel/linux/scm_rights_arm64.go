package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Ancillary data on AF_UNIX connections (unix(7), cmsg(3)): SCM_RIGHTS
// passes descriptors, as new descriptors of the same open-file
// descriptions in the receiver; SCM_CREDENTIALS is accepted from a
// sender and not delivered (there is one process, and no receiver asks
// for SO_PASSCRED here). The control buffer is a run of struct cmsghdr,
// each padded to 8 bytes (CMSG_ALIGN on arm64).

const (
	cmsgHdrLen = uint64(unsafe.Sizeof(unix.Cmsghdr{}))
	// scmCredLen is SCM_CREDENTIALS's payload, a struct ucred.
	scmCredLen = uint64(unsafe.Sizeof(unix.Ucred{}))
)

func cmsgAlign(n uint64) uint64 { return (n + 7) &^ 7 }

// readRights reads the message's control data: the descriptions its
// SCM_RIGHTS name (EBADF for a descriptor not open, EINVAL for more than
// vfs.MaxRights or a malformed header, as __scm_send answers).
func readRights(m *msghdr) (vfs.Rights, unix.Errno) {
	var r vfs.Rights
	ctl, n := uintptr(unsafe.Pointer(m.Control)), m.Controllen
	for off := uint64(0); off+cmsgHdrLen <= n; {
		var h unix.Cmsghdr
		if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&h), uintptr(cmsgHdrLen)), ctl+uintptr(off)) {
			return r, unix.EFAULT
		}
		if h.Len < cmsgHdrLen || h.Len > n-off {
			return r, unix.EINVAL
		}
		switch {
		case h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_RIGHTS:
			for p := off + cmsgHdrLen; p+4 <= off+h.Len; p += 4 {
				fd, ok := usermem.ReadU32(ctl + uintptr(p))
				if !ok {
					return r, unix.EFAULT
				}
				if _, open := getFD(uint64(fd)); !open {
					return r, unix.EBADF
				}
				if r.N == vfs.MaxRights {
					return r, unix.EINVAL
				}
				r.Files[r.N] = fileOf(int(fd))
				r.N++
			}
		case h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_CREDENTIALS:
			if h.Len != cmsgHdrLen+scmCredLen {
				return r, unix.EINVAL
			}
		default:
			return r, unix.EINVAL
		}
		off += cmsgAlign(h.Len)
	}
	return r, 0
}

// putRights gives the receiver r's descriptions as new descriptors and
// writes their SCM_RIGHTS message into msg_control: the control bytes
// written, and whether some did not fit (MSG_CTRUNC; those are closed,
// as Linux's scm_detach_fds closes what it cannot pass).
func putRights(m *msghdr, r *vfs.Rights, cloexec bool) (ctlLen uint64, truncated bool) {
	total := r.N
	if total == 0 {
		return 0, false
	}
	fit := 0
	if m.Controllen >= cmsgHdrLen+4 {
		fit = min(r.N, int((m.Controllen-cmsgHdrLen)/4))
	}
	var fds [vfs.MaxRights]uint32
	n := 0
	for ; n < fit; n++ {
		fd := freeFD(0)
		if fd < 0 {
			break
		}
		setFD(fd, r.Files[n], cloexec) // the set's reference goes to it
		fds[n] = uint32(fd)
	}
	for i := n; i < r.N; i++ {
		vfs.DecRef(r.Files[i])
	}
	r.N = 0
	if n == 0 {
		return 0, true
	}
	h := unix.Cmsghdr{Len: cmsgHdrLen + 4*uint64(n), Level: unix.SOL_SOCKET, Type: unix.SCM_RIGHTS}
	ctl := uintptr(unsafe.Pointer(m.Control))
	if !usermem.CopyOut(ctl, usermem.BytesOf(unsafe.Pointer(&h), uintptr(cmsgHdrLen))) ||
		!usermem.CopyOut(ctl+uintptr(cmsgHdrLen), usermem.BytesOf(unsafe.Pointer(&fds[0]), uintptr(4*n))) {
		for i := 0; i < n; i++ {
			closeFD(int(fds[i]))
		}
		return 0, true
	}
	return min(cmsgAlign(h.Len), m.Controllen), n < total
}
