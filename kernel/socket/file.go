package socket

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/inet"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// A Socket as an open file (vfs.Impl).

// Read and Write move data through the connection's pipes.
func (k *Socket) Read(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	if k.dgram >= 0 {
		return k.readDgram(buf, n)
	}
	if k.IsNetlink() {
		return k.readNetlink(buf, n)
	}
	k.established()
	if k.State == Connecting {
		return vfs.Err(unix.EAGAIN)
	}
	if k.State != Connected {
		return vfs.Err(unix.ENOTCONN)
	}
	if k.net >= 0 {
		return k.readNet(buf, n)
	}
	if k.shutRd || k.rx < 0 {
		return 0
	}
	return k.readConn(buf, n, nil, nil)
}

func (k *Socket) Write(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	if k.dgram >= 0 {
		return k.writeDgram(buf, n)
	}
	if k.IsNetlink() {
		return k.NetlinkSend(buf, n)
	}
	k.established()
	if k.State == Connecting {
		return vfs.Err(unix.EAGAIN)
	}
	if k.State != Connected {
		return vfs.Err(unix.ENOTCONN)
	}
	if k.net >= 0 {
		return k.writeNet(buf, n)
	}
	if k.shutWr || k.tx < 0 {
		return vfs.Err(unix.EPIPE)
	}
	p := vfs.PipeAt(k.tx)
	if k.Family == unix.AF_UNIX {
		if e := k.StampSend(p); e != 0 {
			return vfs.Err(e)
		}
	}
	if k.records() {
		return p.WriteRecord(buf, n)
	}
	return p.WriteAt(buf, n)
}

// records reports whether k's pipes carry records: a seqpacket
// connection, or a datagram socket pair (socketpair(2) with SOCK_DGRAM:
// connected, unnamed, and so a pair of pipes like a stream's).
func (k *Socket) records() bool {
	return k.Type == unix.SOCK_SEQPACKET || k.Type == unix.SOCK_DGRAM
}

func (k *Socket) Waitable() *vfs.Waitable { return &k.W }
func (k *Socket) Kind() vfs.Kind          { return vfs.KindSocket }
func (k *Socket) Release(f *vfs.File)     { k.unref() }

func (k *Socket) index() int32 {
	return int32((uintptr(unsafe.Pointer(k)) - uintptr(unsafe.Pointer(&sockets[0]))) / unsafe.Sizeof(sockets[0]))
}

func (k *Socket) Stat(f *vfs.File) unix.Stat_t {
	return unix.Stat_t{Mode: unix.S_IFSOCK | 0o777, Nlink: 1, Blksize: 4096}
}

// Readiness reports a socket's EPOLL* bits.
func (k *Socket) Readiness(f *vfs.File) uint32 {
	if k.dgram >= 0 {
		return k.dgramReadiness()
	}
	if k.IsNetlink() {
		return k.netlinkReadiness()
	}
	if k.net >= 0 && k.State != Listening {
		return inet.TCPPoll(k.net)
	}
	switch k.State {
	case Listening:
		if k.nbacklog > 0 {
			return unix.EPOLLIN
		}
		if k.net >= 0 {
			return inet.TCPPoll(k.net) & unix.EPOLLIN
		}
		return 0
	case Connected:
		var r uint32
		if k.rx >= 0 {
			// A socket reports the peer's close as readable + RDHUP.
			if e := vfs.PipeAt(k.rx).ReadEvents(); e != 0 {
				r |= unix.EPOLLIN
				if e&unix.EPOLLHUP != 0 {
					r |= unix.EPOLLRDHUP
				}
				if e&unix.EPOLLERR != 0 { // reset (abort.go)
					r |= unix.EPOLLERR | unix.EPOLLHUP
				}
			}
		}
		if k.tx >= 0 && k.records() {
			r |= vfs.PipeAt(k.tx).RecordWriteEvents()
		} else if k.tx >= 0 {
			r |= vfs.PipeAt(k.tx).WriteEvents()
		}
		if k.rx < 0 && k.tx < 0 {
			r |= unix.EPOLLHUP
		}
		return r
	}
	return unix.EPOLLOUT // unconnected: Linux reports writable/hup
}
