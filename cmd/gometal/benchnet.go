package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gometal/gometal/linker"
	"github.com/gometal/gometal/qemu"
)

// The network figures: examples/httpserver, unchanged, booted on each
// side with QEMU's isolated user networking (restrict=on: nothing leaves
// the host), its port 8080 forwarded from a free port on the host's
// loopback, and loaded from here. Both sides have the same virtio-net
// device on virtio-mmio and the same slirp behind it; the Linux guest
// loads Debian's own driver modules first (tests/progs/netinit).
//
// The load generator dials QEMU's hostfwd itself, one connection at a
// time: slirp listens with a backlog of one (see qemu/forward.go), and a
// burst of dials would measure the host's SYN retransmission timer, not
// the guest.

// The figures' names (benchFigures has their rows).
const (
	figHTTPRate = "http_req_per_s"
	figHTTPP99  = "http_p99_ms"
	figTCPIn    = "tcp_in_mib_per_s"
	figTCPOut   = "tcp_out_mib_per_s"
	figConnect  = "tcp_connect_per_s"
)

func isNetFigure(name string) bool {
	switch name {
	case figHTTPRate, figHTTPP99, figTCPIn, figTCPOut, figConnect:
		return true
	}
	return false
}

// netGuestPort is examples/httpserver's port; netReadyLine its line
// when it listens.
const (
	netGuestPort = 8080
	netReadyLine = "httpserver: listening"
)

// netLoad is how much load one network run puts on the guest.
type netLoad struct {
	conns       int           // keep-alive connections for http_req_per_s
	httpFor     time.Duration // how long they send requests
	maxRequests int           // and at most this many in all
	bytes       int64         // each way, for tcp_in and tcp_out
	connectFor  time.Duration // how long tcp_connect_per_s runs
	maxConnects int           // and at most this many
}

var (
	netFull  = netLoad{conns: 8, httpFor: 5 * time.Second, maxRequests: 200_000, bytes: 64 << 20, connectFor: 3 * time.Second, maxConnects: 1000}
	netQuick = netLoad{conns: 2, httpFor: 300 * time.Millisecond, maxRequests: 1000, bytes: 1 << 20, connectFor: 300 * time.Millisecond, maxConnects: 20}
)

// netIOTimeout bounds any one read or write of the load: a guest that
// stops answering fails the run instead of hanging it.
const netIOTimeout = 60 * time.Second

// wantsNet says whether any network figure is asked for.
func (o *benchOptions) wantsNet() bool {
	for _, f := range benchFigures {
		if isNetFigure(f.Name) && o.wants(f.Name) {
			return true
		}
	}
	return false
}

// buildNetApp builds examples/httpserver if a network figure is wanted
// and the board has a network; it returns "" if not.
func (o *benchOptions) buildNetApp(root, tmp string) (string, error) {
	if !o.wantsNet() {
		return "", nil
	}
	if o.board.Name != "virt" {
		fmt.Fprintf(os.Stderr, "gometal bench: no network figures on %s (gometal's virtio-net is virt's virtio-mmio)\n", o.board.Name)
		return "", nil
	}
	app := filepath.Join(tmp, "httpserver")
	fmt.Fprintln(os.Stderr, "gometal bench: building examples/httpserver")
	return app, linker.BuildApp(filepath.Join(root, "examples", "httpserver"), app, os.Stderr)
}

