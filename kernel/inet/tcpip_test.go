package inet

import "gvisor.dev/gvisor/pkg/tcpip"

func tcpipAddr(a [4]byte) tcpip.Address { return tcpip.AddrFrom4(a) }
