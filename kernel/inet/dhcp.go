package inet

import "encoding/binary"

// The DHCP client (RFC 2131; options RFC 2132). It runs the exchange
// from INIT: DISCOVER (broadcast) → OFFER → REQUEST (broadcast, naming
// the server) → ACK, and configures the interface from the ACK. Renewal
// is not done: the lease QEMU's server gives (a day) outlasts a run.
const (
	bootpLen       = 236 // the fixed BOOTP header, up to the options (RFC 2131 §2)
	bootpMinLen    = 300 // what BOOTP relays and servers may expect at least (RFC 1542 §2.1)
	bootRequest    = 1
	bootReply      = 2
	bootpFlagBcast = 0x8000     // "broadcast" (RFC 2131 §2, Figure 2)
	dhcpCookie     = 0x63825363 // 99.130.83.99 (RFC 2131 §3)

	optPad        = 0
	optSubnetMask = 1
	optRouter     = 3
	optDNS        = 6
	optRequested  = 50
	optLease      = 51
	optMsgType    = 53
	optServerID   = 54
	optParamList  = 55
	optEnd        = 255

	msgDiscover = 1
	msgOffer    = 2
	msgRequest  = 3
	msgAck      = 5
	msgNak      = 6

	// dhcpFirstTimeout is the first retransmission's delay. RFC 2131
	// §4.1 suggests 4 s, doubling to 64 s, for a network shared with
	// many clients; the kernel waits for a lease at boot, where QEMU's
	// server answers within a millisecond and a lost first message
	// should not cost 4 s. It still doubles, to dhcpMaxTimeout.
	dhcpFirstTimeout = 500e6
	dhcpMaxTimeout   = 64e9
)

// DHCP client states (RFC 2131 §4.4, Figure 5, as far as this client
// goes).
const (
	DHCPInit = iota
	DHCPSelecting
	DHCPRequesting
	DHCPBound
)

// DHCPClient is the client's state.
type DHCPClient struct {
	State        int
	XID          uint32
	Offered      [4]byte // yiaddr of the offer taken
	Server       [4]byte // its server identifier (option 54)
	LeaseSeconds uint32
	sentAt       int64
	timeout      int64
}

// DHCP is the interface's client.
var DHCP DHCPClient

// DHCPStart begins the exchange with transaction id xid.
func DHCPStart(now int64, xid uint32) {
	DHCP = DHCPClient{State: DHCPSelecting, XID: xid, timeout: dhcpFirstTimeout}
	dhcpSend(msgDiscover, now)
}

// DHCPTick retransmits the last message if its timeout has passed.
func DHCPTick(now int64) {
	if DHCP.State != DHCPSelecting && DHCP.State != DHCPRequesting || now-DHCP.sentAt < DHCP.timeout {
		return
	}
	if DHCP.timeout < dhcpMaxTimeout {
		DHCP.timeout *= 2
	}
	if DHCP.State == DHCPSelecting {
		dhcpSend(msgDiscover, now)
	} else {
		dhcpSend(msgRequest, now)
	}
}

// dhcpSend builds a DISCOVER or REQUEST and broadcasts it from 0.0.0.0:68
// (RFC 2131 §4.1: the client has no address yet).
func dhcpSend(typ byte, now int64) {
	m := udpPayload()[:bootpMinLen]
	clear(m)
	m[0], m[1], m[2] = bootRequest, arpHWEther, 6
	binary.BigEndian.PutUint32(m[4:], DHCP.XID)
	binary.BigEndian.PutUint16(m[10:], bootpFlagBcast)
	copy(m[28:34], If.MAC[:]) // chaddr
	binary.BigEndian.PutUint32(m[bootpLen:], dhcpCookie)
	o := bootpLen + 4
	m[o], m[o+1], m[o+2] = optMsgType, 1, typ
	o += 3
	if typ == msgRequest {
		// SELECTING → REQUESTING: name the offer taken and its
		// server (RFC 2131 §4.3.2, Table 5).
		m[o], m[o+1] = optRequested, 4
		copy(m[o+2:o+6], DHCP.Offered[:])
		m[o+6], m[o+7] = optServerID, 4
		copy(m[o+8:o+12], DHCP.Server[:])
		o += 12
	}
	m[o], m[o+1] = optParamList, 4
	m[o+2], m[o+3], m[o+4], m[o+5] = optSubnetMask, optRouter, optDNS, optLease
	o += 6
	m[o] = optEnd
	DHCP.sentAt = now
	udpSend(broadcastMAC(), [4]byte{}, [4]byte{255, 255, 255, 255}, portDHCPClient, portDHCPServer, bootpMinLen)
}

