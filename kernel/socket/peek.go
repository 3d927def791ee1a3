package socket

import (
	"github.com/gometal/gometal/kernel/inet"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Peeking (recv(2) with MSG_PEEK): the bytes a read would take, copied
// and left where they are. Nothing readable answers what a read does
// then (EAGAIN, end of file, a pending error), which takes nothing.

// PeekAt copies up to n bytes of what k would read next, from off bytes
// into it, to buf: a stream's bytes, a record's, a datagram's (whose
// sender From and FromUnix then report). Descriptors in flight stay
// with their message.
func (k *Socket) PeekAt(off uint64, buf uintptr, n uint64) uint64 {
	if k.dgram >= 0 {
		src, sport, a, b, e := k.PeekDgram()
		if e != 0 {
			return vfs.Err(e)
		}
		k.PeekedDgram(src, sport)
		return peekPieces(a, b, off, buf, n)
	}
	if k.IsNetlink() {
		return vfs.Err(unix.EOPNOTSUPP) // its replies are made as read
	}
	k.established()
	if k.State != Connected {
		return k.Read(nil, buf, n, -1) // EAGAIN or ENOTCONN, as a read
	}
	if k.net >= 0 {
		a, b := inet.TCPRecv(k.net)
		if len(a) == 0 {
			return k.readNet(buf, n)
		}
		return peekPieces(a, b, off, buf, n)
	}
	if k.shutRd || k.rx < 0 {
		return 0
	}
	p := vfs.PipeAt(k.rx)
	if p.Len() == 0 {
		return k.readConn(buf, n, nil, nil)
	}
	var got uint64
	var ok bool
	if k.records() {
		got, _, ok = p.PeekRecord(buf, n, int(off))
	} else {
		got, ok = p.Peek(buf, n, int(off))
	}
	if !ok {
		return vfs.Err(unix.EFAULT)
	}
	return got
}

// peekPieces copies up to n bytes of a ring's two pieces, from off on.
func peekPieces(a, b []byte, off uint64, buf uintptr, n uint64) uint64 {
	if off >= uint64(len(a)) {
		off -= uint64(len(a))
		a, b = b, nil
	}
	a = a[min(off, uint64(len(a))):]
	done, ok := copyPieces(a, b, buf, n, true)
	if !ok {
		return vfs.Err(unix.EFAULT)
	}
	return done
}
