package socket

import (
	"encoding/binary"
	"unsafe"

	"github.com/gometal/gometal/kernel/inet"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Credentials over AF_UNIX sockets (SCM_CREDENTIALS, SO_PASSCRED;
// unix(7), Linux's net/unix/af_unix.c). Every message carries the
// credentials its sender attached (checked by the Linux layer, which
// sets them with SendWith for the sends of one call), or else, when
// either end has SO_PASSCRED or the receiving end is not accepted yet,
// its sender's own: pid, real uid and gid (maybe_add_creds); or none
// (vfs.NoCred).
// On a connection they ride in its pipe as marks where they change
// (vfs.Pipe.SetCred), and a read with SO_PASSCRED stops where they
// change; a datagram keeps them in its record (inet.UDPAux). A receiver
// with SO_PASSCRED is given them with each message (the Linux layer).

// Sender, set by the Linux layer at boot, is the calling process's
// credentials: its pid and its real uid and gid, or with effective its
// effective ones (SO_PEERCRED's).
var Sender func(effective bool) unix.Ucred

// self is the calling process's pid and effective ids, which the ends
// of a connection record as each other's peer (SO_PEERCRED); none on
// the host.
func self() unix.Ucred {
	if Sender == nil {
		return vfs.NoCred()
	}
	return Sender(true)
}

// PeerCred is SO_PEERCRED: the pid and effective ids of the process
// that made the connection's other end (socketpair, connect) or, on a
// listener, that listened, as they were then; pid 0 and ids -1 for
// none.
func (k *Socket) PeerCred() unix.Ucred { return k.peerCred }

// PassCred reports SO_PASSCRED, which SetOpt sets on a socket of any
// family, as Linux keeps it; only AF_UNIX acts on it.
func (k *Socket) PassCred() bool { return k.passCred }

// SendWith makes k's sends carry c until the next SendWith: the
// SCM_CREDENTIALS of one sendmsg. A c with pid 0 (vfs.NoCred) attaches
// none, and the sends carry the sender's own when either end asks.
func (k *Socket) SendWith(c unix.Ucred) { k.attached = c }

// credTo is what a message from k to receiver r (nil: none now)
// carries: unix_scm_to_skb and then maybe_add_creds. A connection's
// server end that no accept has given a description yet counts as
// asking (Linux's !other->sk_socket).
func (k *Socket) credTo(r *Socket) unix.Ucred {
	if k.attached.Pid != 0 {
		return k.attached
	}
	if Sender != nil && (k.passCred || r != nil && (r.passCred || r.refs == 0)) {
		return Sender(false)
	}
	return vfs.NoCred()
}

// readerOf is the socket that reads pipe p (a connection's), nil once
// it has closed.
func readerOf(p *vfs.Pipe) *Socket {
	if p.ReadOwner == nil {
		return nil
	}
	off := uintptr(unsafe.Pointer(p.ReadOwner)) - uintptr(unsafe.Pointer(&sockets[0].W))
	return &sockets[off/unsafe.Sizeof(sockets[0])]
}

// StampSend marks the credentials of the bytes k sends next on its pipe
// p: ENOBUFS when no mark is free (Linux would fail to allocate the
// skb). A socket with SO_PASSCRED and no name is named first
// (unix_autobind in unix_dgram_sendmsg, which seqpacket sends take).
func (k *Socket) StampSend(p *vfs.Pipe) unix.Errno {
	r := readerOf(p)
	if k.records() {
		k.autobindToSend(r)
	}
	if !p.SetCred(k.credTo(r)) {
		return unix.ENOBUFS
	}
	return 0
}

// autobindToSend names k, unnamed, with SO_PASSCRED, before it sends a
// record or datagram; peer, its connection's other end, if any, sees
// the name as its peer's.
func (k *Socket) autobindToSend(peer *Socket) {
	if !k.passCred || k.Family != unix.AF_UNIX || k.Name.N > 0 {
		return
	}
	if a, ok := freeAutobindName(); ok {
		k.Name = a
		if peer != nil {
			peer.Peer = a
		}
	}
}

// MsgLen is how many bytes one read of k's connection may take from
// here (stream reads stop after a message with descriptors and, with
// SO_PASSCRED, where the credentials change); ^0 for no bound.
func (k *Socket) MsgLen() uint64 {
	if k.State != Connected || k.rx < 0 || k.dgram >= 0 || k.net >= 0 || k.records() {
		return ^uint64(0)
	}
	return k.msgLeft(vfs.PipeAt(k.rx))
}

func (k *Socket) msgLeft(p *vfs.Pipe) uint64 {
	start, left := p.Out, ^uint64(0)
	if _, end, ok := p.NextRights(start); ok {
		left = end - start
	}
	if k.passCred {
		if end := p.CredEnd(start); end != ^uint64(0) {
			left = min(left, end-start)
		}
	}
	return left
}

// PeekLen is how many bytes a MSG_PEEK of k's stream may copy: with
// SO_PASSCRED up to where the credentials change; ^0 for no bound.
func (k *Socket) PeekLen() uint64 {
	if !k.passCred || k.State != Connected || k.rx < 0 || k.dgram >= 0 || k.net >= 0 || k.records() {
		return ^uint64(0)
	}
	p := vfs.PipeAt(k.rx)
	if end := p.CredEnd(p.Out); end != ^uint64(0) {
		return end - p.Out
	}
	return ^uint64(0)
}

// NextCred is the credentials of what k reads next (a connection's
// next byte or record, the oldest datagram), and whether there is
// anything to read.
func (k *Socket) NextCred() (unix.Ucred, bool) {
	if k.dgram >= 0 {
		_, _, _, _, ok := inet.UDPRecv(k.dgram)
		return auxCred(inet.UDPAux(k.dgram)), ok
	}
	if k.State != Connected || k.rx < 0 || k.net >= 0 || k.shutRd {
		return vfs.NoCred(), false
	}
	p := vfs.PipeAt(k.rx)
	return p.CredAt(p.Out), p.Len() > 0
}

// DgramCred is the credentials of the datagram k's last read took.
func (k *Socket) DgramCred() unix.Ucred { return k.fromCred }

// credAux and auxCred put credentials in a datagram's record and take
// them out.
func credAux(c unix.Ucred) (a [inet.UDPAuxLen]byte) {
	binary.LittleEndian.PutUint32(a[0:], uint32(c.Pid))
	binary.LittleEndian.PutUint32(a[4:], c.Uid)
	binary.LittleEndian.PutUint32(a[8:], c.Gid)
	return a
}

func auxCred(a [inet.UDPAuxLen]byte) unix.Ucred {
	return unix.Ucred{
		Pid: int32(binary.LittleEndian.Uint32(a[0:])),
		Uid: binary.LittleEndian.Uint32(a[4:]),
		Gid: binary.LittleEndian.Uint32(a[8:]),
	}
}