// dhcpReply is what dhcpInput reads from a server's message.
type dhcpReply struct {
	typ                byte
	yiaddr, server     [4]byte
	mask, router, dns  [4]byte
	lease              uint32
	hasServer, hasMask bool
}

// dhcpParse checks a BOOTREPLY for this client and reads its options
// (RFC 2132 §2: pad and end are one byte, every other option is code,
// length, value; each length is checked against the message). The
// overload option (52) is not followed: options in sname and file are
// not read.
func dhcpParse(m []byte, r *dhcpReply) bool {
	if len(m) < bootpLen+4 || m[0] != bootReply || m[1] != arpHWEther || m[2] != 6 ||
		be32(m[4:]) != DHCP.XID || be32(m[bootpLen:]) != dhcpCookie {
		return false
	}
	for i := range If.MAC {
		if m[28+i] != If.MAC[i] {
			return false
		}
	}
	r.yiaddr = ip4(m[16:20])
	for i := bootpLen + 4; i < len(m); {
		code := m[i]
		if code == optPad {
			i++
			continue
		}
		if code == optEnd {
			break
		}
		if i+2 > len(m) || i+2+int(m[i+1]) > len(m) {
			return false
		}
		v := m[i+2 : i+2+int(m[i+1])]
		i += 2 + len(v)
		switch code {
		case optMsgType:
			if len(v) != 1 {
				return false
			}
			r.typ = v[0]
		case optServerID:
			if len(v) != 4 {
				return false
			}
			r.server, r.hasServer = ip4(v), true
		case optSubnetMask:
			if len(v) != 4 {
				return false
			}
			r.mask, r.hasMask = ip4(v), true
		case optRouter:
			if len(v) < 4 || len(v)%4 != 0 { // a list: the first is preferred (RFC 2132 §3.5)
				return false
			}
			r.router = ip4(v)
		case optDNS:
			if len(v) < 4 || len(v)%4 != 0 {
				return false
			}
			r.dns = ip4(v)
		case optLease:
			if len(v) != 4 {
				return false
			}
			r.lease = be32(v)
		}
	}
	return r.typ != 0
}

func dhcpInput(m []byte, now int64) {
	var r dhcpReply
	if !dhcpParse(m, &r) {
		Stats.BadDHCP++
		return
	}
	switch {
	case DHCP.State == DHCPSelecting && r.typ == msgOffer:
		// The first offer is taken (RFC 2131 §4.4.1 lets the client
		// choose); it must name its server and a usable address.
		if !r.hasServer || r.yiaddr == ([4]byte{}) || isLimitedBroadcast(r.yiaddr) || isMulticast(r.yiaddr) {
			Stats.BadDHCP++
			return
		}
		DHCP.Offered, DHCP.Server = r.yiaddr, r.server
		DHCP.State = DHCPRequesting
		DHCP.timeout = dhcpFirstTimeout
		dhcpSend(msgRequest, now)
	case DHCP.State == DHCPRequesting && r.hasServer && r.server == DHCP.Server && r.typ == msgAck:
		if r.yiaddr != DHCP.Offered {
			Stats.BadDHCP++
			return
		}
		mask := r.mask
		if !r.hasMask {
			mask = [4]byte{255, 255, 255, 0} // no option 1: assume the offer's /24 (RFC 2131 §4.3.1 says servers should send it)
		}
		SetStatic(r.yiaddr, mask, r.router, r.dns)
		DHCP.LeaseSeconds = r.lease
		DHCP.State = DHCPBound
	case DHCP.State == DHCPRequesting && r.hasServer && r.server == DHCP.Server && r.typ == msgNak:
		// Back to INIT (RFC 2131 §4.4.1, "DHCPNAK").
		DHCPStart(now, DHCP.XID+1)
	default:
		// A second offer, a stray ACK: not an error, not ours to use.
	}
}