// benchNet boots examples/httpserver on s, loads it and returns the
// network figures.
func benchNet(s benchSide, o *benchOptions) (map[string]float64, error) {
	load := netFull
	if o.quick {
		load = netQuick
	}
	port, err := qemu.FreePort()
	if err != nil {
		return nil, err
	}
	qargs, err := s.netQEMUArgs([]qemu.Forward{{Proto: "tcp", Host: port, Guest: netGuestPort}})
	if err != nil {
		return nil, err
	}
	var (
		once    sync.Once
		started bool
		figs    map[string]float64
		loadErr error
		done    = make(chan struct{})
	)
	out, err := runQEMU(qargs, o.timeout, func(line string, pid int) {
		if !strings.HasPrefix(line, netReadyLine) {
			return
		}
		once.Do(func() {
			started = true
			go func() {
				defer close(done)
				figs, loadErr = load.run(fmt.Sprintf("127.0.0.1:%d", port))
				if loadErr != nil {
					// Stop the guest: the run has failed.
					if p, err := os.FindProcess(pid); err == nil {
						p.Kill()
					}
				}
			}()
		})
	})
	if !started {
		if err == nil {
			err = fmt.Errorf("examples/httpserver did not say %q", netReadyLine)
		}
		return nil, fmt.Errorf("%v; output:\n%s", err, out)
	}
	// QEMU is gone: a load still running fails at once.
	<-done
	if loadErr != nil {
		return nil, fmt.Errorf("%v; guest output:\n%s", loadErr, out)
	}
	if err != nil {
		return nil, err
	}
	return figs, nil
}

// run puts the load on the server at addr, then tells it to quit.
func (l netLoad) run(addr string) (map[string]float64, error) {
	figs := map[string]float64{}
	rate, p99, err := l.http(addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", figHTTPRate, err)
	}
	figs[figHTTPRate], figs[figHTTPP99] = rate, p99
	if figs[figTCPOut], err = l.download(addr); err != nil {
		return nil, fmt.Errorf("%s: %v", figTCPOut, err)
	}
	if figs[figTCPIn], err = l.upload(addr); err != nil {
		return nil, fmt.Errorf("%s: %v", figTCPIn, err)
	}
	if figs[figConnect], err = l.connects(addr); err != nil {
		return nil, fmt.Errorf("%s: %v", figConnect, err)
	}
	c, err := dialHTTP(addr)
	if err != nil {
		return nil, fmt.Errorf("/quit: %v", err)
	}
	defer c.Close()
	if _, err := c.get("/quit"); err != nil {
		return nil, fmt.Errorf("/quit: %v", err)
	}
	return figs, nil
}

