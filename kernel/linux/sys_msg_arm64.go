package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/socket"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// sendmsg(2) and recvmsg(2): a struct msghdr in app memory names the
// data (an iovec array), an address and ancillary data. On a stream
// socket they are writev and readv; on a UDP socket one datagram is
// gathered from, or scattered into, the iovecs, with its address in
// msg_name and MSG_TRUNC in msg_flags when it did not fit (udp(7)). On
// AF_UNIX sockets of every type, descriptors and credentials go with a
// message (SCM_RIGHTS, SCM_CREDENTIALS and SO_PASSCRED: scm_arm64.go):
// with a stream's bytes, a record, or a datagram. An AF_INET socket
// ignores ancillary data as Linux does a SOL_SOCKET message it has no
// use for, and its msg_controllen comes back 0. msg_flags reports
// MSG_CMSG_CLOEXEC when the call was given it, as ____sys_recvmsg
// starts msg_flags from the call's flags.

// msghdr is struct msghdr on arm64 (unix.Msghdr's layout).
type msghdr = unix.Msghdr

const msghdrLen = unsafe.Sizeof(msghdr{})

// Offsets of the fields recvmsg writes back.
var (
	msgNamelenOff    = unsafe.Offsetof(msghdr{}.Namelen)
	msgControllenOff = unsafe.Offsetof(msghdr{}.Controllen)
	msgFlagsOff      = unsafe.Offsetof(msghdr{}.Flags)
)

func readMsghdr(addr uintptr) (m msghdr, ok bool) {
	ok = usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&m), msghdrLen), addr)
	return m, ok
}

// iovAt reads iovec i of the array at iov.
func iovAt(iov uintptr, i uint64) (base uintptr, n uint64, ok bool) {
	var v [2]uint64
	if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&v), 16), iov+uintptr(16*i)) {
		return 0, 0, false
	}
	return uintptr(v[0]), v[1], true
}

func sysSendmsg(t *sched.Thread, f *sched.Frame) uint64 {
	fl, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	m, ok := readMsghdr(uintptr(f.X[1]))
	if !ok {
		return errno(unix.EFAULT)
	}
	if m.Iovlen > iovMax {
		return errno(unix.EMSGSIZE)
	}
	if k.Family != unix.AF_UNIX {
		var none vfs.Rights
		return sendMsg(t, fl, k, &m, f.X[2], &none)
	}
	rights, cred, ce := readControl(t, &m)
	if ce != 0 {
		return errno(ce)
	}
	if rights.N > 0 && !vfs.RightsRoom() {
		return errno(unix.ETOOMANYREFS)
	}
	// The credentials go with what this call sends, whichever way.
	k.SendWith(cred)
	r := sendMsg(t, fl, k, &m, f.X[2], &rights)
	k.SendWith(vfs.NoCred())
	return r
}

// sendMsg sends the message m on k, with the descriptions in rights.
func sendMsg(t *sched.Thread, fl *vfs.File, k *socket.Socket, m *msghdr, flags uint64, rights *vfs.Rights) uint64 {
	switch {
	case k.IsNetlink():
		base, n, ok := iovAt(uintptr(unsafe.Pointer(m.Iov)), 0)
		if m.Iovlen == 0 || !ok {
			return errno(unix.EINVAL)
		}
		return k.NetlinkSend(base, n)
	case k.IsDgram():
		return sendDgramMsg(k, m, rights)
	case k.Records():
		return sendRecordMsg(t, fl, k, uintptr(unsafe.Pointer(m.Iov)), m.Iovlen, flags, rights)
	}
	// A stream: writev, which raises SIGPIPE on a broken connection
	// (MSG_NOSIGNAL is not honoured here; Go ignores SIGPIPE on sockets).
	// Descriptors go with the message's first byte, once: not again in
	// a run of the call after an earlier run moved bytes.
	p, at := k.SendPipe()
	earlier := t.Retried && t.Progress > 0
	r := iovecIO(t, fl, uintptr(unsafe.Pointer(m.Iov)), m.Iovlen, true)
	if rights.N > 0 && p != nil && !earlier && p.In > at {
		p.Attach(at, p.In, rights)
	}
	return r
}

