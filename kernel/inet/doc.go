// Package inet owns the kernel's internet protocols over its one network
// interface: Ethernet II framing, ARP (RFC 826), IPv4 (RFC 791), ICMP echo
// (RFC 792), UDP (RFC 768) and a DHCP client (RFC 2131, 2132) that
// configures the interface. It is restricted Go with no heap, like all
// kernel code: frames are read in place and built in fixed buffers, and
// what the device needs is one hook, Transmit. Every parser treats its
// input as hostile: a frame it cannot use is dropped and counted in Stats,
// never trusted past its length.
//
// This is the stack's first slice: no TCP, no sockets over the interface
// yet (the app's sockets are still loopback only), no IPv4 reassembly
// (fragments are dropped and counted), no IP options acted on.
package inet
