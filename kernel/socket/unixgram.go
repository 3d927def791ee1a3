package socket

import (
	"encoding/binary"

	"github.com/gometal/gometal/kernel/inet"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// AF_UNIX datagram sockets (unix(7), SOCK_DGRAM): named as stream
// sockets are (a path's socket file, an abstract name, or none), each
// with a kernel/inet endpoint as its queue of whole datagrams, one with
// no port, so that nothing from the network reaches it. A datagram is
// put straight into the queue of the socket its name reaches now; its
// record carries the sender's socket index (plus one; 0: unnamed), whose
// name recvfrom reports, and the credentials it was sent with (creds.go). Linux copies the sender's name into the
// datagram; here a sender that closed before the read reads as unnamed.
// A full queue answers EAGAIN (Linux blocks a blocking sender until
// there is room; here the send waits on the receiver's queue the same
// way only through poll).

// unixDgramTarget is the datagram socket named a.
func unixDgramTarget(a *UnixAddr) (*Socket, unix.Errno) {
	s := bound(a)
	if s == nil {
		return nil, unix.ECONNREFUSED
	}
	if s.dgram < 0 {
		return nil, unix.EPROTOTYPE // a stream socket's name
	}
	return s, 0
}

// connectUnixDgram makes a the socket's default destination.
func (k *Socket) connectUnixDgram(a *UnixAddr) unix.Errno {
	t, e := unixDgramTarget(a)
	if e != 0 {
		return e
	}
	k.Peer, k.State = t.Name, Connected
	return 0
}

// SendToUnix sends n bytes at buf as one datagram to the socket named a.
func (k *Socket) SendToUnix(buf uintptr, n uint64, a *UnixAddr) uint64 {
	room := inet.UDPSendBuf(lo4)
	if n > uint64(len(room)) {
		return vfs.Err(unix.EMSGSIZE)
	}
	if done, ok := copyPieces(room[:n], nil, buf, n, false); !ok || done != n {
		return vfs.Err(unix.EFAULT)
	}
	return k.SendStagedUnix(n, a, nil)
}

// UnixRoom is where sendmsg gathers a datagram for SendStagedUnix.
func UnixRoom() []byte { return inet.UDPSendBuf(lo4) }

// SendStagedUnix queues the n bytes UnixRoom holds for the socket named
// a, with the descriptions in rights (SCM_RIGHTS; nil or empty: none),
// which the datagram's record names by its mark (vfs.AttachDatagram),
// and its credentials. With SO_PASSCRED an unnamed sender is named
// first, as unix_dgram_sendmsg autobinds it.
func (k *Socket) SendStagedUnix(n uint64, a *UnixAddr, rights *vfs.Rights) uint64 {
	t, e := unixDgramTarget(a)
	if e != 0 {
		return vfs.Err(e)
	}
	if k.passCred && k.Name.N == 0 {
		if e := k.autobind(); e != 0 {
			return vfs.Err(e)
		}
	}
	var tag [4]byte
	if k.Name.N > 0 {
		binary.LittleEndian.PutUint32(tag[:], uint32(k.index())+1)
	}
	var mark uint16
	if rights != nil && rights.N > 0 {
		if mark = vfs.AttachDatagram(rights); mark == 0 {
			return vfs.Err(unix.ETOOMANYREFS)
		}
	}
	if !inet.UDPEnqueue(t.dgram, tag, mark, credAux(k.credTo(t)), int(n)) {
		vfs.DropDatagramRights(mark)
		return vfs.Err(unix.EAGAIN)
	}
	return n
}

// DgramRights takes the descriptions the datagram just read from k
// carried, by its mark (the port TakeDgram was given), into r; with r
// nil it closes them, as a read(2) that passes them over does.
func (k *Socket) DgramRights(mark uint16, r *vfs.Rights) {
	if k.Family != unix.AF_UNIX || mark == 0 {
		return
	}
	if r == nil || !vfs.TakeDatagramRights(mark, r) {
		vfs.DropDatagramRights(mark)
	}
}

// dropQueuedRights closes the descriptions in flight with the
// datagrams still queued for k, which go with it.
func (k *Socket) dropQueuedRights() {
	if k.Family != unix.AF_UNIX || k.dgram < 0 {
		return
	}
	for {
		_, mark, _, _, ok := inet.UDPRecv(k.dgram)
		if !ok {
			return
		}
		inet.UDPConsume(k.dgram)
		vfs.DropDatagramRights(mark)
	}
}

// DgramPeerUnix is the name write sends to (connect's); ok false when
// none.
func (k *Socket) DgramPeerUnix() (a UnixAddr, ok bool) {
	return k.Peer, k.State == Connected
}

// FromUnix is the name of the sender of the datagram k's last read
// took, nil for an unnamed one or one that has closed since.
func (k *Socket) FromUnix() *UnixAddr {
	i := binary.LittleEndian.Uint32(k.fromAddr[:])
	if i == 0 || int(i) > MaxSockets {
		return nil
	}
	s := &sockets[i-1]
	if s.State == Free || s.Family != unix.AF_UNIX || s.Name.N == 0 {
		return nil
	}
	return &s.Name
}