// sendDgramMsg gathers the iovecs into one datagram to msg_name, or to
// the connected peer.
func sendDgramMsg(k *socket.Socket, m *msghdr, rights *vfs.Rights) uint64 {
	if k.Family == unix.AF_UNIX {
		return sendUnixDgramMsg(k, m, rights)
	}
	ip, port, connected := k.DgramPeer()
	if m.Name != nil && m.Namelen > 0 {
		var e unix.Errno
		if port, ip, e = readSockaddr(uintptr(unsafe.Pointer(m.Name)), uint64(m.Namelen)); e != 0 {
			return errno(e)
		}
	} else if !connected {
		return errno(unix.EDESTADDRREQ)
	}
	room, e := k.DgramRoom(port, ip)
	if e != 0 {
		return errno(e)
	}
	n, r := gather(room, m)
	if r != 0 {
		return r
	}
	return k.DgramSend(n, port, ip)
}

// sendUnixDgramMsg is sendDgramMsg for an AF_UNIX datagram socket,
// with the descriptions to pass.
func sendUnixDgramMsg(k *socket.Socket, m *msghdr, rights *vfs.Rights) uint64 {
	a, _ := k.DgramPeerUnix()
	if m.Name != nil && m.Namelen > 0 {
		var e unix.Errno
		if a, e = readUnixSockaddr(uintptr(unsafe.Pointer(m.Name)), uint64(m.Namelen)); e == 0 {
			e = resolveUnix(&a)
		}
		if e != 0 {
			return errno(e)
		}
	} else if a.N == 0 {
		return errno(unix.EDESTADDRREQ)
	}
	n, r := gather(socket.UnixRoom(), m)
	if r != 0 {
		return r
	}
	return k.SendStagedUnix(n, &a, rights)
}

// recvStream reads an AF_UNIX stream for recvmsg over the message's
// iovecs: up to the end of the first message with descriptors, which it
// takes, and with SO_PASSCRED up to where the credentials change, those
// of its first byte going to cred (socket.ReadMsg).
func recvStream(t *sched.Thread, fl *vfs.File, k *socket.Socket, m *msghdr, flags uint64, rights *vfs.Rights, cred *unix.Ucred) uint64 {
	left := k.MsgLen()
	total := uint64(0)
	for i := uint64(0); i < m.Iovlen && left > 0; i++ {
		base, n, ok := iovAt(uintptr(unsafe.Pointer(m.Iov)), i)
		if !ok {
			if total > 0 {
				break
			}
			return errno(unix.EFAULT)
		}
		if n == 0 {
			continue
		}
		n = min(n, left)
		var r uint64
		if total == 0 {
			r = k.ReadMsg(base, n, rights, cred)
		} else {
			r = k.ReadMsg(base, n, rights, nil)
		}
		if vfs.IsErr(r) {
			if total > 0 {
				break
			}
			if r == errno(unix.EAGAIN) && flags&unix.MSG_DONTWAIT == 0 {
				return vfs.Wait(t, fl, unix.EPOLLIN)
			}
			return r
		}
		total += r
		left -= r
		if r < n {
			break
		}
	}
	return total
}

// gather copies the message's iovecs into room, one after another:
// EMSGSIZE if they do not fit.
func gather(room []byte, m *msghdr) (n uint64, r uint64) {
	for i := uint64(0); i < m.Iovlen; i++ {
		base, l, ok := iovAt(uintptr(unsafe.Pointer(m.Iov)), i)
		if !ok {
			return 0, errno(unix.EFAULT)
		}
		if l > uint64(len(room))-n {
			return 0, errno(unix.EMSGSIZE)
		}
		if !usermem.CopyIn(room[n:n+l], base) {
			return 0, errno(unix.EFAULT)
		}
		n += l
	}
	return n, 0
}

