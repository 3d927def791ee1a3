package tests

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gometal/gometal/qemu"
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
	stop := startGometal(t, "idle: sleeping", append(args, "./tests/progs/bench", "--", "idle", "3")...)
	c, err := net.Dial("udp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		c.Write([]byte("ping"))
		time.Sleep(50 * time.Millisecond)
	}
	c.Close()
	return stop()
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

// freeTCPPort returns a port on the host's loopback that nothing listens
// on (as the kernel chose it a moment ago).
func freeTCPPort(t *testing.T) int {
	t.Helper()
	p, err := qemu.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// startGometal boots args in the background and returns once its output
// shows ready; stop waits for the run to end and returns its result.
func startGometal(t *testing.T, ready string, args ...string) (stop func() result) {
	t.Helper()
	cmd := exec.Command(gometalBin, args...)
	cmd.Dir = repoRoot
	out := &watchedBuffer{want: ready, seen: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	select {
	case <-out.seen:
	case <-exited:
		t.Fatalf("exited before %q:\n%s", ready, out.String())
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("no %q in 2 minutes:\n%s", ready, out.String())
	}
	return func() result {
		select {
		case <-exited:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			<-exited
			t.Errorf("still running a minute after it was told to quit")
		}
		return result{out.String(), cmd.ProcessState.ExitCode()}
	}
}

// examples/httpserver, reached from the host through a forwarded port
// (-p) and reaching the host through -host-port, on isolated networking:
// a page, 256 MiB down with every byte checked, 256 MiB up with its
// SHA-256 checked by the guest, 24 clients at once, a fetch by the guest from a
// server this test runs on the host's loopback, a fetch from a host port
// not given with -host-port (QEMU answers with a reset: connection
// refused), and from an address off the subnet (network unreachable:
// isolated networking has no router).
func TestNetHTTPServer(t *testing.T) {
	t.Parallel()
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "from the host: %s", r.URL.Path)
	}))
	defer host.Close()
	hostPort := host.Listener.Addr().(*net.TCPAddr).Port
	closedPort := freeTCPPort(t)
	port := freeTCPPort(t)
	stop := startGometal(t, "httpserver: listening", "run", "-timeout", "10m", "-net", "isolated", "-p", fmt.Sprintf("%d:8080", port),
		"-host-port", fmt.Sprint(hostPort), "-env", "GOMETAL_STATS=1", "./examples/httpserver")
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	client := &http.Client{Timeout: time.Minute}
	get := func(path string) string {
		t.Helper()
		resp, err := client.Get(base + path)
		if err != nil {
			t.Errorf("GET %s: %v", path, err)
			return ""
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Errorf("GET %s: reading the body: %v", path, err)
		}
		return string(b)
	}

	if page := get("/"); !strings.Contains(page, "hello from gometal") || !strings.Contains(page, "on 4 cores") {
		t.Errorf("GET /: %q", page)
	}

	transfer(t, base, 256<<20)

	var wg sync.WaitGroup
	var failed atomic.Int32
	for i := 0; i < 24; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A client each: a connection each, all open at once.
			c := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableKeepAlives: true}}
			resp, err := c.Get(base + "/")
			if err != nil {
				failed.Add(1)
				t.Errorf("concurrent GET: %v", err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(b), "hello from gometal") {
				failed.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := failed.Load(); n != 0 {
		t.Errorf("%d of 24 concurrent requests failed", n)
	}

	if b := get(fmt.Sprintf("/fetch?url=http://10.0.2.100:%d/hi", hostPort)); b != "from the host: /hi" {
		t.Errorf("the guest fetching from the host: %q", b)
	}
	if b := get(fmt.Sprintf("/fetch?url=http://10.0.2.100:%d/", closedPort)); !strings.Contains(b, "connect: connection refused") {
		t.Errorf("the guest fetching from a host port not forwarded: %q, want connection refused", b)
	}
	if b := get("/fetch?url=http://192.0.2.1/"); !strings.Contains(b, "connect: network is unreachable") {
		t.Errorf("the guest fetching off the subnet: %q, want network is unreachable", b)
	}

	get("/quit")
	r := stop()
	// The runner says where the forwarded port is reached when the
	// kernel logs the listen.
	r.expect(t, 0, "httpserver: quit after", "net: listening on port 8080",
		fmt.Sprintf("gometal: reach it from the host at 127.0.0.1:%d (http://127.0.0.1:%d/ for a web server)", port, port))
	m := regexp.MustCompile(`gometal: stats: tcp: segs-in=(\d+) segs-out=(\d+) retransmits=(\d+)`).FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("no tcp stats line in:\n%s", r.out)
	}
	t.Logf("%s", m[0])
}

// patternReader is /bytes's stream: byte i is examples/httpserver's
// Pattern(i).
type patternReader struct{ off, n int64 }

func (p *patternReader) Read(b []byte) (int, error) {
	if p.off == p.n {
		return 0, io.EOF
	}
	k := min(int64(len(b)), p.n-p.off)
	for i := range k {
		j := p.off + i
		b[i] = byte(j*7 + j>>8 + j>>16)
	}
	p.off += k
	return int(k), nil
}

