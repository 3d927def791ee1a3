package kernel

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/gic"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/drivers/virtio"
	"github.com/gometal/gometal/kernel/inet"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/sched"
)

// The network interface: the first virtio-net device the DTB lists
// (QEMU virt: virtio-mmio slots, most of them empty), driven by
// drivers/virtio, carrying the kernel's IPv4 stack (kernel/inet). At boot
// the interface is configured by DHCP, polled, as Linux's ip=dhcp does
// before it starts init; after that a frame arrives by interrupt.

var (
	nic    virtio.Net
	nicIRQ uint32 // its GIC INTID, 0 for none
	nicUp  bool
	// netIPArg is gometal.ip=ADDR/PREFIX[,GATEWAY[,DNS]]: a static
	// configuration instead of DHCP, for a network with no DHCP server
	// (as Linux's ip= with addresses).
	netIPArg []byte
	// netFaultArg is gometal.netfault=drop=N,dup=M (inet.ParseFault).
	netFaultArg []byte
	// kernelRoot is the kernel's TTBR1 table, where windows are mapped.
	kernelRoot uintptr
)

const (
	// tcpBufWindow is where TCP connections' rings are mapped: the first
	// kernel window (mm.WindowBase), a span for each slot of the
	// connection table, each ending in an unmapped guard page, so that
	// a ring overrun faults instead of writing into the next slot.
	tcpBufWindow = cpu.KernBase + mm.WindowBase
	tcpBufPages  = inet.TCPBufBytes / mm.PageSize
	tcpBufSpan   = inet.TCPBufBytes + mm.PageSize
)

const (
	// dhcpBootWaitNanos bounds the wait for a DHCP lease at boot. QEMU's
	// user networking answers within a millisecond; a network that does
	// not answer leaves the interface unconfigured and the app starts.
	dhcpBootWaitNanos = 3e9
)

// initNetwork finds, starts and configures the network interface, if
// the board has one.
func initNetwork() {
	if n, addr, modern := nextVirtio(-1, virtio.DeviceNet); n >= 0 {
		if !modern || !nic.Init(cpu.KVA(addr), nicPage) {
			if Info("net: the virtio-net device at ") {
				PutHex(uint64(addr))
				if !modern {
					Puts(" is legacy (virtio 0.9; QEMU: -global virtio-mmio.force-legacy=false)")
				} else {
					Puts(" did not start")
				}
				InfoEnd()
			}
			return
		}
		nicIRQ = spiOf(n)
		nicUp = true
		inet.If.MAC = nic.MAC
		inet.Transmit = nicSend
		inet.Now = netNow
		inet.ArmTimer = netArmTimer
		inet.MapBuffers = tcpMapBuffers
		inet.UnmapBuffers = tcpUnmapBuffers
		netFaults()
		configureNetwork()
		if nicIRQ != 0 {
			gic.Enable(ThisCPU().ID, nicIRQ)
		}
		return
	}
	if Info("net: no network device") {
		InfoEnd()
	}
}

// nicPage is the driver's page source (a scalar result: the hook passes
// no pointers).
func nicPage() uintptr { return mm.Pages.Get() }

// tcpMapBuffers is inet's MapBuffers: slot's rings in the window, in
// pages from anywhere (kernel lock held, as for every page).
func tcpMapBuffers(slot int32) uintptr {
	va := tcpBufWindow + uintptr(slot)*tcpBufSpan
	if !mm.MapWindow(&mm.Pages, kernelRoot, va, tcpBufPages) {
		return 0
	}
	return va
}

func tcpUnmapBuffers(slot int32) {
	mm.UnmapWindow(&mm.Pages, kernelRoot, tcpBufWindow+uintptr(slot)*tcpBufSpan, tcpBufPages)
}

// nicSend is inet's Transmit hook; an injected fault drops the frame
// (it reports sent: the loss is the link's) or sends it twice.
func nicSend(frame []byte) bool {
	drop, dup := inet.FaultOut.Next()
	if drop {
		return true
	}
	if dup {
		nicSendWait(frame)
	}
	return nicSendWait(frame)
}

// nicTxWaitNanos bounds how long a send waits for the device to give a
// transmit buffer back. QEMU's virtio-net transmits from its own thread
// after the notify, so a burst (24 SYN-ACKs at once, a window of data)
// can find all 64 buffers still the device's for a few microseconds;
// dropping the frame then costs TCP a retransmission timeout (a second,
// for a SYN-ACK). Linux stops its queue and holds the packet instead
// (netif_stop_queue); the kernel has no queue to hold it in, so it waits
// this long, then drops it.
const nicTxWaitNanos = 200e3

func nicSendWait(frame []byte) bool {
	if nic.Send(frame) {
		return true
	}
	deadline := timer.Now() + timer.NanosToTicks(nicTxWaitNanos)
	for timer.Now() < deadline {
		if nic.Send(frame) {
			return true
		}
	}
	return false
}