func sysRecvmsg(t *sched.Thread, f *sched.Frame) uint64 {
	fl, k, e := sockOf(f.X[0])
	if e != 0 {
		return e
	}
	addr := uintptr(f.X[1])
	m, ok := readMsghdr(addr)
	if !ok {
		return errno(unix.EFAULT)
	}
	if m.Iovlen > iovMax {
		return errno(unix.EMSGSIZE)
	}
	var r uint64
	flags := int32(f.X[2] & unix.MSG_CMSG_CLOEXEC)
	name, nameLen := uintptr(unsafe.Pointer(m.Name)), uint32(0)
	// Descriptors passed with the message read (SCM_RIGHTS): given as
	// control data, or closed with MSG_CTRUNC when there is no room.
	var rights vfs.Rights
	// MSG_PEEK leaves what it copies to be read again, descriptors
	// included.
	peek := f.X[2]&unix.MSG_PEEK != 0
	wantRights := k.Family == unix.AF_UNIX && !peek
	// The message's credentials, given with SO_PASSCRED: at the end of
	// a stream zero ones, as Linux's unix_stream_read_generic; none at a
	// seqpacket's end.
	var cred unix.Ucred
	passCred := k.Family == unix.AF_UNIX && k.PassCred()
	switch {
	case k.IsDgram():
		var src [4]byte
		var sport uint16
		var truncated bool
		if r, src, sport, truncated = recvDgramMsg(k, &m, peek); r == errno(unix.EAGAIN) && !fl.Nonblocking() && f.X[2]&unix.MSG_DONTWAIT == 0 {
			return vfs.Wait(t, fl, unix.EPOLLIN)
		}
		if vfs.IsErr(r) {
			return r
		}
		// An AF_UNIX datagram's descriptions, by its record's mark.
		if wantRights {
			k.DgramRights(sport, &rights)
		}
		cred = k.DgramCred()
		if truncated {
			flags |= unix.MSG_TRUNC
		}
		if name != 0 {
			sa, n := inName(sport, src)
			if k.Family == unix.AF_UNIX {
				// An unnamed sender leaves msg_namelen 0 (unix_copy_addr).
				n = 0
				if a := k.FromUnix(); a != nil {
					sa, n = unixName(a)
				}
			}
			nameLen = uint32(n)
			if !usermem.CopyOut(name, sa[:min(n, int(m.Namelen))]) {
				return errno(unix.EFAULT)
			}
		}
	case peek && !k.IsNetlink():
		next, some := k.NextCred()
		if r = peekMsg(k, &m, k.PeekLen()); r == errno(unix.EAGAIN) && f.X[2]&unix.MSG_DONTWAIT == 0 {
			return vfs.Wait(t, fl, unix.EPOLLIN)
		}
		if vfs.IsErr(r) {
			return r
		}
		if some {
			cred = next
		} else if k.Records() {
			passCred = false
		}
		if k.Family == unix.AF_UNIX {
			if nameLen, ok = putUnixPeer(k, name, m.Namelen); !ok {
				return errno(unix.EFAULT)
			}
		}
	case k.IsNetlink():
		base, n, ok := iovAt(uintptr(unsafe.Pointer(m.Iov)), 0)
		if m.Iovlen == 0 || !ok {
			return errno(unix.EINVAL)
		}
		if r = vfs.Read(t, fl, base, n, -1); vfs.IsErr(r) || t.State != sched.Running {
			return r
		}
		if name != 0 {
			sa, n := sockName(k, true) // the kernel, pid 0
			nameLen = uint32(n)
			if !usermem.CopyOut(name, sa[:min(n, int(m.Namelen))]) {
				return errno(unix.EFAULT)
			}
		}
	case k.Records():
		var truncated bool
		var want *vfs.Rights
		if wantRights {
			want = &rights
		}
		next, some := k.NextCred()
		if r, truncated = recvRecordMsg(t, fl, k, uintptr(unsafe.Pointer(m.Iov)), m.Iovlen, f.X[2], want); vfs.IsErr(r) || t.State != sched.Running {
			return r
		}
		cred, passCred = next, passCred && some
		if truncated {
			flags |= unix.MSG_TRUNC
		}
		if nameLen, ok = putUnixPeer(k, name, m.Namelen); !ok {
			rights.Close()
			return errno(unix.EFAULT)
		}
	case k.Family == unix.AF_UNIX && !peek && (passCred || k.RightsPending()):
		// A stream with descriptors in flight or whose reader wants
		// credentials: one message (socket/rights.go, creds.go).
		if r = recvStream(t, fl, k, &m, f.X[2], &rights, &cred); vfs.IsErr(r) || t.State != sched.Running {
			return r
		}
	default:
		// A stream: readv. TCP leaves msg_name empty (tcp_recvmsg).
		if f.X[2]&unix.MSG_DONTWAIT != 0 && fl.Impl.Readiness(fl)&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) == 0 {
			return errno(unix.EAGAIN)
		}
		if r = iovecIO(t, fl, uintptr(unsafe.Pointer(m.Iov)), m.Iovlen, false); vfs.IsErr(r) || t.State != sched.Running {
			return r
		}
	}
	var credOut *unix.Ucred
	if passCred {
		credOut = &cred
	}
	ctlLen, ctrunc := putControl(&m, credOut, &rights, f.X[2]&unix.MSG_CMSG_CLOEXEC != 0)
	if ctrunc {
		flags |= unix.MSG_CTRUNC
	}
	if !usermem.WriteU32(addr+msgNamelenOff, nameLen) ||
		!usermem.WriteU64(addr+msgControllenOff, ctlLen) ||
		!usermem.WriteU32(addr+msgFlagsOff, uint32(flags)) {
		return errno(unix.EFAULT)
	}
	return r
}

