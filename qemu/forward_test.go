package qemu

import (
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
)

// A forward relays each connection to QEMU's side, both ways, with the
// client's half-close passed on, for many clients at once; UDP forwards
// are left to QEMU.
func TestForwarderRelays(t *testing.T) {
	host := freeTestPort(t)
	f, err := startForwards([]Forward{{"tcp", host, 80}, {"udp", 5353, 53}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	if len(f.inner) != 2 || f.inner[0].Guest != 80 || f.inner[0].Host == host || f.inner[1] != (Forward{"udp", 5353, 53}) {
		t.Fatalf("inner forwards %v", f.inner)
	}
	// QEMU's listener, played by a server that answers after reading to
	// the end: it sees the client's FIN only through the relay.
	backend, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", f.inner[0].Host))
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Close()
	go func() {
		for {
			c, err := backend.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				b, _ := io.ReadAll(c)
				fmt.Fprintf(c, "got %q", b)
			}()
		}
	}()
	f.serve()
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", host))
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			fmt.Fprintf(c, "client %d", i)
			c.(*net.TCPConn).CloseWrite()
			b, err := io.ReadAll(c)
			if want := fmt.Sprintf("got %q", fmt.Sprintf("client %d", i)); err != nil || string(b) != want {
				t.Errorf("client %d: %q, %v; want %q", i, b, err, want)
			}
		}()
	}
	wg.Wait()
}

// A host port already taken is the user's error, named by its -p.
func TestForwarderPortTaken(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	_, err = startForwards([]Forward{{"tcp", port, 8080}})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("-p %d:8080", port)) || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("got %v, want the -p named and the port in use", err)
	}
}

func freeTestPort(t *testing.T) int {
	p, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}
