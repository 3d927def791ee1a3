package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Ancillary data on AF_UNIX sockets (unix(7), cmsg(3); Linux's
// net/core/scm.c): SCM_RIGHTS passes descriptors, as new descriptors of
// the same open-file descriptions in the receiver; SCM_CREDENTIALS
// passes a struct ucred the kernel has checked, and a receiver with
// SO_PASSCRED is given the credentials of every message (those attached,
// or the sender's own: kernel/socket's creds.go). The control buffer is
// a run of struct cmsghdr, each padded to 8 bytes (CMSG_ALIGN on arm64).

const (
	cmsgHdrLen = uint64(unsafe.Sizeof(unix.Cmsghdr{}))
	// scmCredLen is SCM_CREDENTIALS's payload, a struct ucred.
	scmCredLen = uint64(unsafe.Sizeof(unix.Ucred{}))
	// noID is (uid_t)-1: no credentials carry it (Linux's INVALID_UID).
	noID = ^uint32(0)
)

func cmsgAlign(n uint64) uint64 { return (n + 7) &^ 7 }

// readControl reads the message's control data, as __scm_send does: the
// descriptions its SCM_RIGHTS name (EBADF for a descriptor not open,
// EINVAL for more than vfs.MaxRights) and the credentials its
// SCM_CREDENTIALS attach (checkCred; vfs.NoCred for none). EINVAL for a
// malformed header or a SOL_SOCKET type of no use; other levels are
// passed over.
func readControl(t *sched.Thread, m *msghdr) (vfs.Rights, unix.Ucred, unix.Errno) {
	var r vfs.Rights
	cred := vfs.NoCred()
	ctl, n := uintptr(unsafe.Pointer(m.Control)), m.Controllen
	for off := uint64(0); off+cmsgHdrLen <= n; {
		var h unix.Cmsghdr
		if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&h), uintptr(cmsgHdrLen)), ctl+uintptr(off)) {
			return r, cred, unix.EFAULT
		}
		if h.Len < cmsgHdrLen || h.Len > n-off {
			return r, cred, unix.EINVAL
		}
		switch {
		case h.Level != unix.SOL_SOCKET:
		case h.Type == unix.SCM_RIGHTS:
			for p := off + cmsgHdrLen; p+4 <= off+h.Len; p += 4 {
				fd, ok := usermem.ReadU32(ctl + uintptr(p))
				if !ok {
					return r, cred, unix.EFAULT
				}
				if _, open := getFD(uint64(fd)); !open {
					return r, cred, unix.EBADF
				}
				if r.N == vfs.MaxRights {
					return r, cred, unix.EINVAL
				}
				r.Files[r.N] = fileOf(int(fd))
				r.N++
			}
		case h.Type == unix.SCM_CREDENTIALS:
			if h.Len != cmsgHdrLen+scmCredLen {
				return r, cred, unix.EINVAL
			}
			var c unix.Ucred
			if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&c), uintptr(scmCredLen)), ctl+uintptr(off+cmsgHdrLen)) {
				return r, cred, unix.EFAULT
			}
			if e := checkCred(t, c); e != 0 {
				return r, cred, e
			}
			cred = c
		default:
			return r, cred, unix.EINVAL
		}
		off += cmsgAlign(h.Len)
	}
	return r, cred, 0
}

// checkCred is scm_check_creds and __scm_send's look-up of the pid: no
// uid or gid may be -1 (EINVAL); a sender names its own pid and one of
// its real, effective and saved uids and gids, unless privileged
// (CAP_SYS_ADMIN for the pid, CAP_SETUID and CAP_SETGID for the ids:
// root's, here an effective uid of 0), which may name any (EPERM); and
// the pid must be a live thread's, a process's or a zombie's (ESRCH).
func checkCred(t *sched.Thread, c unix.Ucred) unix.Errno {
	if c.Uid == noID || c.Gid == noID {
		return unix.EINVAL
	}
	p := procOf(t)
	priv := p.Cred.Privileged()
	if !priv && (c.Pid != p.PID || !p.Cred.User.Has(c.Uid) || !p.Cred.Group.Has(c.Gid)) {
		return unix.EPERM
	}
	if c.Pid <= 0 || sched.ByTID(c.Pid) == nil && proc.ByPID(c.Pid) < 0 {
		return unix.ESRCH
	}
	return 0
}

