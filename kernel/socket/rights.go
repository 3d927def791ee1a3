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
// descriptors and stops after one with them.

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

// ReadRights is a read of a pipe connection that takes the descriptors
// attached to the message it reads into rights (Read drops them).
func (k *Socket) ReadRights(buf uintptr, n uint64, rights *vfs.Rights) uint64 {
	k.established()
	if k.State != Connected {
		return vfs.Err(unix.ENOTCONN)
	}
	if k.shutRd || k.rx < 0 || k.net >= 0 || k.dgram >= 0 {
		return 0
	}
	return k.readConn(buf, n, rights)
}

// readConn reads k's pipe connection: up to n bytes, or one record.
// A stream read stops at the end of the first message it reaches that
// carries descriptors. With rights, it takes those descriptors; else,
// and for any other it passed, they are closed (read(2) drops them).
func (k *Socket) readConn(buf uintptr, n uint64, rights *vfs.Rights) uint64 {
	p := vfs.PipeAt(k.rx)
	start := p.Out
	at, end, carried := p.NextRights(start)
	if carried && !k.records() {
		n = min(n, end-start)
	}
	var r uint64
	if k.records() {
		r, _ = p.ReadRecord(buf, n)
	} else {
		r = p.ReadAt(buf, n)
	}
	if vfs.IsErr(r) {
		return r
	}
	if rights != nil && carried && p.Out > at {
		p.TakeRights(at, rights)
	}
	p.DropRights(p.Out)
	if r == 0 && n > 0 {
		return k.readEnd()
	}
	return r
}
