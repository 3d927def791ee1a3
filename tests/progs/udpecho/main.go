// Udpecho exercises UDP sockets through Go's net package: first two
// sockets on the loopback (DialUDP, ListenUDP, ReadFromUDP, WriteToUDP,
// WriteMsgUDP and ReadMsgUDP through sendmsg and recvmsg,
// a datagram of each size up to 60,000 bytes, a name lookup with no DNS
// server refused at once), then an echo server on
// :9000 for the host (gometal run -p PORT:9000/udp) until a datagram
// says "quit". Each datagram from the host is checked against the
// pattern the test sends (byte i of an n-byte datagram is i^n): with
// -net isolated QEMU drops what the guest sends (libslirp's restrict
// drops all guest UDP), so the count printed at the end is how the
// test knows what arrived.
package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

func fail(format string, args ...any) {
	fmt.Printf("udpecho: "+format+"\n", args...)
	os.Exit(1)
}

func loopback() {
	srv, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		fail("listen: %v", err)
	}
	defer srv.Close()
	c, err := net.DialUDP("udp", nil, srv.LocalAddr().(*net.UDPAddr))
	if err != nil {
		fail("dial: %v", err)
	}
	defer c.Close()
	buf := make([]byte, 65536)
	for _, n := range []int{0, 1, 1472, 1473, 9000, 60000} {
		msg := make([]byte, n)
		for i := range msg {
			msg[i] = byte(i*13 + n)
		}
		if _, err := c.Write(msg); err != nil {
			fail("write %d: %v", n, err)
		}
		srv.SetReadDeadline(time.Now().Add(10 * time.Second))
		k, from, err := srv.ReadFromUDP(buf)
		if err != nil || !bytes.Equal(buf[:k], msg) || from.Port != c.LocalAddr().(*net.UDPAddr).Port {
			fail("read %d: %d bytes from %v, %v", n, k, from, err)
		}
		if _, err := srv.WriteToUDP(msg, from); err != nil {
			fail("reply %d: %v", n, err)
		}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if k, err := c.Read(buf); err != nil || !bytes.Equal(buf[:k], msg) {
			fail("reply read %d: %d, %v", n, k, err)
		}
	}
	// sendmsg and recvmsg: WriteMsgUDP to the connected peer, ReadMsgUDP
	// into a buffer too small, which says MSG_TRUNC and who sent it.
	if _, _, err := c.WriteMsgUDP([]byte("message"), nil, nil); err != nil {
		fail("WriteMsgUDP: %v", err)
	}
	small := make([]byte, 3)
	srv.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, oobn, flags, from, err := srv.ReadMsgUDP(small, make([]byte, 64))
	if err != nil || string(small[:n]) != "mes" || oobn != 0 || flags&syscall.MSG_TRUNC == 0 || from.Port != c.LocalAddr().(*net.UDPAddr).Port {
		fail("ReadMsgUDP: %q oob %d flags %#x from %v, %v", small[:n], oobn, flags, from, err)
	}
	fmt.Println("udpecho: loopback ok")

	// No /etc/resolv.conf: Go's resolver asks 127.0.0.1:53 (and [::1]:53,
	// which the dial here replaces), where nobody listens. As on Linux,
	// the connected UDP socket's next read says connection refused, not
	// a timeout after 10 s of retries.
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", "127.0.0.1:53")
	}}
	_, err = r.LookupHost(context.Background(), "nonexistent.gometal.test")
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		fail("lookup with no DNS server: %v, want connection refused", err)
	}
	fmt.Println("udpecho: lookup with no DNS server:", err)
}

func main() {
	loopback()
	pc, err := net.ListenUDP("udp", &net.UDPAddr{Port: 9000})
	if err != nil {
		fail("listen :9000: %v", err)
	}
	fmt.Println("udpecho: echoing on", pc.LocalAddr())
	buf := make([]byte, 65536)
	got, intact := 0, 0
	for {
		n, from, err := pc.ReadFromUDP(buf)
		if err != nil {
			fail("read: %v", err)
		}
		if string(buf[:n]) == "quit" {
			fmt.Printf("udpecho: quit after %d datagrams, %d intact\n", got, intact)
			return
		}
		got++
		ok := true
		for i := range n {
			if buf[i] != byte(i^n) {
				ok = false
				break
			}
		}
		if ok {
			intact++
		}
		if _, err := pc.WriteToUDP(buf[:n], from); err != nil {
			fail("write to %v: %v", from, err)
		}
	}
}