// netFaults sets up fault injection from gometal.netfault=, each way.
func netFaults() {
	if netFaultArg == nil {
		return
	}
	drop, dup, ok := inet.ParseFault(netFaultArg)
	if Info("net: gometal.netfault=") {
		PutBytes(netFaultArg)
		if ok {
			Puts(": injecting faults each way, 1 frame in N dropped, 1 in M duplicated")
		} else {
			Puts(" is not drop=N,dup=M (2 <= N, M <= 1000000); no faults injected")
		}
		InfoEnd()
	}
	if ok {
		inet.FaultIn = inet.Fault{DropEvery: drop, DupEvery: dup}
		inet.FaultOut = inet.Fault{DropEvery: drop, DupEvery: dup}
	}
}

// configureNetwork configures the interface from gometal.ip= if given,
// else runs the DHCP client (RFC 2131) until it holds a lease or
// dhcpBootWaitNanos pass, polling the device.
func configureNetwork() {
	if netIPArg != nil {
		if ip, mask, gw, dns, ok := inet.ParseStatic(netIPArg); ok {
			inet.SetStatic(ip, mask, gw, dns)
			if printInterface() {
				Puts(" (static: gometal.ip)")
				InfoEnd()
			}
			return
		}
		if Info("net: gometal.ip=") {
			PutBytes(netIPArg)
			Puts(" is not ADDR/PREFIX[,GATEWAY[,DNS]]; using DHCP")
			InfoEnd()
		}
	}
	start := timer.Now()
	inet.DHCPStart(timer.TicksToNanos(start), uint32(start))
	for inet.DHCP.State != inet.DHCPBound {
		now := timer.Now()
		if timer.TicksToNanos(now-start) > dhcpBootWaitNanos {
			if Info("net: no DHCP lease within 3 s; the interface has no address") {
				InfoEnd()
			}
			return
		}
		nicPoll(timer.TicksToNanos(now))
		inet.DHCPTick(timer.TicksToNanos(now))
	}
	if printInterface() {
		Puts(" (DHCP in ")
		PutDec(timer.TicksToNanos(timer.Now()-start) / 1e6)
		Puts(" ms)")
		InfoEnd()
	}
}

// printInterface begins the boot log's line on the configured interface
// (the caller ends it).
func printInterface() bool {
	if !Info("net: ") {
		return false
	}
	putMAC(nic.MAC)
	Puts(" ")
	putIP(inet.If.IP)
	Puts(" mask ")
	putIP(inet.If.Mask)
	Puts(" gw ")
	putIPOrNone(inet.If.Gateway)
	Puts(" dns ")
	putIPOrNone(inet.If.DNS)
	return true
}

// nicPoll hands every frame the device has received to the stack and
// gives each buffer back, telling the device once at the end. It is
// bounded by the queue: the device cannot hold more than QueueSize
// frames for us.
func nicPoll(now int64) {
	n := 0
	for ; n < virtio.QueueSize; n++ {
		frame, id, ok := nic.Recv()
		if !ok {
			break
		}
		drop, dup := inet.FaultIn.Next()
		if !drop {
			inet.Input(frame, now)
		}
		if dup {
			inet.Input(frame, now)
		}
		nic.Repost(id)
	}
	if n > 0 {
		nic.RxNotify()
	}
}

// netNow is inet's clock: CLOCK_MONOTONIC's nanoseconds.
func netNow() int64 { return timer.TicksToNanos(timer.Now()) }

// netArmTimer is inet's ArmTimer hook: the stack's alarm (sched.AlarmNet)
// is set on this core for when, unless it is set for earlier already
// (the stack asks again from Tick for what stays). Kernel lock held.
func netArmTimer(when int64) {
	t := timer.NanosToTicks(when)
	if t == 0 {
		t = 1
	}
	if a := sched.Alarms[sched.AlarmNet].When; a != 0 && a <= t {
		return
	}
	sched.SetAlarm(sched.AlarmNet, t, ThisCPU().ID)
}

// NetTimer runs the stack's timers: the personality's alarm hook calls
// it when sched.AlarmNet is due (kernel lock held).
func NetTimer(now uint64) {
	if nicUp {
		inet.Tick(timer.TicksToNanos(now))
	}
}

// nicInterrupt handles the device's interrupt if id is its (kernel lock
// held: the stack's state is the kernel lock's).
func nicInterrupt(id uint32) bool {
	if !nicUp || id != nicIRQ {
		return false
	}
	// Acknowledge first, then drain: a frame that lands after the last
	// Recv raises the interrupt again (as consoleRx does).
	nic.Interrupt()
	nicPoll(timer.TicksToNanos(timer.Now()))
	return true
}

func putIP(ip [4]byte) {
	for i, b := range ip {
		if i > 0 {
			Puts(".")
		}
		PutDec(int64(b))
	}
}

// putIPOrNone prints "none" for an address the server did not give
// (QEMU's restricted user networking offers no router and no DNS).
func putIPOrNone(ip [4]byte) {
	if ip == ([4]byte{}) {
		Puts("none")
		return
	}
	putIP(ip)
}

func putMAC(mac [6]byte) {
	const hex = "0123456789abcdef"
	for i, b := range mac {
		if i > 0 {
			Puts(":")
		}
		putc(hex[b>>4])
		putc(hex[b&15])
	}
}
