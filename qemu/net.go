package qemu

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Net is how a boot is networked. QEMU's user networking (slirp) puts
// the guest on 10.0.2.0/24 behind a virtual router at 10.0.2.2 that
// answers DHCP (the guest gets 10.0.2.15) and DNS (10.0.2.3); the guest
// sees it through a virtio-net device.
type Net string

const (
	// NetNone: no network device at all (QEMU -nic none; without it QEMU
	// adds a NIC of its own on user networking).
	NetNone Net = "none"
	// NetUser: user networking; the guest may reach whatever the host
	// can.
	NetUser Net = "user"
	// NetIsolated: user networking with restrict=on: nothing the guest
	// sends leaves the host. What every test and benchmark uses.
	NetIsolated Net = "isolated"
)

// Forward is a host port forwarded into the guest (QEMU hostfwd): a
// connection or datagram to 127.0.0.1:Host on the host reaches the guest
// at 10.0.2.15:Guest.
type Forward struct {
	Proto       string // "tcp" or "udp"
	Host, Guest int
}

// ParseForward reads a -p value, HOST:GUEST[/tcp|/udp], as docker run -p
// writes it (tcp unless said).
func ParseForward(s string) (Forward, error) {
	f := Forward{Proto: "tcp"}
	spec := s
	if i := strings.LastIndexByte(spec, '/'); i >= 0 {
		f.Proto, spec = spec[i+1:], spec[:i]
		if f.Proto != "tcp" && f.Proto != "udp" {
			return Forward{}, fmt.Errorf("-p %q: protocol %q, want tcp or udp", s, f.Proto)
		}
	}
	h, g, ok := strings.Cut(spec, ":")
	var err1, err2 error
	f.Host, err1 = strconv.Atoi(h)
	f.Guest, err2 = strconv.Atoi(g)
	if !ok || err1 != nil || err2 != nil || f.Host < 1 || f.Host > 65535 || f.Guest < 1 || f.Guest > 65535 {
		return Forward{}, fmt.Errorf("-p %q: want HOST:GUEST[/tcp|/udp], ports 1 to 65535", s)
	}
	return f, nil
}

// HostAddr is where the guest reaches the host's loopback ports given
// with -host-port: an address on slirp's subnet that no other service
// takes (libslirp's guestfwd: the guest connects to HostAddr:PORT and
// QEMU connects to 127.0.0.1:PORT on the host).
const HostAddr = "10.0.2.100"

// ParseHostPort reads a -host-port value, a port from 1 to 65535.
func ParseHostPort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || p < 1 || p > 65535 {
		return 0, fmt.Errorf("-host-port %q: want a port from 1 to 65535", s)
	}
	return p, nil
}

// ParseNet checks a -net value.
func ParseNet(s string) (Net, error) {
	switch n := Net(s); n {
	case NetNone, NetUser, NetIsolated:
		return n, nil
	}
	return "", fmt.Errorf("-net %q: want user, isolated or none", s)
}

// NetArgs returns the QEMU arguments for n on machine, with fwd's ports
// forwarded in and hostPorts (the host's loopback ports) reachable from
// the guest at HostAddr. Only virt has a
// slot for virtio-net (virtio-mmio); the modern transport (virtio 1.x)
// is asked for, as QEMU's virt defaults its virtio-mmio to legacy.
func NetArgs(n Net, machine string, fwd []Forward, hostPorts []int, relay string) []string {
	if n == "" || n == NetNone || machine != "virt" {
		return []string{"-nic", "none"}
	}
	netdev := "user,id=net0"
	if n == NetIsolated {
		netdev += ",restrict=on"
	}
	// Forwards listen on the host's loopback only: a guest's service is
	// the host user's, not the network's.
	for _, f := range fwd {
		netdev += fmt.Sprintf(",hostfwd=%s:127.0.0.1:%d-:%d", f.Proto, f.Host, f.Guest)
	}
	// A guestfwd is a way out that restrict=on still leaves: to exactly
	// the host port named, nothing else. QEMU runs the relay (gometal
	// relay) for each connection the guest makes to it; the command is
	// split as a shell would (GLib's g_shell_parse_argv), so the path is
	// single-quoted, and a comma in it doubled for QEMU's option parser.
	for _, p := range hostPorts {
		exe := "'" + strings.ReplaceAll(strings.ReplaceAll(relay, "'", `'\''`), ",", ",,") + "'"
		netdev += fmt.Sprintf(",guestfwd=tcp:%s:%d-cmd:%s relay 127.0.0.1:%d", HostAddr, p, exe, p)
	}
	return []string{
		"-global", "virtio-mmio.force-legacy=false",
		"-netdev", netdev,
		"-device", "virtio-net-device,netdev=net0",
	}
}

// listenLineRE is the kernel's log line when the app listens on the
// network interface (kernel/socket's Listened hook).
var listenLineRE = regexp.MustCompile(`^(?:gometal: )?net: listening on port (\d+)\s*$`)

// listenNote returns the runner's note for a line of the guest's
// output: when the kernel says the app listens on a port that a -p
// forwards, the host address that reaches it.
func listenNote(fwd []Forward) func(string) string {
	return func(line string) string {
		m := listenLineRE.FindStringSubmatch(line)
		if m == nil {
			return ""
		}
		port, _ := strconv.Atoi(m[1])
		for _, f := range fwd {
			if f.Proto == "tcp" && f.Guest == port {
				return fmt.Sprintf("gometal: reach it from the host at 127.0.0.1:%d (http://127.0.0.1:%d/ for a web server)", f.Host, f.Host)
			}
		}
		return ""
	}
}
