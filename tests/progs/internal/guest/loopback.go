//go:build linux

package guest

import "golang.org/x/sys/unix"

// LoopbackUp brings lo up, which a bare Linux initramfs leaves down, so
// that a program that uses 127.0.0.1 runs unchanged on the benchmark's
// Linux guest; on gometal it is always up.
func LoopbackUp() {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil || unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr) != nil {
		return
	}
	if ifr.Uint16()&unix.IFF_UP == 0 {
		ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
		unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
	}
}