// http runs l.conns keep-alive connections sending GET / for l.httpFor
// and returns requests per second and the 99th-percentile latency in
// milliseconds. Connections are dialed one by one, each with a first
// request that is not counted.
func (l netLoad) http(addr string) (rate, p99 float64, err error) {
	var conns []*httpConn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range l.conns {
		c, err := dialHTTP(addr)
		if err != nil {
			return 0, 0, err
		}
		conns = append(conns, c)
		if _, err := c.get("/"); err != nil {
			return 0, 0, err
		}
	}
	var (
		mu       sync.Mutex
		lat      []time.Duration
		firstErr error
		wg       sync.WaitGroup
	)
	budget := make(chan struct{}, l.maxRequests)
	for range l.maxRequests {
		budget <- struct{}{}
	}
	close(budget)
	start := time.Now()
	end := start.Add(l.httpFor)
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for range budget {
				if time.Now().After(end) {
					break
				}
				t0 := time.Now()
				if _, err := c.get("/"); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					break
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	took := time.Since(start)
	if firstErr != nil {
		return 0, 0, firstErr
	}
	if len(lat) == 0 {
		return 0, 0, fmt.Errorf("no request completed in %v", l.httpFor)
	}
	slices.Sort(lat)
	p := lat[(len(lat)*99)/100]
	return float64(len(lat)) / took.Seconds(), float64(p.Microseconds()) / 1000, nil
}

// download reads l.bytes from /bytes and checks every byte; MiB/s.
func (l netLoad) download(addr string) (float64, error) {
	c, err := dialHTTP(addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	start := time.Now()
	resp, err := c.request("GET", fmt.Sprintf("/bytes?n=%d", l.bytes), nil, 0)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	buf := make([]byte, 64<<10)
	var off int64
	for {
		c.deadline()
		n, err := resp.Body.Read(buf)
		for i := range n {
			if buf[i] != httpserverPattern(off+int64(i)) {
				return 0, fmt.Errorf("byte %d of /bytes is %#x, want %#x", off+int64(i), buf[i], httpserverPattern(off+int64(i)))
			}
		}
		off += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("after %d bytes: %v", off, err)
		}
	}
	took := time.Since(start)
	if off != l.bytes {
		return 0, fmt.Errorf("/bytes sent %d bytes, want %d", off, l.bytes)
	}
	return float64(l.bytes) / (1 << 20) / took.Seconds(), nil
}

// upload posts l.bytes to /sha256 and checks the guest's digest; MiB/s.
func (l netLoad) upload(addr string) (float64, error) {
	c, err := dialHTTP(addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	h := sha256.New()
	body := &patternReader{n: l.bytes, h: h, c: c}
	start := time.Now()
	resp, err := c.request("POST", "/sha256", body, l.bytes)
	if err != nil {
		return 0, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err != nil {
		return 0, err
	}
	want := fmt.Sprintf("%s %d\n", hex.EncodeToString(h.Sum(nil)), l.bytes)
	if string(b) != want {
		return 0, fmt.Errorf("/sha256 answered %q, want %q", b, want)
	}
	return float64(l.bytes) / (1 << 20) / took.Seconds(), nil
}

// connects sets up connections one at a time, each used for one GET and
// closed by the client (so the guest, closing second, keeps no
// TIME-WAIT: RFC 9293 §3.6), for l.connectFor; per second.
func (l netLoad) connects(addr string) (float64, error) {
	start := time.Now()
	n := 0
	for n < l.maxConnects && time.Since(start) < l.connectFor {
		c, err := dialHTTP(addr)
		if err != nil {
			return 0, fmt.Errorf("connection %d: %v", n+1, err)
		}
		_, err = c.get("/")
		c.Close()
		if err != nil {
			return 0, fmt.Errorf("connection %d: %v", n+1, err)
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// httpserverPattern is byte i of examples/httpserver's /bytes (its
// Pattern).
func httpserverPattern(i int64) byte { return byte(i*7 + i>>8 + i>>16) }

// patternReader is a request body of n pattern bytes, hashed as read.
type patternReader struct {
	off, n int64
	h      io.Writer
	c      *httpConn
}

func (r *patternReader) Read(p []byte) (int, error) {
	if r.off == r.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), r.n-r.off)
	for i := range k {
		p[i] = httpserverPattern(r.off + i)
	}
	r.h.Write(p[:k])
	r.off += k
	r.c.deadline()
	return int(k), nil
}

// httpConn is one HTTP/1.1 keep-alive connection, as a load generator
// (wrk) keeps it: requests written by hand, responses read with
// net/http's parser.
type httpConn struct {
	net.Conn
	br *bufio.Reader
}

func dialHTTP(addr string) (*httpConn, error) {
	c, err := net.DialTimeout("tcp", addr, netIOTimeout)
	if err != nil {
		return nil, err
	}
	return &httpConn{Conn: c, br: bufio.NewReaderSize(c, 64<<10)}, nil
}

// deadline pushes the connection's deadline netIOTimeout ahead.
func (c *httpConn) deadline() { c.SetDeadline(time.Now().Add(netIOTimeout)) }

// request sends method path with body (n bytes) and returns the
// response, its status checked.
func (c *httpConn) request(method, path string, body io.Reader, n int64) (*http.Response, error) {
	c.deadline()
	var hdr bytes.Buffer
	fmt.Fprintf(&hdr, "%s %s HTTP/1.1\r\nHost: gometal\r\n", method, path)
	if body != nil {
		fmt.Fprintf(&hdr, "Content-Length: %s\r\n", strconv.FormatInt(n, 10))
	}
	hdr.WriteString("\r\n")
	if _, err := c.Write(hdr.Bytes()); err != nil {
		return nil, err
	}
	if body != nil {
		if _, err := io.CopyBuffer(c.Conn, body, make([]byte, 64<<10)); err != nil {
			return nil, err
		}
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	return resp, nil
}

// get sends GET path and reads the whole answer.
func (c *httpConn) get(path string) ([]byte, error) {
	resp, err := c.request("GET", path, nil, 0)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}