// senderCred is kernel/socket's Sender: the calling process's pid and
// real uid and gid (maybe_add_creds: task_tgid, current_uid_gid), or
// its effective ones (init_peercred, which SO_PEERCRED reads).
func senderCred(effective bool) unix.Ucred {
	p := procOf(current())
	if effective {
		return unix.Ucred{Pid: p.PID, Uid: p.Cred.User.E, Gid: p.Cred.Group.E}
	}
	return unix.Ucred{Pid: p.PID, Uid: p.Cred.User.R, Gid: p.Cred.Group.R}
}

// putControl writes the control data recvmsg gives with a message into
// msg_control, as scm_recv does: its credentials when cred is not nil
// (SO_PASSCRED), then the descriptors of r (SCM_RIGHTS). It returns the
// bytes it used and whether anything did not fit (MSG_CTRUNC); with no
// control buffer at all, nothing fits.
func putControl(m *msghdr, cred *unix.Ucred, r *vfs.Rights, cloexec bool) (ctlLen uint64, truncated bool) {
	ctl, room := uintptr(unsafe.Pointer(m.Control)), m.Controllen
	if ctl == 0 {
		truncated = cred != nil || r.N > 0
		r.Close()
		return 0, truncated
	}
	if cred != nil {
		ctlLen, truncated = putCred(ctl, room, *cred)
	}
	n, cut := putRights(ctl+uintptr(ctlLen), room-ctlLen, r, cloexec)
	return ctlLen + n, truncated || cut
}

// putCred writes an SCM_CREDENTIALS message of c at ctl, which has room
// bytes, as put_cmsg does: cut to the room (MSG_CTRUNC), none if not
// even the header fits; the bytes used. An id Linux keeps as invalid
// (none was sent) reads as the overflow id (from_kuid_munged).
func putCred(ctl uintptr, room uint64, c unix.Ucred) (used uint64, truncated bool) {
	if room < cmsgHdrLen {
		return 0, true
	}
	if c.Uid == noID {
		c.Uid = overflowID
	}
	if c.Gid == noID {
		c.Gid = overflowID
	}
	n := cmsgHdrLen + scmCredLen
	if room < n {
		n, truncated = room, true
	}
	h := unix.Cmsghdr{Len: n, Level: unix.SOL_SOCKET, Type: unix.SCM_CREDENTIALS}
	if !usermem.CopyOut(ctl, usermem.BytesOf(unsafe.Pointer(&h), uintptr(cmsgHdrLen))) ||
		!usermem.CopyOut(ctl+uintptr(cmsgHdrLen), usermem.BytesOf(unsafe.Pointer(&c), uintptr(n-cmsgHdrLen))) {
		return 0, false // put_cmsg's EFAULT, which scm_recv passes over
	}
	return min(cmsgAlign(n), room), truncated
}

// putRights gives the receiver r's descriptions as new descriptors and
// writes their SCM_RIGHTS message at ctl, which has room bytes: the
// control bytes written, and whether some did not fit (MSG_CTRUNC;
// those are closed, as Linux's scm_detach_fds closes what it cannot
// pass).
func putRights(ctl uintptr, room uint64, r *vfs.Rights, cloexec bool) (ctlLen uint64, truncated bool) {
	total := r.N
	if total == 0 {
		return 0, false
	}
	fit := 0
	if room >= cmsgHdrLen+4 {
		fit = min(r.N, int((room-cmsgHdrLen)/4))
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
	if !usermem.CopyOut(ctl, usermem.BytesOf(unsafe.Pointer(&h), uintptr(cmsgHdrLen))) ||
		!usermem.CopyOut(ctl+uintptr(cmsgHdrLen), usermem.BytesOf(unsafe.Pointer(&fds[0]), uintptr(4*n))) {
		for i := 0; i < n; i++ {
			closeFD(int(fds[i]))
		}
		return 0, true
	}
	return min(cmsgAlign(h.Len), room), n < total
}
