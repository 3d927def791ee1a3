package socket

import (
	"encoding/binary"

	"github.com/gometal/gometal/kernel/inet"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// NETLINK_ROUTE, the least of it (rtnetlink(7)): the link and address
// dumps that Go's net.Interfaces and net.InterfaceAddrs ask for
// (RTM_GETLINK and RTM_GETADDR with NLM_F_DUMP, syscall.NetlinkRIB),
// answered from the loopback and the interface kernel/inet configured.
// A request for anything else gets an NLMSG_ERROR of EOPNOTSUPP, as
// Linux answers a message type it has no handler for. Replies are made
// when the app reads them, into one scratch buffer (the kernel lock is
// held), a message at a time as they fit; nothing is kept per socket but
// what was asked.

const (
	nlmsgHdrLen = unix.SizeofNlMsghdr // 16
	ifinfoLen   = unix.SizeofIfInfomsg
	ifaddrLen   = unix.SizeofIfAddrmsg
	rtaHdrLen   = unix.SizeofRtAttr
	// nlMsgMax bounds one reply message: the largest here is a link,
	// 16 + 16 + five attributes of at most 12 bytes.
	nlMsgMax = 128
	// nlRequestMax is how much of a request is read: its header, and
	// for a request about one link its ifinfomsg and attributes (a name,
	// an extended-info mask); a dump needs only rtgenmsg's family byte.
	nlRequestMax = nlmsgHdrLen + ifinfoLen + 64

	ifindexLo  = 1 // the loopback is interface 1 on Linux
	ifindexEth = 2
	mtuLo      = 65536 // Linux's loopback MTU
	mtuEth     = 1500
	// ifOperUp is IFLA_OPERSTATE's "up" (RFC 2863's operStatus, as
	// Linux's IF_OPER_UP).
	ifOperUp = 6
	// nlPidFirstFree is where Linux's netlink autobind starts giving
	// negative port ids once the process's pid is taken
	// (netlink_autobind: -4096, counting down).
	nlPidFirstFree = -4097
)

// netlinkState is a netlink socket's: its port id and what it was last
// asked (req 0: nothing; next is the reply message the next read
// starts at).
type netlinkState struct {
	pid   uint32
	req   uint16
	seq   uint32
	flags uint16
	next  int
	// errHdr is the request an error answers, echoed in NLMSG_ERROR.
	errHdr [nlmsgHdrLen]byte
	// link is the interface a request about one link names (0: none
	// here), and answer what it gets (0: the link, or an ACK).
	link   uint32
	answer unix.Errno
}

var nlScratch [nlMsgMax]byte

// The interfaces' names, NUL-terminated as IFLA_IFNAME carries them:
// Linux names a virtio-net device eth0.
var (
	ifNameLo  = [8]byte{'l', 'o'}
	ifNameEth = [8]byte{'e', 't', 'h', '0'}
)

// ifNameLen is a name's length with its NUL.
func ifNameLen(n [8]byte) int {
	for i, c := range n {
		if c == 0 {
			return i + 1
		}
	}
	return len(n)
}

// IsNetlink reports an AF_NETLINK socket.
func (k *Socket) IsNetlink() bool { return k.Family == unix.AF_NETLINK }

// ProcessID is the app's pid, which its first netlink socket takes as
// its port id; the Linux layer sets it at boot.
var ProcessID uint32

// BindNetlink gives k its port id: pid, EADDRINUSE if another netlink
// socket has it; 0 chooses, as Linux's netlink_autobind does: the
// process's pid if free, else the next free negative one.
func (k *Socket) BindNetlink(pid uint32) unix.Errno {
	if k.nl.pid != 0 {
		return 0 // already bound (bind again with the same address)
	}
	if pid != 0 && nlPidInUse(pid) {
		return unix.EADDRINUSE
	}
	if pid == 0 {
		pid = ProcessID
	}
	if pid == 0 || nlPidInUse(pid) {
		c := int32(nlPidFirstFree)
		for nlPidInUse(uint32(c)) {
			c--
		}
		pid = uint32(c)
	}
	k.nl.pid, k.State = pid, Bound
	return 0
}

func nlPidInUse(pid uint32) bool {
	for i := range sockets {
		if sockets[i].State != Free && sockets[i].Family == unix.AF_NETLINK && sockets[i].nl.pid == pid {
			return true
		}
	}
	return false
}

// NetlinkPid is k's port id (getsockname's nl_pid).
func (k *Socket) NetlinkPid() uint32 { return k.nl.pid }

// NetlinkSend takes a request from the app's n bytes at buf (sendto(2),
// write(2)), binding k first if it is not.
func (k *Socket) NetlinkSend(buf uintptr, n uint64) uint64 {
	if n < nlmsgHdrLen {
		return vfs.Err(unix.EINVAL)
	}
	var req [nlRequestMax]byte
	m := min(n, uint64(len(req)))
	if !usermem.CopyIn(req[:m], buf) {
		return vfs.Err(unix.EFAULT)
	}
	if l := binary.NativeEndian.Uint32(req[0:]); l < nlmsgHdrLen || uint64(l) > n {
		return vfs.Err(unix.EINVAL)
	}
	k.BindNetlink(0)
	k.nl.req = binary.NativeEndian.Uint16(req[4:])
	k.nl.flags = binary.NativeEndian.Uint16(req[6:])
	k.nl.seq = binary.NativeEndian.Uint32(req[8:])
	k.nl.next = 0
	copy(k.nl.errHdr[:], req[:nlmsgHdrLen])
	if k.nl.flags&unix.NLM_F_DUMP != unix.NLM_F_DUMP && (k.nl.req == unix.RTM_GETLINK || k.nl.req == unix.RTM_NEWLINK || k.nl.req == unix.RTM_SETLINK) {
		k.nl.link, k.nl.answer = linkRequest(k.nl.req, req[:min(m, uint64(binary.NativeEndian.Uint32(req[0:])))])
		if k.nl.req != unix.RTM_GETLINK && k.nl.answer == 0 && k.nl.flags&unix.NLM_F_ACK == 0 {
			k.nl.req = 0 // done, and nothing to say (rtnetlink acks only when asked)
			return n
		}
	}
	vfs.Notify(&k.W, unix.EPOLLIN)
	return n
}

// linkRequest reads a request about one link (ifinfomsg: its index, the
// flags to change; or IFLA_IFNAME) and answers which link it names and
// what the request gets, as rtnl_getlink and rtnl_setlink answer: ENODEV
// for no such link; for a change, nothing to do when it brings a link
// up (both are up from boot), EOPNOTSUPP for anything else (taking one
// down, a new MTU or name: this kernel keeps its links as they are).
func linkRequest(typ uint16, req []byte) (link uint32, answer unix.Errno) {
	if len(req) < nlmsgHdrLen+ifinfoLen {
		return 0, unix.EINVAL
	}
	info := req[nlmsgHdrLen:]
	idx := binary.NativeEndian.Uint32(info[4:])
	flags, change := binary.NativeEndian.Uint32(info[8:]), binary.NativeEndian.Uint32(info[12:])
	other := false
	for a := info[ifinfoLen:]; len(a) >= rtaHdrLen; {
		l := int(binary.NativeEndian.Uint16(a[0:]))
		if l < rtaHdrLen || l > len(a) {
			break
		}
		switch binary.NativeEndian.Uint16(a[2:]) {
		case unix.IFLA_IFNAME:
			if idx == 0 {
				idx = linkNamed(a[rtaHdrLen:l])
			}
		case unix.IFLA_EXT_MASK:
		default:
			other = true
		}
		l = (l + unix.RTA_ALIGNTO - 1) &^ (unix.RTA_ALIGNTO - 1)
		a = a[min(l, len(a)):]
	}
	if idx != ifindexLo && !(idx == ifindexEth && HasEthernet()) {
		return 0, unix.ENODEV
	}
	if typ != unix.RTM_GETLINK && (other || change&^unix.IFF_UP != 0 || change&unix.IFF_UP != 0 && flags&unix.IFF_UP == 0) {
		return idx, unix.EOPNOTSUPP
	}
	return idx, 0
}

// linkNamed is the index of the link whose name is nm (NUL-terminated
// or not), 0 for none.
func linkNamed(nm []byte) uint32 {
	for i, c := range nm {
		if c == 0 {
			nm = nm[:i]
			break
		}
	}
	switch string(nm) { // a comparison with constants: no string is made
	case "lo":
		return ifindexLo
	case "eth0":
		return ifindexEth
	}
	return 0
}

// netlinkReadiness: readable while a reply waits.
func (k *Socket) netlinkReadiness() uint32 {
	if k.nl.req != 0 {
		return unix.EPOLLIN | unix.EPOLLOUT
	}
	return unix.EPOLLOUT
}

// readNetlink copies the reply's next messages that fit n bytes at buf
// (at least one: a buffer too small for it gets its front, the rest is
// gone, as a datagram). EAGAIN with no request pending.
func (k *Socket) readNetlink(buf uintptr, n uint64) uint64 {
	if k.nl.req == 0 {
		return vfs.Err(unix.EAGAIN)
	}
	done := uint64(0)
	for {
		msg, last := k.netlinkMessage(k.nl.next)
		if done > 0 && uint64(len(msg)) > n-done {
			break
		}
		w := min(uint64(len(msg)), n-done)
		if !usermem.CopyOut(buf+uintptr(done), msg[:w]) {
			return vfs.Err(unix.EFAULT)
		}
		done += w
		k.nl.next++
		if last {
			k.nl.req = 0
			break
		}
	}
	return done
}

// netlinkMessage builds reply message i into nlScratch; last says it
// ends the reply.
func (k *Socket) netlinkMessage(i int) (msg []byte, last bool) {
	eth := HasEthernet()
	if k.nl.flags&unix.NLM_F_DUMP != unix.NLM_F_DUMP {
		return k.linkReply(i)
	}
	switch {
	case k.nl.flags&unix.NLM_F_DUMP != unix.NLM_F_DUMP || k.nl.req != unix.RTM_GETLINK && k.nl.req != unix.RTM_GETADDR:
		return k.nlError(unix.EOPNOTSUPP), true
	case i == 0 && k.nl.req == unix.RTM_GETLINK:
		return k.nlLink(ifindexLo), false
	case i == 1 && k.nl.req == unix.RTM_GETLINK && eth:
		return k.nlLink(ifindexEth), false
	case i == 0 && k.nl.req == unix.RTM_GETADDR:
		return k.nlAddr(ifindexLo), false
	case i == 1 && k.nl.req == unix.RTM_GETADDR && eth && inet.If.IP != ([4]byte{}):
		return k.nlAddr(ifindexEth), false
	}
	return k.nlDone(), true
}

// linkReply is the answer to a request about one link: the link
// (RTM_GETLINK; a single message, not part of a dump) or an error,
// then an ACK if the request asked for one (netlink_rcv_skb).
func (k *Socket) linkReply(i int) (msg []byte, last bool) {
	ack := k.nl.flags&unix.NLM_F_ACK != 0
	switch {
	case k.nl.req != unix.RTM_GETLINK && k.nl.req != unix.RTM_NEWLINK && k.nl.req != unix.RTM_SETLINK:
		return k.nlError(unix.EOPNOTSUPP), true
	case k.nl.answer != 0 || k.nl.req != unix.RTM_GETLINK || i > 0:
		return k.nlError(k.nl.answer), true
	}
	msg = k.nlLink(k.nl.link)
	binary.NativeEndian.PutUint16(msg[6:], 0) // not part of a dump
	return msg, !ack
}

// nlWriter appends a message to nlScratch.
type nlWriter struct{ n int }

func (w *nlWriter) put(b ...byte) {
	w.n += copy(nlScratch[w.n:], b)
}

func (w *nlWriter) u16(v uint16) { w.put(byte(v), byte(v>>8)) }
func (w *nlWriter) u32(v uint32) { w.u16(uint16(v)); w.u16(uint16(v >> 16)) }

// attr appends a route attribute (struct rtattr and its value, padded
// to 4 bytes: RTA_ALIGN).
func (w *nlWriter) attr(typ uint16, v []byte) {
	w.u16(uint16(rtaHdrLen + len(v)))
	w.u16(typ)
	w.put(v...)
	for w.n%unix.RTA_ALIGNTO != 0 {
		w.put(0)
	}
}

// header starts a message of typ; end fills in its length.
func (k *Socket) header(w *nlWriter, typ uint16) {
	clear(nlScratch[:])
	w.u32(0)
	w.u16(typ)
	w.u16(unix.NLM_F_MULTI)
	w.u32(k.nl.seq)
	w.u32(k.nl.pid)
}

func (w *nlWriter) end() []byte {
	binary.NativeEndian.PutUint32(nlScratch[0:], uint32(w.n))
	return nlScratch[:w.n]
}

// LinkOf is what interface idx is (the loopback, else the Ethernet
// device): its ARPHRD type, IFF_* flags, MTU and hardware address, as
// RTM_NEWLINK and /sys/class/net tell them.
func LinkOf(idx uint32) (typ uint16, flags, mtu uint32, mac [6]byte) {
	if idx == ifindexEth {
		return unix.ARPHRD_ETHER, unix.IFF_UP | unix.IFF_BROADCAST | unix.IFF_RUNNING | unix.IFF_MULTICAST | unix.IFF_LOWER_UP,
			mtuEth, inet.If.MAC
	}
	return unix.ARPHRD_LOOPBACK, unix.IFF_UP | unix.IFF_LOOPBACK | unix.IFF_RUNNING | unix.IFF_LOWER_UP, mtuLo, mac
}

// HasEthernet says whether the machine has its Ethernet interface
// (eth0: a network device brought up).
func HasEthernet() bool { return inet.If.IP != ([4]byte{}) || inet.If.MAC != ([6]byte{}) }

// nlLink is RTM_NEWLINK for interface idx: struct ifinfomsg and its
// name, MTU, hardware and broadcast addresses and operational state.
func (k *Socket) nlLink(idx uint32) []byte {
	var w nlWriter
	k.header(&w, unix.RTM_NEWLINK)
	typ, flags, mtu, mac := LinkOf(idx)
	name := ifNameLo
	var bcast [6]byte
	if idx == ifindexEth {
		name = ifNameEth
		bcast = [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	}
	w.put(unix.AF_UNSPEC, 0)
	w.u16(typ)
	w.u32(idx)
	w.u32(flags)
	w.u32(0) // ifi_change
	w.attr(unix.IFLA_IFNAME, name[:ifNameLen(name)])
	var v [4]byte
	binary.NativeEndian.PutUint32(v[:], mtu)
	w.attr(unix.IFLA_MTU, v[:])
	w.attr(unix.IFLA_ADDRESS, mac[:])
	w.attr(unix.IFLA_BROADCAST, bcast[:])
	w.attr(unix.IFLA_OPERSTATE, []byte{ifOperUp})
	return w.end()
}

// nlAddr is RTM_NEWADDR for interface idx's IPv4 address: struct
// ifaddrmsg, the address (IFA_ADDRESS and IFA_LOCAL agree on a
// broadcast link), its broadcast address and the interface's name.
func (k *Socket) nlAddr(idx uint32) []byte {
	var w nlWriter
	k.header(&w, unix.RTM_NEWADDR)
	ip, prefix, scope, label := [4]byte{127, 0, 0, 1}, byte(8), byte(unix.RT_SCOPE_HOST), ifNameLo
	if idx == ifindexEth {
		ip, prefix, scope, label = inet.If.IP, prefixLen(inet.If.Mask), unix.RT_SCOPE_UNIVERSE, ifNameEth
	}
	w.put(unix.AF_INET, prefix, unix.IFA_F_PERMANENT, scope)
	w.u32(idx)
	w.attr(unix.IFA_ADDRESS, ip[:])
	w.attr(unix.IFA_LOCAL, ip[:])
	if idx == ifindexEth {
		var b [4]byte
		for i := range b {
			b[i] = ip[i] | ^inet.If.Mask[i]
		}
		w.attr(unix.IFA_BROADCAST, b[:])
	}
	w.attr(unix.IFA_LABEL, label[:ifNameLen(label)])
	return w.end()
}

// nlDone ends a dump: NLMSG_DONE with an int of 0.
func (k *Socket) nlDone() []byte {
	var w nlWriter
	k.header(&w, unix.NLMSG_DONE)
	w.u32(0)
	return w.end()
}

// nlError answers the request with NLMSG_ERROR: -errno and the request's
// header (netlink(7)).
func (k *Socket) nlError(e unix.Errno) []byte {
	var w nlWriter
	k.header(&w, unix.NLMSG_ERROR)
	binary.NativeEndian.PutUint16(nlScratch[6:], 0) // not part of a dump
	w.u32(uint32(-int32(e)))
	w.put(k.nl.errHdr[:]...)
	return w.end()
}

// prefixLen counts a netmask's leading ones.
func prefixLen(mask [4]byte) byte {
	n := byte(0)
	for _, b := range mask {
		for b&0x80 != 0 {
			n++
			b <<= 1
		}
	}
	return n
}
