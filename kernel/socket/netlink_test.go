//go:build !arm64

package socket

import (
	"encoding/binary"
	"syscall"
	"testing"
	"unsafe"

	"github.com/gometal/gometal/kernel/inet"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// dump sends a netlink request of typ with flags and reads the whole
// reply, read by read, as syscall.NetlinkRIB does.
func dump(t *testing.T, k *Socket, f *vfs.File, buf uintptr, typ, flags uint16, readSize uint64) []syscall.NetlinkMessage {
	t.Helper()
	var req [20]byte
	binary.NativeEndian.PutUint32(req[0:], 17)
	binary.NativeEndian.PutUint16(req[4:], typ)
	binary.NativeEndian.PutUint16(req[6:], flags)
	binary.NativeEndian.PutUint32(req[8:], 7) // seq
	req[16] = unix.AF_UNSPEC
	usermem.CopyOut(buf, req[:17])
	if r := f.Impl.Write(f, buf, 17, -1); r != 17 {
		t.Fatalf("send: %d", int64(r))
	}
	var msgs []syscall.NetlinkMessage
	for range 10 {
		r := f.Impl.Read(f, buf, readSize, -1)
		if int64(r) <= 0 {
			t.Fatalf("read: %d", int64(r))
		}
		b := make([]byte, r)
		usermem.CopyIn(b, buf)
		m, err := syscall.ParseNetlinkMessage(b)
		if err != nil {
			t.Fatalf("syscall.ParseNetlinkMessage: %v", err)
		}
		msgs = append(msgs, m...)
		if last := m[len(m)-1].Header.Type; last == syscall.NLMSG_DONE || last == syscall.NLMSG_ERROR {
			return msgs
		}
	}
	t.Fatal("no NLMSG_DONE in 10 reads")
	return nil
}

// The link and address dumps Go's net.Interfaces and InterfaceAddrs ask
// for, parsed by the syscall package's own parsers: lo and eth0 with
// their flags, MTUs and MAC; 127.0.0.1/8 and the interface's address
// with its prefix; every message with the request's sequence number and
// the socket's port id (the process's pid, for the first socket). Read
// a message at a time, the dump comes the same. Anything else is
// EOPNOTSUPP in an NLMSG_ERROR.
func TestNetlinkRouteDumps(t *testing.T) {
	buf := setup(t)
	ProcessID = 1
	inet.If = inet.Iface{MAC: [6]byte{0x52, 0x54, 0, 0x12, 0x34, 0x56}, IP: [4]byte{10, 0, 2, 15}, Mask: [4]byte{255, 255, 255, 0}}
	defer func() { inet.If = inet.Iface{} }()
	k, f := newOfFamily(t, unix.AF_NETLINK)
	k2, _ := newOfFamily(t, unix.AF_NETLINK)
	defer func() { k.unref(); k2.unref() }()
	if k.BindNetlink(0); k.NetlinkPid() != 1 {
		t.Fatalf("the first netlink socket's port id: %d, want the pid", k.NetlinkPid())
	}
	if k2.BindNetlink(0); int32(k2.NetlinkPid()) != -4097 {
		t.Fatalf("the second's: %d, want -4097", int32(k2.NetlinkPid()))
	}

	for _, size := range []uint64{4096, 100} {
		msgs := dump(t, k, f, buf, syscall.RTM_GETLINK, syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP, size)
		if len(msgs) != 3 || msgs[2].Header.Type != syscall.NLMSG_DONE {
			t.Fatalf("read size %d: %d messages", size, len(msgs))
		}
		for i, m := range msgs[:2] {
			if m.Header.Type != syscall.RTM_NEWLINK || m.Header.Seq != 7 || m.Header.Pid != 1 {
				t.Fatalf("message %d: header %+v", i, m.Header)
			}
			info := (*syscall.IfInfomsg)(unsafePointer(&m.Data[0]))
			attrs, err := syscall.ParseNetlinkRouteAttr(&m)
			if err != nil {
				t.Fatal(err)
			}
			got := map[uint16][]byte{}
			for _, a := range attrs {
				got[a.Attr.Type] = a.Value
			}
			name, mtu := string(got[syscall.IFLA_IFNAME]), binary.NativeEndian.Uint32(got[syscall.IFLA_MTU])
			switch {
			case i == 0 && (info.Index != 1 || name != "lo\x00" || mtu != 65536 || info.Flags&syscall.IFF_LOOPBACK == 0 || info.Type != syscall.ARPHRD_LOOPBACK):
				t.Errorf("lo: %+v %q mtu %d", info, name, mtu)
			case i == 1 && (info.Index != 2 || name != "eth0\x00" || mtu != 1500 || string(got[syscall.IFLA_ADDRESS]) != string(inet.If.MAC[:]) ||
				info.Flags&(syscall.IFF_UP|syscall.IFF_RUNNING|syscall.IFF_BROADCAST) != syscall.IFF_UP|syscall.IFF_RUNNING|syscall.IFF_BROADCAST):
				t.Errorf("eth0: %+v %q mtu %d address % x", info, name, mtu, got[syscall.IFLA_ADDRESS])
			}
		}
	}

	msgs := dump(t, k, f, buf, syscall.RTM_GETADDR, syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP, 4096)
	if len(msgs) != 3 {
		t.Fatalf("address dump: %d messages", len(msgs))
	}
	for i, want := range []struct {
		idx    uint32
		prefix uint8
		ip     [4]byte
	}{{1, 8, [4]byte{127, 0, 0, 1}}, {2, 24, inet.If.IP}} {
		m := msgs[i]
		a := (*syscall.IfAddrmsg)(unsafePointer(&m.Data[0]))
		attrs, err := syscall.ParseNetlinkRouteAttr(&m)
		if err != nil {
			t.Fatal(err)
		}
		var local []byte
		for _, at := range attrs {
			if at.Attr.Type == syscall.IFA_LOCAL {
				local = at.Value
			}
		}
		if m.Header.Type != syscall.RTM_NEWADDR || a.Family != syscall.AF_INET || a.Index != want.idx || a.Prefixlen != want.prefix || string(local) != string(want.ip[:]) {
			t.Errorf("address %d: %+v local %v, want %+v", i, a, local, want)
		}
	}

	msgs = dump(t, k, f, buf, syscall.RTM_GETROUTE, syscall.NLM_F_REQUEST|syscall.NLM_F_DUMP, 4096)
	if len(msgs) != 1 || msgs[0].Header.Type != syscall.NLMSG_ERROR || int32(binary.NativeEndian.Uint32(msgs[0].Data)) != -int32(unix.EOPNOTSUPP) {
		t.Errorf("a route dump: %+v, want NLMSG_ERROR EOPNOTSUPP", msgs)
	}
	if r := f.Impl.Read(f, buf, 4096, -1); r != vfs.Err(unix.EAGAIN) {
		t.Errorf("a read with nothing asked: %d, want EAGAIN", int64(r))
	}
}

func unsafePointer(b *byte) unsafe.Pointer { return unsafe.Pointer(b) }
