package inet

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"gvisor.dev/gvisor/pkg/buffer"
	"gvisor.dev/gvisor/pkg/tcpip"
	"gvisor.dev/gvisor/pkg/tcpip/header"
	"gvisor.dev/gvisor/pkg/tcpip/link/channel"
	"gvisor.dev/gvisor/pkg/tcpip/link/ethernet"
	"gvisor.dev/gvisor/pkg/tcpip/network/arp"
	"gvisor.dev/gvisor/pkg/tcpip/network/ipv4"
	"gvisor.dev/gvisor/pkg/tcpip/stack"
	"gvisor.dev/gvisor/pkg/tcpip/transport/icmp"
	"gvisor.dev/gvisor/pkg/waiter"
)

// gvisorPeer is gVisor's netstack on 10.0.2.2/24, linked to this stack by
// an in-memory Ethernet: what gVisor sends is given to Input by one
// goroutine (the only one that touches this stack), and what this stack
// transmits is injected into gVisor.
type gvisorPeer struct {
	s      *stack.Stack
	ch     *channel.Endpoint
	cancel context.CancelFunc
	done   sync.WaitGroup
}

func newGVisorPeer(t *testing.T) *gvisorPeer {
	t.Helper()
	p := &gvisorPeer{}
	p.s, p.ch = gvisorStack(t, icmp.NewProtocol4)
	Transmit = func(f []byte) bool {
		pkt := stack.NewPacketBuffer(stack.PacketBufferOptions{Payload: buffer.MakeWithData(append([]byte(nil), f...))})
		p.ch.InjectInbound(0, pkt)
		pkt.DecRef()
		return true
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		for {
			pkt := p.ch.ReadContext(ctx)
			if pkt == nil {
				return
			}
			Input(pkt.ToView().AsSlice(), time.Now().UnixNano())
			pkt.DecRef()
		}
	}()
	t.Cleanup(p.close)
	return p
}

// gvisorStack makes gVisor's stack on testGW/24 with one NIC over an
// in-memory channel link, with the transport protocols given.
func gvisorStack(t *testing.T, transports ...stack.TransportProtocolFactory) (*stack.Stack, *channel.Endpoint) {
	t.Helper()
	// 1514: the frame, as the channel counts; gVisor's ethernet layer
	// takes its header off, leaving an IP MTU of 1500 like this stack's.
	ch := channel.New(1024, 1514, tcpip.LinkAddress("\x52\x55\x0a\x00\x02\x02"))
	s := stack.New(stack.Options{
		NetworkProtocols:   []stack.NetworkProtocolFactory{ipv4.NewProtocol, arp.NewProtocol},
		TransportProtocols: transports,
	})
	if err := s.CreateNIC(1, ethernet.New(ch)); err != nil {
		t.Fatal(err)
	}
	addr := tcpip.AddrFrom4(testGW)
	if err := s.AddProtocolAddress(1, tcpip.ProtocolAddress{Protocol: ipv4.ProtocolNumber, AddressWithPrefix: tcpip.AddressWithPrefix{Address: addr, PrefixLen: 24}}, stack.AddressProperties{}); err != nil {
		t.Fatal(err)
	}
	subnet, _ := tcpip.NewSubnet(tcpip.AddrFrom4([4]byte{10, 0, 2, 0}), tcpip.MaskFromBytes(testMask[:]))
	s.SetRouteTable([]tcpip.Route{{Destination: subnet, NIC: 1}})
	return s, ch
}

func (p *gvisorPeer) close() {
	p.cancel()
	p.done.Wait()
	p.s.Close()
}

// gVisor, as the reference peer, resolves this stack's address by ARP and
// pings it: every echo comes back with its identifier, sequence number
// and data, under checksums gVisor verifies.
func TestEchoAgainstGVisor(t *testing.T) {
	reset(nil)
	SetStatic(testIP, testMask, testGW, [4]byte{})
	p := newGVisorPeer(t)
	var wq waiter.Queue
	ep, err := p.s.NewEndpoint(icmp.ProtocolNumber4, ipv4.ProtocolNumber, &wq)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	we, readable := waiter.NewChannelEntry(waiter.EventIn)
	wq.EventRegister(&we)
	defer wq.EventUnregister(&we)
	if err := ep.Connect(tcpip.FullAddress{NIC: 1, Addr: tcpip.AddrFrom4(testIP)}); err != nil {
		t.Fatal(err)
	}
	for seq := uint16(1); seq <= 5; seq++ {
		req := make([]byte, header.ICMPv4MinimumSize+56)
		h := header.ICMPv4(req)
		h.SetType(header.ICMPv4Echo)
		h.SetSequence(seq)
		for i := header.ICMPv4MinimumSize; i < len(req); i++ {
			req[i] = byte(i) ^ byte(seq)
		}
		var r bytes.Reader
		r.Reset(req)
		if _, err := ep.Write(&r, tcpip.WriteOptions{}); err != nil {
			t.Fatalf("echo %d: write: %v", seq, err)
		}
		var got bytes.Buffer
		for {
			if _, err := ep.Read(&got, tcpip.ReadOptions{}); err == nil {
				break
			} else if _, ok := err.(*tcpip.ErrWouldBlock); !ok {
				t.Fatalf("echo %d: read: %v", seq, err)
			}
			select {
			case <-readable:
			case <-time.After(5 * time.Second):
				t.Fatalf("echo %d: no reply in 5 s; stats %+v", seq, Stats)
			}
		}
		rep := header.ICMPv4(got.Bytes())
		if rep.Type() != header.ICMPv4EchoReply || rep.Sequence() != seq || !bytes.Equal(rep.Payload(), req[header.ICMPv4MinimumSize:]) {
			t.Fatalf("echo %d: reply type %d seq %d payload equal %v", seq, rep.Type(), rep.Sequence(), bytes.Equal(rep.Payload(), req[header.ICMPv4MinimumSize:]))
		}
	}
	p.close()
	if Stats.EchoReplies != 5 || Stats.ARPReplies < 1 {
		t.Errorf("stats %+v: want 5 echo replies and an ARP reply", Stats)
	}
	if mac, ok := ARPLookup(testGW); !ok || mac != [6]byte{0x52, 0x55, 0x0a, 0x00, 0x02, 0x02} {
		t.Errorf("ARP cache for gVisor's address: %x, %v", mac, ok)
	}
}
