package linux

import (
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/inet"
)

// /etc/resolv.conf from the interface's configuration: when the DHCP
// lease (or gometal.ip=ADDR/PREFIX,GATEWAY,DNS) names a DNS server and
// the initramfs brings no /etc/resolv.conf of its own, the kernel puts
// one there before /init starts, as a Linux system's DHCP client writes
// it, so that Go's resolver asks that server (resolv.conf(5): one
// "nameserver" line). With no server named there is no file, and Go's
// resolver asks 127.0.0.1:53, which answers connection refused at once.

// resolvConf holds the file's bytes for the life of the system (the file
// refers to them until the app writes it).
var resolvConf [len("nameserver 255.255.255.255\n")]byte

// resolvConfPath is the file's name, in static memory: the tree keeps
// what it is given.
var resolvConfPath = [...]byte{'/', 'e', 't', 'c', '/', 'r', 'e', 's', 'o', 'l', 'v', '.', 'c', 'o', 'n', 'f'}

func writeResolvConf() {
	dns := inet.If.DNS
	if dns == ([4]byte{}) {
		return
	}
	var w fs.Walk
	if _, e := fs.Lookup(&w, fs.RootPath(), resolvConfPath[:], fs.Follow); e == 0 {
		return // the app's own
	}
	n := copy(resolvConf[:], "nameserver ")
	for i, b := range dns {
		if i > 0 {
			resolvConf[n] = '.'
			n++
		}
		n += putDec(resolvConf[n:], b)
	}
	resolvConf[n] = '\n'
	fs.AddFile(resolvConfPath[1:], 0o644, resolvConf[:n+1])
}

// putDec writes b in decimal and returns how many digits.
func putDec(dst []byte, b byte) int {
	switch {
	case b >= 100:
		dst[0], dst[1], dst[2] = '0'+b/100, '0'+b/10%10, '0'+b%10
		return 3
	case b >= 10:
		dst[0], dst[1] = '0'+b/10, '0'+b%10
		return 2
	}
	dst[0] = '0' + b
	return 1
}
