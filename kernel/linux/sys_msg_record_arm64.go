package linux

import (
	"github.com/gometal/gometal/kernel/socket"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// sendmsg(2) and recvmsg(2) on a socket whose connection carries records
// (AF_UNIX SOCK_SEQPACKET, or a SOCK_DGRAM socketpair): one call, one
// record, gathered from or scattered over all the iovecs (Linux's
// unix_seqpacket_sendmsg and unix_dgram_recvmsg). What does not fit the
// reader's iovecs is dropped and the reader told with MSG_TRUNC in
// msg_flags; with MSG_TRUNC in the call's flags the call returns the
// record's whole length, as Linux does.

// sendRecordMsg sends the cnt iovecs at iov (a message's, or writev's)
// as one record. Descriptors in rights (nil: none) go with the record.
func sendRecordMsg(t *sched.Thread, fl *vfs.File, k *socket.Socket, iov uintptr, cnt uint64, flags uint64, rights *vfs.Rights) uint64 {
	var total uint64
	for i := uint64(0); i < cnt; i++ {
		_, l, ok := iovAt(iov, i)
		if !ok {
			return errno(unix.EFAULT)
		}
		if l > vfs.MaxRecord || total+l > vfs.MaxRecord {
			return errno(unix.EMSGSIZE)
		}
		total += l
	}
	p, e := k.RecordPipe(true)
	if e == 0 {
		e = k.StampSend(p) // its credentials
	}
	if e != 0 {
		return errno(e)
	}
	at := p.In
	r, e := p.BeginWrite(total)
	if e == unix.EAGAIN && flags&unix.MSG_DONTWAIT == 0 {
		return vfs.Wait(t, fl, unix.EPOLLOUT)
	}
	if e != 0 {
		return errno(e)
	}
	for i := uint64(0); i < cnt; i++ {
		base, l, _ := iovAt(iov, i)
		if ok, faulted := p.WritePart(&r, base, l); !ok {
			p.Abort(&r)
			if faulted {
				return errno(unix.EFAULT)
			}
			return errno(unix.ENOBUFS) // no page for the ring
		}
	}
	p.EndWrite(&r)
	if rights != nil && rights.N > 0 {
		p.Attach(at, p.In, rights)
	}
	return total
}

// recvRecordMsg receives one record over the cnt iovecs at iov (a
// message's, or readv's): the result, and whether the record was cut
// short. The descriptors sent with it go to rights, or are closed when
// rights is nil.
func recvRecordMsg(t *sched.Thread, fl *vfs.File, k *socket.Socket, iov uintptr, cnt uint64, flags uint64, rights *vfs.Rights) (uint64, bool) {
	p, e := k.RecordPipe(false)
	if e != 0 {
		return errno(e), false
	}
	if p == nil {
		return 0, false // shut down for reading: EOF
	}
	at := p.Out
	r, e := p.BeginRead()
	if e == unix.EAGAIN && flags&unix.MSG_DONTWAIT == 0 {
		return vfs.Wait(t, fl, unix.EPOLLIN), false
	}
	if e != 0 {
		return errno(e), false
	}
	if r.EOF {
		return 0, false
	}
	var done uint64
	for i := uint64(0); i < cnt && done < r.Len; i++ {
		base, l, ok := iovAt(iov, i)
		if !ok {
			p.Abort(&r)
			return errno(unix.EFAULT), false
		}
		got, ok := p.ReadPart(&r, base, l)
		if !ok {
			p.Abort(&r)
			return errno(unix.EFAULT), false
		}
		done += got
	}
	p.EndRead(&r)
	if rights != nil {
		p.TakeRights(at, rights)
	}
	p.DropRights(p.Out)
	p.DropCreds()
	if flags&unix.MSG_TRUNC != 0 {
		return r.Len, done < r.Len
	}
	return done, done < r.Len
}