// recvDgramMsg scatters k's oldest datagram over the iovecs: the bytes
// copied (all of it with MSG_TRUNC asked in the call's flags is Linux's
// choice; this returns what was copied), its sender, and whether it was
// cut short.
func recvDgramMsg(k *socket.Socket, m *msghdr, peek bool) (r uint64, src [4]byte, sport uint16, truncated bool) {
	src, sport, a, b, e := k.PeekDgram()
	if e != 0 {
		return errno(e), src, 0, false
	}
	total := uint64(len(a) + len(b))
	done := uint64(0)
	for i := uint64(0); i < m.Iovlen && done < total; i++ {
		base, l, ok := iovAt(uintptr(unsafe.Pointer(m.Iov)), i)
		if !ok {
			return errno(unix.EFAULT), src, 0, false
		}
		for l > 0 && done < total {
			// The datagram's bytes from done on, in the ring's pieces.
			piece := a
			off := done
			if off >= uint64(len(a)) {
				piece, off = b, off-uint64(len(a))
			}
			c := min(l, uint64(len(piece))-off)
			if !usermem.CopyOut(base, piece[off:off+c]) {
				return errno(unix.EFAULT), src, 0, false
			}
			base += uintptr(c)
			l -= c
			done += c
		}
	}
	if peek {
		k.PeekedDgram(src, sport)
	} else {
		k.TakeDgram(src, sport)
	}
	return done, src, sport, done < total
}

// putUnixPeer writes the sender's name of a message on AF_UNIX
// connection k, its peer's (none for an unnamed peer: unix_copy_addr),
// to msg_name at name, cut to max bytes, and returns msg_namelen; false
// if name faulted.
func putUnixPeer(k *socket.Socket, name uintptr, max uint32) (uint32, bool) {
	if name == 0 || k.Peer.N == 0 {
		return 0, true
	}
	sa, n := unixName(&k.Peer)
	return uint32(n), usermem.CopyOut(name, sa[:min(n, int(max))])
}

// peekMsg copies a connection's next bytes over the iovecs, up to
// limit, leaving them to be read (MSG_PEEK): what a readv would return.
func peekMsg(k *socket.Socket, m *msghdr, limit uint64) uint64 {
	done := uint64(0)
	for i := uint64(0); i < m.Iovlen && done < limit; i++ {
		base, l, ok := iovAt(uintptr(unsafe.Pointer(m.Iov)), i)
		if !ok {
			return errno(unix.EFAULT)
		}
		if l == 0 {
			continue
		}
		l = min(l, limit-done)
		r := k.PeekAt(done, base, l)
		if vfs.IsErr(r) {
			if done > 0 {
				break
			}
			return r
		}
		done += r
		if r < l {
			break
		}
	}
	return done
}
