package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/socket"
	"github.com/gometal/gometal/kernel/usermem"

	"golang.org/x/sys/unix"
)

// The socket options whose value is a struct, not an int (socket(7)):
// SO_LINGER's struct linger and SO_PEERCRED's struct ucred (the peer's
// as kernel/socket recorded it when the connection was made). getsockopt
// copies at most the caller's *optlen bytes and stores the size it
// copied, as Linux's sock_getsockopt does.

const (
	lingerLen = unsafe.Sizeof(unix.Linger{})
	ucredLen  = unsafe.Sizeof(unix.Ucred{})
	// overflowID is the id Linux reports for one it cannot map
	// (overflowuid, overflowgid): SCM_CREDENTIALS of a message sent
	// with none.
	overflowID = 65534
)

// setLinger is setsockopt(SO_LINGER): EINVAL for less than a struct
// linger, as sock_setsockopt answers.
func setLinger(k *socket.Socket, optval uintptr, optlen uint64) uint64 {
	var l unix.Linger
	if optlen < uint64(lingerLen) {
		return errno(unix.EINVAL)
	}
	if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&l), lingerLen), optval) {
		return errno(unix.EFAULT)
	}
	k.SetLinger(l.Onoff != 0, l.Linger)
	return 0
}

// getStructOpt is getsockopt of SO_LINGER or SO_PEERCRED.
func getStructOpt(k *socket.Socket, name uint64, optval, optlenAddr uintptr) uint64 {
	n, ok := usermem.ReadU32(optlenAddr)
	if !ok {
		return errno(unix.EFAULT)
	}
	if int32(n) < 0 {
		return errno(unix.EINVAL)
	}
	var l unix.Linger
	var c unix.Ucred
	var b []byte
	if name == unix.SO_LINGER {
		on, secs := k.Linger()
		if on {
			l.Onoff = 1
		}
		l.Linger = secs
		b = usermem.BytesOf(unsafe.Pointer(&l), lingerLen)
	} else {
		c = k.PeerCred() // pid 0 and ids -1 for none (cred_to_ucred)
		b = usermem.BytesOf(unsafe.Pointer(&c), ucredLen)
	}
	b = b[:min(uint64(n), uint64(len(b)))]
	if !usermem.CopyOut(optval, b) || !usermem.WriteU32(optlenAddr, uint32(len(b))) {
		return errno(unix.EFAULT)
	}
	return 0
}
