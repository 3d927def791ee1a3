package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"sync"
)

// relayCmd is what QEMU runs for each connection the guest makes to a
// -host-port (a guestfwd with cmd:): it connects to the host's port and
// copies between it and its stdin/stdout, which are QEMU's end of the
// guest's connection. QEMU's other kind of guestfwd, a chardev, connects
// once when QEMU starts and carries one connection for the whole run;
// this one is a connection per connect, made when the guest connects.
// Not in the usage: only QEMU calls it.
func relayCmd(args []string) int {
	if len(args) != 1 {
		return fail("relay: want HOST:PORT")
	}
	c, err := net.Dial("tcp", args[0])
	if err != nil {
		// The guest's connection closes; stderr is QEMU's.
		fmt.Fprintf(os.Stderr, "gometal: host port: %v\n", err)
		return 1
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		io.Copy(os.Stdout, c)
		os.Stdout.Close()
	}()
	io.Copy(c, os.Stdin)
	c.(*net.TCPConn).CloseWrite()
	wg.Wait()
	c.Close()
	return 0
}
