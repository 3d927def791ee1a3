package inet

import "encoding/binary"

// ARP for IPv4 over Ethernet (RFC 826).
const (
	arpLen       = 28 // hrd, pro, hln, pln, op, sha, spa, tha, tpa
	arpHWEther   = 1
	arpOpRequest = 1
	arpOpReply   = 2
	arpCacheSize = 16
)

type arpEntry struct {
	ip    [4]byte
	mac   [6]byte
	valid bool
}

// arpCache maps neighbours' addresses to their MACs; a full cache reuses
// its entries round-robin.
var (
	arpCache [arpCacheSize]arpEntry
	arpNext  int
)

// ARPLookup returns the MAC learned for ip.
func ARPLookup(ip [4]byte) ([6]byte, bool) {
	for i := range arpCache {
		if arpCache[i].valid && arpCache[i].ip == ip {
			return arpCache[i].mac, true
		}
	}
	return [6]byte{}, false
}

// arpLearn records ip's MAC. RFC 826 ("Packet Reception"): a sender
// already in the table is updated whatever the packet is for; a new one
// is added only if the packet is for us (add is false otherwise).
func arpLearn(ip [4]byte, mac [6]byte, add bool) {
	for i := range arpCache {
		if arpCache[i].valid && arpCache[i].ip == ip {
			arpCache[i].mac = mac
			return
		}
	}
	if !add {
		return
	}
	arpCache[arpNext] = arpEntry{ip: ip, mac: mac, valid: true}
	arpNext = (arpNext + 1) % arpCacheSize
	resolved(ip)
}

// arpRequest asks who has ip (RFC 826, broadcast), for a connection
// that must send to it; the reply is learned by arpInput.
func arpRequest(ip [4]byte) {
	if If.IP == ([4]byte{}) {
		return
	}
	etherHeader(broadcastMAC(), etherTypeARP)
	r := txBuf[etherHeaderLen : etherHeaderLen+arpLen]
	binary.BigEndian.PutUint16(r[0:], arpHWEther)
	binary.BigEndian.PutUint16(r[2:], etherTypeIPv4)
	r[4], r[5] = 6, 4
	binary.BigEndian.PutUint16(r[6:], arpOpRequest)
	copy(r[8:14], If.MAC[:])
	copy(r[14:18], If.IP[:])
	clear(r[18:24]) // the target hardware address is what is asked
	copy(r[24:28], ip[:])
	if sendFrame(arpLen) {
		Stats.ARPRequests++
	}
}

func arpInput(p []byte) {
	if len(p) < arpLen || be16(p[0:]) != arpHWEther || be16(p[2:]) != etherTypeIPv4 || p[4] != 6 || p[5] != 4 {
		Stats.BadARP++
		return
	}
	var sha [6]byte
	copy(sha[:], p[8:14])
	spa, tpa := ip4(p[14:18]), ip4(p[24:28])
	forUs := If.IP != ([4]byte{}) && tpa == If.IP
	if spa != ([4]byte{}) && !isLimitedBroadcast(spa) && !isMulticast(spa) {
		arpLearn(spa, sha, forUs)
	}
	if !forUs || be16(p[6:]) != arpOpRequest {
		return
	}
	// The reply goes to the asker: our addresses as sender, its as
	// target (RFC 826, "swap hardware and protocol fields").
	etherHeader(sha, etherTypeARP)
	r := txBuf[etherHeaderLen : etherHeaderLen+arpLen]
	binary.BigEndian.PutUint16(r[0:], arpHWEther)
	binary.BigEndian.PutUint16(r[2:], etherTypeIPv4)
	r[4], r[5] = 6, 4 // hardware and protocol address lengths
	binary.BigEndian.PutUint16(r[6:], arpOpReply)
	copy(r[8:14], If.MAC[:])
	copy(r[14:18], If.IP[:])
	copy(r[18:24], sha[:])
	copy(r[24:28], spa[:])
	if sendFrame(arpLen) {
		Stats.ARPReplies++
	}
}