// transfer moves size bytes each way through examples/httpserver at
// base: down, GET /bytes compared byte for byte with the pattern as it
// streams; up, POST /sha256 of a pseudo-random stream, whose SHA-256 the
// guest computes and this side checks.
func transfer(t *testing.T, base string, size int64) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Minute}
	start := time.Now()
	resp, err := client.Get(fmt.Sprintf("%s/bytes?n=%d", base, size))
	if err != nil {
		t.Errorf("GET /bytes: %v", err)
		return
	}
	want := &patternReader{n: size}
	got, wb := make([]byte, 64<<10), make([]byte, 64<<10)
	var n int64
	for {
		k, err := io.ReadFull(resp.Body, got)
		if k > 0 {
			want.Read(wb[:k])
			if !bytes.Equal(got[:k], wb[:k]) {
				t.Errorf("GET /bytes: the stream differs from the pattern within bytes %d..%d", n, n+int64(k))
				break
			}
			n += int64(k)
		}
		if err != nil {
			break
		}
	}
	resp.Body.Close()
	if n != size {
		t.Errorf("GET /bytes: %d bytes, want %d", n, size)
	}
	downTime := time.Since(start)

	start = time.Now()
	h := sha256.New()
	up := io.TeeReader(io.LimitReader(rand.New(rand.NewSource(size)), size), h)
	resp, err = client.Post(base+"/sha256", "application/octet-stream", up)
	if err != nil {
		t.Errorf("POST /sha256: %v", err)
		return
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := fmt.Sprintf("%x %d\n", h.Sum(nil), size); string(b) != want {
		t.Errorf("POST /sha256: guest says %q, want %q", b, want)
	}
	t.Logf("%d MiB down in %v, up in %v", size>>20, downTime.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
}

// With 1 frame in 100 dropped and 1 in 150 duplicated each way
// (gometal.netfault=), 256 MiB still go each way intact: TCP
// retransmits, and the counters say it did.
func TestNetHTTPWithInjectedFaults(t *testing.T) {
	t.Parallel()
	port := freeTCPPort(t)
	stop := startGometal(t, "httpserver: listening", "run", "-timeout", "10m", "-net", "isolated", "-p", fmt.Sprintf("%d:8080", port),
		"-bootarg", "gometal.netfault=drop=100,dup=150", "-env", "GOMETAL_STATS=1", "./examples/httpserver")
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	transfer(t, base, 256<<20)
	if resp, err := http.Get(base + "/quit"); err == nil {
		resp.Body.Close()
	}
	r := stop()
	r.expect(t, 0, "gometal.netfault=drop=100,dup=150: injecting faults", "httpserver: quit after")
	m := regexp.MustCompile(`gometal: stats: tcp: segs-in=\d+ segs-out=\d+ retransmits=(\d+) fast-retransmits=(\d+)`).FindStringSubmatch(r.out)
	if m == nil || m[1] == "0" && m[2] == "0" {
		t.Fatalf("frames were dropped but nothing was retransmitted: %v\n%s", m, r.out)
	}
	t.Logf("%s", m[0])
}

// A thousand clients connected to the guest at once: each sends a
// request on its own connection, reads the answer and keeps the
// connection open; with all of them open the server counts them (every
// one is a kernel TCP connection, socket, description, descriptor and
// epoll registration at the same time), then they close and the server
// sees them go.
func TestNetThousandConnections(t *testing.T) {
	t.Parallel()
	const clients = 1000
	port := freeTCPPort(t)
	stop := startGometal(t, "httpserver: listening", "run", "-timeout", "10m", "-net", "isolated", "-p", fmt.Sprintf("%d:8080", port),
		"-env", "GOMETAL_STATS=1", "./examples/httpserver")
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	conns := make([]net.Conn, clients)
	errs := make(chan error, clients)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.DialTimeout("tcp", addr, 2*time.Minute)
			if err != nil {
				errs <- err
				return
			}
			conns[i] = c
			c.SetDeadline(time.Now().Add(4 * time.Minute))
			fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: guest\r\n\r\n")
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				errs <- fmt.Errorf("client %d: %v", i, err)
				return
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || !strings.Contains(string(b), "hello from gometal") {
				errs <- fmt.Errorf("client %d: %q, %v", i, b, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if failed < 5 {
			t.Error(err)
		}
		failed++
	}
	if failed > 0 {
		t.Errorf("%d of %d clients failed", failed, clients)
	}
	t.Logf("%d connections open and answered in %v", clients-failed, time.Since(start).Round(time.Millisecond))

	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableKeepAlives: true}}
	conns2 := func() (open, peak int) {
		t.Helper()
		resp, err := client.Get("http://" + addr + "/conns")
		if err != nil {
			t.Fatalf("GET /conns: %v", err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if _, err := fmt.Sscanf(string(b), "open %d peak %d", &open, &peak); err != nil {
			t.Fatalf("GET /conns: %q", b)
		}
		return open, peak
	}
	// This request's own connection is one more.
	if open, _ := conns2(); open != clients-failed+1 {
		t.Errorf("the server has %d connections open, want %d", open, clients-failed+1)
	}
	for _, c := range conns {
		if c != nil {
			c.Close()
		}
	}
	deadline := time.Now().Add(time.Minute)
	for {
		open, peak := conns2()
		if open == 1 {
			t.Logf("all closed; peak %d", peak)
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("a minute after the clients closed, the server still has %d connections open", open-1)
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if resp, err := client.Get("http://" + addr + "/quit"); err == nil {
		resp.Body.Close()
	}
	r := stop()
	r.expect(t, 0, "httpserver: quit after")
	if m := regexp.MustCompile(`gometal: stats: tcp: .*`).FindString(r.out); m != "" {
		t.Logf("%s", m)
	}
}

// freeUDPPort is a host UDP port nothing has now.
func freeUDPPort(t *testing.T) int {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

// UDP sockets through Go's net package: on the guest's loopback (sizes
// up to 60,000 bytes: no frames, no fragments, each echoed back), then
// from the host through -p PORT:9000/udp, a datagram of each size a
// frame carries, which the guest checks and counts. One way only: with
// -net isolated, QEMU drops every datagram the guest sends (libslirp's
// udp_input under restrict=on), so the guest's replies stop there; the
// stack's sending over the interface is proved against gVisor
// (kernel/inet's TestUDPEchoGVisor).
func TestNetUDP(t *testing.T) {
	t.Parallel()
	port := freeUDPPort(t)
	stop := startGometal(t, "udpecho: echoing", "run", "-timeout", "5m", "-net", "isolated", "-p", fmt.Sprintf("%d:9000/udp", port),
		"-env", "GOMETAL_STATS=1", "./tests/progs/udpecho")
	c, err := net.Dial("udp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sent := 0
	for n := 0; n <= 1472; n += 23 {
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = byte(i ^ n)
		}
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		sent++
		time.Sleep(5 * time.Millisecond)
	}
	// The end marker, sent a few times: a datagram may be lost.
	for range 3 {
		c.Write([]byte("quit"))
		time.Sleep(time.Second)
	}
	r := stop()
	r.expect(t, 0, "udpecho: loopback ok", fmt.Sprintf("udpecho: quit after %d datagrams, %d intact", sent, sent))
}

// net.Interfaces and friends over the kernel's NETLINK_ROUTE dumps: the
// loopback and the virtio-net interface with its MAC, MTU, flags and
// DHCP address; with no network device, the loopback alone. The
// isolated lease names no DNS server, so there is no /etc/resolv.conf;
// a static configuration that names one gets it written.
func TestNetInterfaces(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-net", "isolated", "./tests/progs/ifaces")
	r.expect(t, 0,
		"ifaces: 1 lo mtu 65536 hw \"\" flags up|loopback|running addrs [127.0.0.1/8]",
		"ifaces: 2 eth0 mtu 1500 hw \"52:54:00:12:34:56\" flags up|broadcast|multicast|running addrs [10.0.2.15/24]",
		"ifaces: all addrs [127.0.0.1/8 10.0.2.15/24]",
		"ifaces: no resolv.conf")
	r = gometal(t, "run", "-net", "isolated", "-bootarg", "gometal.ip=10.0.2.15/24,10.0.2.2,10.0.2.3", "./tests/progs/ifaces")
	r.expect(t, 0, `ifaces: resolv.conf: "nameserver 10.0.2.3\n"`)
	r = gometal(t, "run", "-net", "none", "./tests/progs/ifaces")
	r.expect(t, 0, "ifaces: 1 lo mtu 65536", "ifaces: all addrs [127.0.0.1/8]")
	if strings.Contains(r.out, "eth0") {
		t.Errorf("with -net none an eth0 was listed:\n%s", r.out)
	}
}

// A program written for a dual-stack machine keeps working without IPv6
// (tests/progs/ipv6off): every line below is what the same program
// printed on Debian's Linux 6.1 booted with ipv6.disable=1 (no /etc/hosts
// there, so its "localhost" failed to resolve; gometal's initramfs has
// one, and localhost is 127.0.0.1).
func TestNetIPv6Off(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-net", "isolated", "./tests/progs/ipv6off")
	r.expect(t, 0,
		"ipv6off: socket(AF_INET6, SOCK_STREAM): error EAFNOSUPPORT",
		"ipv6off: socket(AF_INET6, SOCK_DGRAM): error EAFNOSUPPORT",
		"ipv6off: listen tcp :0: on IPv4",
		`ipv6off: dial tcp 127.0.0.1: "ok" from IPv4`,
		`ipv6off: dial tcp ::ffff:127.0.0.1: "ok" from IPv4`,
		`ipv6off: dial tcp localhost: "ok" from IPv4`,
		"ipv6off: dial tcp ::1: error EAFNOSUPPORT",
		"ipv6off: dial tcp6 127.0.0.1: error: dial tcp6: address 127.0.0.1: no suitable address found",
		"ipv6off: listen tcp6 [::1]:0: error EAFNOSUPPORT",
		"ipv6off: listen udp :0: on IPv4",
		"ipv6off: done")
}
