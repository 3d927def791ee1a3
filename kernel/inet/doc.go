// Package inet owns the kernel's internet protocols over its one network
// interface: Ethernet II framing, ARP (RFC 826), IPv4 (RFC 791), ICMP echo
// (RFC 792), UDP (RFC 768) with endpoints that queue whole datagrams for
// datagram sockets (udp_socket.go), a DHCP client (RFC 2131, 2132) that
// configures the interface, and TCP (RFC 9293; tcp*.go): connections in
// a fixed table with their rings in pages the kernel maps for them
// (MapBuffers), RTO estimation and backoff
// (RFC 6298), slow start, congestion avoidance and NewReno fast recovery
// (RFC 5681, 6582), delayed ACKs, Nagle, keep-alive, TIME-WAIT, resets,
// half-close, window scaling (RFC 7323 §2), and reassembly of data that
// arrives past a hole. It is restricted Go with no heap, like all
// kernel code: frames are read in place and built in fixed buffers, and
// what the device needs is one hook, Transmit. Every parser treats its
// input as hostile: a frame it cannot use is dropped and counted in Stats,
// never trusted past its length.
//
// Not here yet: timestamps (RFC 7323 §3-4) and SACK (RFC 2018); IPv4 reassembly
// (fragments are dropped and counted), so no datagram larger than a
// frame; IP options acted on; ICMP errors. The host tests run TCP and
// UDP against gVisor's netstack, TCP over a link that drops,
// duplicates, reorders and delays.
package inet
