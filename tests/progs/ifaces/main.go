// Ifaces prints what Go's net package says of the machine's network
// interfaces and addresses (net.Interfaces, Interface.Addrs,
// net.InterfaceAddrs, net.InterfaceByName): NETLINK_ROUTE dumps on
// Linux, and on gometal; and /etc/resolv.conf, which the kernel writes
// from the DNS server the interface's configuration names.
package main

import (
	"fmt"
	"net"
	"os"
)

func main() {
	ifs, err := net.Interfaces()
	if err != nil {
		fmt.Println("ifaces: net.Interfaces:", err)
		os.Exit(1)
	}
	for _, ifi := range ifs {
		addrs, err := ifi.Addrs()
		if err != nil {
			fmt.Println("ifaces: Addrs:", err)
			os.Exit(1)
		}
		fmt.Printf("ifaces: %d %s mtu %d hw %q flags %v addrs %v\n", ifi.Index, ifi.Name, ifi.MTU, ifi.HardwareAddr.String(), ifi.Flags, addrs)
	}
	all, err := net.InterfaceAddrs()
	if err != nil {
		fmt.Println("ifaces: net.InterfaceAddrs:", err)
		os.Exit(1)
	}
	fmt.Println("ifaces: all addrs", all)
	if lo, err := net.InterfaceByName("lo"); err != nil || lo.Flags&net.FlagLoopback == 0 {
		fmt.Println("ifaces: no loopback by name:", lo, err)
		os.Exit(1)
	}
	if b, err := os.ReadFile("/etc/resolv.conf"); err == nil {
		fmt.Printf("ifaces: resolv.conf: %q\n", b)
	} else {
		fmt.Println("ifaces: no resolv.conf:", err)
	}
}
