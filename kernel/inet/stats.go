package inet

// Counters of what the stack received and what it dropped, by reason.
type Counters struct {
	Frames        uint64 // frames given to Input
	ShortFrame    uint64 // shorter than an Ethernet header
	OtherType     uint64 // an EtherType the stack does not speak (IPv6, VLAN, ...)
	BadARP        uint64 // ARP not for Ethernet/IPv4, or short
	BadIPHeader   uint64 // version, IHL or total length wrong
	BadIPChecksum uint64
	IPFragment    uint64 // no reassembly in this slice
	NotForUs      uint64 // an IPv4 destination that is not ours or a broadcast
	BadSource     uint64 // a broadcast, multicast or zero source (RFC 1122 §3.2.1.3)
	OtherProto    uint64 // an IP protocol the stack does not speak
	BadICMP       uint64
	BadUDP        uint64 // short, or a length past the packet
	BadUDPSum     uint64
	NoPort        uint64 // UDP to a port nobody listens on
	UDPDelivered  uint64 // datagrams queued for an endpoint
	UDPRcvDrops   uint64 // datagrams dropped: the endpoint's queue was full
	UDPSent       uint64
	UDPUnresolved uint64 // datagrams dropped waiting for ARP
	BadDHCP       uint64 // malformed, or not an answer to our request
	EchoReplies   uint64 // ICMP echo replies sent
	ARPReplies    uint64 // ARP replies sent
	TxFailed      uint64 // the device refused a frame

	BadTCP             uint64 // short, a bad data offset or option list, port 0
	BadTCPSum          uint64
	TCPSegsIn          uint64 // segments that passed the checks
	TCPSegsOut         uint64
	TCPNoConn          uint64 // segments for no connection (answered with a reset)
	TCPListenDrops     uint64 // SYNs dropped: the backlog or the table full
	TCPOutOfWindow     uint64 // segments outside the receive window
	TCPOutOfOrder      uint64 // data past RCV.NXT (dropped: no reassembly queue)
	TCPRetransmits     uint64 // retransmission timeouts
	TCPFastRetransmits uint64
	TCPDupAcks         uint64
	TCPResetsIn        uint64
	TCPResetsOut       uint64
	TCPKeepalives      uint64
	TCPTimeWaitReused  uint64 // TIME-WAIT connections ended early for a new one
	TCPNoMemory        uint64 // connections not made: no memory for their rings
	ARPRequests        uint64
	FaultDropped       uint64 // frames gometal.netfault= dropped (both ways)
	FaultDuplicated    uint64 // and sent or received twice
}

// Stats counts since boot.
var Stats Counters

// Dropped is how many frames were dropped as malformed or not for us.
func (c *Counters) Dropped() uint64 {
	return c.ShortFrame + c.OtherType + c.BadARP + c.BadIPHeader + c.BadIPChecksum + c.IPFragment +
		c.NotForUs + c.BadSource + c.OtherProto + c.BadICMP + c.BadUDP + c.BadUDPSum + c.BadDHCP +
		c.BadTCP + c.BadTCPSum
}
