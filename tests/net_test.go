package tests

import (
	"bytes"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The kernel finds QEMU's virtio-net device in the DTB, brings it up
// (virtio 1.x over virtio-mmio) and configures its IPv4 interface by DHCP
// from QEMU's user networking, isolated (restrict=on): the lease it
// prints is what QEMU's DHCP server offered: slirp's defaults put the
// guest at 10.0.2.15/24, and a restricted slirp offers no router and no
// DNS server (libslirp's bootp.c leaves both options out when
// restricted), so the guest has no way off the subnet.
func TestNetDHCPLeaseIsolated(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-net", "isolated", "./tests/progs/hello")
	r.expect(t, 0, "hello from gometal")
	re := regexp.MustCompile(`net: ([0-9a-f]{2}(:[0-9a-f]{2}){5}) 10\.0\.2\.15 mask 255\.255\.255\.0 gw none dns none \(DHCP in \d+ ms\)`)
	m := re.FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("no DHCP lease line like %q in:\n%s", re, r.out)
	}
	// QEMU gives virtio-net its default MAC, 52:54:00:12:34:56, read from
	// the device's config space.
	if m[1] != "52:54:00:12:34:56" {
		t.Errorf("MAC %s, want QEMU's default 52:54:00:12:34:56", m[1])
	}
}

// With -net none the board has no network device, the kernel says so,
// and the app runs as before.
func TestNetNone(t *testing.T) {
	t.Parallel()
	gometal(t, "run", "-net", "none", "./tests/progs/hello").expect(t, 0, "net: no network device", "hello from gometal")
}

// After boot a frame arrives by interrupt: datagrams the test sends to a
// host port forwarded into the guest (-p HOST:7/udp) reach the kernel's
// stack while the app sleeps, and each is counted for a port nobody
// listens on (no UDP sockets on the interface yet).
func TestNetFramesByInterrupt(t *testing.T) {
	t.Parallel()
	const sent = 5
	r := runSendingDatagrams(t, sent)
	r.expect(t, 0, "idle: awake")
	m := regexp.MustCompile(`gometal: stats: net: frames=(\d+) arp-replies=\d+ echo-replies=\d+ udp-no-port=(\d+) dropped=\d+`).FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("no net stats line in:\n%s", r.out)
	}
	if m[2] != fmt.Sprint(sent) {
		t.Errorf("udp-no-port=%s, want %d (every datagram sent): %s", m[2], sent, m[0])
	}
}

// runSendingDatagrams boots the bench program idle for 3 s, isolated with
// stats on and a UDP port forwarded to its port 7, and sends n datagrams
// to it, 50 ms apart, once the app sleeps. args are more run flags.
func runSendingDatagrams(t *testing.T, n int, args ...string) result {
	t.Helper()
	l, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.LocalAddr().(*net.UDPAddr).Port
	l.Close()
	args = append([]string{"run", "-net", "isolated", "-p", fmt.Sprintf("%d:7/udp", port), "-bootarg", "gometal.stats=1"}, args...)
	cmd := exec.Command(gometalBin, append(args, "./tests/progs/bench", "--", "idle", "3")...)
	cmd.Dir = repoRoot
	out := &watchedBuffer{want: "idle: sleeping", seen: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	select {
	case <-out.seen:
		c, err := net.Dial("udp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			c.Write([]byte("ping"))
			time.Sleep(50 * time.Millisecond)
		}
		c.Close()
	case <-exited:
	}
	<-exited
	return result{out.String(), cmd.ProcessState.ExitCode()}
}

// gometal.ip= configures the interface without DHCP. QEMU then learns the
// guest's MAC by ARP, so a datagram forwarded in reaches the kernel only
// if its stack answered QEMU's ARP request. A malformed value is named
// and DHCP runs instead.
func TestNetStaticAndARP(t *testing.T) {
	t.Parallel()
	r := runSendingDatagrams(t, 1, "-bootarg", "gometal.ip=10.0.2.15/24,10.0.2.2")
	r.expect(t, 0, "net: 52:54:00:12:34:56 10.0.2.15 mask 255.255.255.0 gw 10.0.2.2 dns none (static: gometal.ip)", "idle: awake")
	if strings.Contains(r.out, "DHCP in") {
		t.Error("DHCP ran although gometal.ip= was given")
	}
	m := regexp.MustCompile(`net: frames=\d+ arp-replies=(\d+) echo-replies=\d+ udp-no-port=(\d+)`).FindStringSubmatch(r.out)
	if m == nil || m[1] == "0" || m[2] != "1" {
		t.Errorf("want an ARP reply and the datagram counted: %v\n%s", m, r.out)
	}

	bad := gometal(t, "run", "-net", "isolated", "-bootarg", "gometal.ip=10.0.2.300/24", "./tests/progs/hello")
	bad.expect(t, 0, "net: gometal.ip=10.0.2.300/24 is not ADDR/PREFIX[,GATEWAY[,DNS]]; using DHCP", "10.0.2.15 mask 255.255.255.0 gw none dns none (DHCP in")
}

// watchedBuffer collects a command's output and closes seen when want
// first appears in it.
type watchedBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	want string
	seen chan struct{}
	done bool
}

func (w *watchedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if !w.done && strings.Contains(w.b.String(), w.want) {
		w.done = true
		close(w.seen)
	}
	return len(p), nil
}

func (w *watchedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
