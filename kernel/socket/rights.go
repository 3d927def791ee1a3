package socket

import (
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Descriptors passed over AF_UNIX connections (SCM_RIGHTS): the sender's
// descriptions ride in the connection's pipe with the message's bytes
// (vfs.Pipe.Attach); the recvmsg whose read reaches the message's first
// byte takes them, and a stream read stops at the end of that message,
// so the next message's descriptors come with the next read: Linux's
// unix_stream_read_generic reads on through messages without
// descriptors and stops after one with them. What ReadMsg returns is
// one such message for recvmsg (MsgLen bounds it over several iovecs).

// SendPipe is the pipe k sends on, with the position its next bytes
// take, for attaching descriptors; nil when k cannot send.
func (k *Socket) SendPipe() (*vfs.Pipe, uint64) {
	if k.State != Connected || k.shutWr || k.tx < 0 || k.dgram >= 0 || k.net >= 0 {
		return nil, 0
	}
	p := vfs.PipeAt(k.tx)
	return p, p.In
}

// RightsPending reports whether descriptors are in flight to k.
func (k *Socket) RightsPending() bool {
	if k.State != Connected || k.rx < 0 || k.dgram >= 0 || k.net >= 0 {
		return false
	}
	p := vfs.PipeAt(k.rx)
	_, _, ok := p.NextRights(p.Out)
	return ok
}

// ReadMsg is a read of a pipe connection for recvmsg: it takes the
// descriptors attached to the message it reads into rights (Read drops
// them) and, with cred, the credentials of its first byte (zero at the
// end of the stream, as Linux's unix_stream_read_generic gives them).
func (k *Socket) ReadMsg(buf uintptr, n uint64, rights *vfs.Rights, cred *unix.Ucred) uint64 {
	k.established()
	if k.State != Connected {
		return vfs.Err(unix.ENOTCONN)
	}
	if k.shutRd || k.rx < 0 || k.net >= 0 || k.dgram >= 0 {
		return 0
	}
	return k.readConn(buf, n, rights, cred)
}

// readConn reads k's pipe connection: up to n bytes, or one record.
// A stream read stops at the end of the first message it reaches that
// carries descriptors and, with SO_PASSCRED, where the credentials
// change (creds.go). With rights, it takes those descriptors; else, and
// for any other it passed, they are closed (read(2) drops them).
func (k *Socket) readConn(buf uintptr, n uint64, rights *vfs.Rights, cred *unix.Ucred) uint64 {
	p := vfs.PipeAt(k.rx)
	start := p.Out
	at, _, carried := p.NextRights(start)
	c := p.CredAt(start)
	var r uint64
	if k.records() {
		r, _ = p.ReadRecord(buf, n)
	} else {
		r = p.ReadAt(buf, min(n, k.msgLeft(p)))
	}
	if vfs.IsErr(r) {
		return r
	}
	if rights != nil && carried && p.Out > at {
		p.TakeRights(at, rights)
	}
	p.DropRights(p.Out)
	p.DropCreds()
	if cred != nil && p.Out > start {
		*cred = c
	}
	if r == 0 && n > 0 {
		return k.readEnd()
	}
	return r
}
