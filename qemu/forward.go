package qemu

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"
)

// A TCP forward (-p HOST:GUEST) is served by the runner, not by QEMU's
// own listener, which cannot take connections in bursts: libslirp
// listens for a hostfwd with a backlog of one (tcp_listen: listen(s, 1)),
// and accepts from its main loop, which TCG's vCPU threads starve on a
// busy host. The host's kernel then drops the SYNs (and final ACKs) of a
// burst of clients (TcpExtListenOverflows); each waits out TCP's initial
// retransmission timeout, doubling (1 s, 3 s, 7 s, ...: RFC 6298 §5.5),
// and 24 clients at once saw 20-second stalls. This is docker run -p's
// userland proxy: the runner listens on the user's port with the
// system's full backlog and hands connections to QEMU's hostfwd, on a
// port of its own, one at a time, as fast as slirp takes them. UDP
// forwards stay QEMU's: a datagram has no accept queue.
type forwarder struct {
	listeners []net.Listener
	// inner is what QEMU is given: each TCP forward's guest port behind
	// the runner's own loopback port.
	inner []Forward
	wg    sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	done  bool
}

const (
	// forwardRedial is how long a dial to slirp's listener may wait for
	// its handshake before it is tried again: a SYN dropped for a full
	// accept queue would otherwise wait TCP's 1-second initial RTO.
	// Loopback answers in microseconds; a slow QEMU main loop in tens of
	// milliseconds.
	forwardRedial = 250 * time.Millisecond
	// forwardPace is how long one handed-over connection keeps the next
	// from being dialed: time for slirp's loop to accept it, so that the
	// queue of one is free again. It bounds the connection rate through a
	// forward at 1/forwardPace (200 a second, far above what a TCG guest
	// serves), and cut the host's listen overflows under a 24-client
	// burst on a loaded 2-core host from hundreds to a handful.
	forwardPace = 5 * time.Millisecond
	// forwardRetry is the wait before dialing again a listener that
	// refused.
	forwardRetry = 50 * time.Millisecond
	// forwardDialTimeout gives up on QEMU's listener: it is gone or wedged.
	forwardDialTimeout = 30 * time.Second
)

// startForwards listens on each TCP forward's host port (loopback only:
// a guest's service is the host user's, not the network's) and returns
// the forwarder; the error names the -p whose port cannot be had.
func startForwards(fwd []Forward) (*forwarder, error) {
	f := &forwarder{conns: map[net.Conn]struct{}{}}
	if len(fwd) > 0 {
		liftFileLimit()
	}
	for _, fw := range fwd {
		if fw.Proto != "tcp" {
			f.inner = append(f.inner, fw)
			continue
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", fw.Host))
		if err != nil {
			f.close()
			return nil, fmt.Errorf("-p %d:%d: the host port: %v", fw.Host, fw.Guest, err)
		}
		f.listeners = append(f.listeners, l)
		// QEMU's side: a free loopback port, found by listening on port 0
		// and letting it go (another process could take it in between;
		// QEMU then fails to start and says so).
		inner, err := FreePort()
		if err != nil {
			f.close()
			return nil, fmt.Errorf("-p %d:%d: %v", fw.Host, fw.Guest, err)
		}
		f.inner = append(f.inner, Forward{Proto: "tcp", Host: inner, Guest: fw.Guest})
	}
	return f, nil
}

// serve starts accepting on every listener.
func (f *forwarder) serve() {
	i := 0
	for _, fw := range f.inner {
		if fw.Proto != "tcp" {
			continue
		}
		l, target := f.listeners[i], fmt.Sprintf("127.0.0.1:%d", fw.Host)
		i++
		var dial sync.Mutex // one connection handed to slirp at a time
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				f.wg.Add(1)
				go func() {
					defer f.wg.Done()
					f.relay(c, target, &dial)
				}()
			}
		}()
	}
}

// relay hands c to QEMU's listener at target and copies both ways, each
// direction's end (a FIN) passed on as a half-close.
func (f *forwarder) relay(c net.Conn, target string, dial *sync.Mutex) {
	if !f.track(c) {
		c.Close()
		return
	}
	defer f.untrack(c)
	dial.Lock()
	s, err := dialPaced(target)
	dial.Unlock()
	if err != nil {
		return
	}
	if !f.track(s) {
		s.Close()
		return
	}
	defer f.untrack(s)
	done := make(chan struct{})
	go func() {
		io.Copy(s, c)
		s.(*net.TCPConn).CloseWrite()
		close(done)
	}()
	io.Copy(c, s)
	c.(*net.TCPConn).CloseWrite()
	<-done
}

// dialPaced dials target, redialing a handshake that does not complete
// within forwardRedial, and holds the caller's turn forwardPace after.
func dialPaced(target string) (net.Conn, error) {
	deadline := time.Now().Add(forwardDialTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), forwardRedial)
		var d net.Dialer
		s, err := d.DialContext(ctx, "tcp", target)
		cancel()
		if err == nil {
			time.Sleep(forwardPace)
			return s, nil
		}
		if time.Now().After(deadline) {
			return nil, err
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			// Refused: QEMU is still starting (the runner listens first).
			time.Sleep(forwardRetry)
		}
	}
}

func (f *forwarder) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return false
	}
	f.conns[c] = struct{}{}
	return true
}

func (f *forwarder) untrack(c net.Conn) {
	f.mu.Lock()
	delete(f.conns, c)
	f.mu.Unlock()
	c.Close()
}

// close stops the listeners and every relayed connection (QEMU is gone)
// and waits for the relays to end.
func (f *forwarder) close() {
	for _, l := range f.listeners {
		l.Close()
	}
	f.mu.Lock()
	f.done = true
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// liftFileLimit sets the soft limit on open files to the hard one, for
// this process and QEMU. A connection through a forward holds two
// descriptors here and one in QEMU, and a thousand clients pass the
// usual soft limit of 1,024. Go lifts its own soft limit at start but
// gives a child the original back, unless the program sets the limit
// itself (syscall.Setrlimit), as this does.
func liftFileLimit() {
	var l syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l) == nil {
		l.Cur = l.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	}
}

// FreePort returns a loopback TCP port nothing listens on now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
