package inet

import "encoding/binary"

// Iface is the one network interface's configuration. Addresses are in
// network byte order.
type Iface struct {
	MAC     [6]byte
	IP      [4]byte // zero until configured (DHCP or SetStatic)
	Mask    [4]byte
	Gateway [4]byte
	DNS     [4]byte
}

// If is the interface.
var If Iface

// Transmit is set at boot by the kernel: it sends one Ethernet frame (from
// the destination MAC on, no FCS) and reports whether the device took it.
// The device copies the bytes before it returns; the stack only ever
// passes its own global buffer (a slice of the stack passed through a
// function value would move it to the heap).
var Transmit func(frame []byte) bool

// SetStatic configures the interface without DHCP (the kernel command
// line's fallback).
func SetStatic(ip, mask, gw, dns [4]byte) {
	If.IP, If.Mask, If.Gateway, If.DNS = ip, mask, gw, dns
}

func be16(b []byte) uint16 { return binary.BigEndian.Uint16(b) }
func be32(b []byte) uint32 { return binary.BigEndian.Uint32(b) }

func ip4(b []byte) [4]byte { return [4]byte{b[0], b[1], b[2], b[3]} }

// isLimitedBroadcast: 255.255.255.255 (RFC 1122 §3.2.1.3 (c)).
func isLimitedBroadcast(a [4]byte) bool { return a == [4]byte{255, 255, 255, 255} }

// isDirectedBroadcast: the configured subnet's all-ones host part (RFC
// 1122 §3.2.1.3 (e)).
func isDirectedBroadcast(a [4]byte) bool {
	if If.IP == ([4]byte{}) || If.Mask == ([4]byte{}) {
		return false
	}
	for i := range a {
		if a[i] != If.IP[i]|^If.Mask[i] {
			return false
		}
	}
	return true
}

// isMulticast: class D, 224.0.0.0/4 (RFC 1112 §4).
func isMulticast(a [4]byte) bool { return a[0]&0xf0 == 0xe0 }
