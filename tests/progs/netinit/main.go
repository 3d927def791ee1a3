//go:build linux && arm64

// Command netinit is /init of the Linux guest in the network benchmarks
// (gometal bench's http_* and tcp_* figures): it does for Debian's stock
// kernel what gometal's kernel does itself before /init starts, then
// runs the program under test, unchanged, as /app, and powers off.
//
// Debian builds virtio-mmio and virtio-net as modules (CONFIG_VIRTIO_MMIO=m,
// CONFIG_VIRTIO_NET=m), so netinit loads them from /modules in name order
// (the harness numbers them in dependency order: failover, net_failover,
// virtio_net, virtio_mmio) with finit_module(2), then gives eth0 the
// address QEMU's user networking forwards to and expects (10.0.2.15/24,
// the address its DHCP server hands out; the router is 10.0.2.2 on the
// same subnet) and brings eth0 and lo up, with the ioctls ip(8) and
// ifconfig(8) use (netdevice(7)).
//
//	netinit [ARG...]   runs /app ARG...
package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gometal/gometal/tests/progs/internal/guest"
)

const (
	moduleDir = "/modules"
	app       = "/app"
	iface     = "eth0"
	// argsMark starts the program's arguments: Linux hands init the
	// command-line words it does not know before those after "--".
	argsMark = "--args"
	// ifaceWait bounds the wait for the driver to register eth0 (its
	// probe runs when virtio_mmio loads, normally at once).
	ifaceWait = 5 * time.Second
)

// The address and netmask slirp expects the guest at (QEMU's
// docs/system/devices/net.rst, "Using the user mode network stack").
var (
	guestAddr = net.IPv4(10, 0, 2, 15).To4()
	guestMask = net.IPv4(255, 255, 255, 0).To4()
)

func main() {
	args := os.Args[1:]
	for i, a := range args {
		if a == argsMark {
			args = args[i+1:]
			break
		}
	}
	if err := loadModules(); err != nil {
		fail(err)
	}
	if err := configure(); err != nil {
		fail(err)
	}
	fmt.Printf("netinit: %s up at %v/24\n", iface, guestAddr)
	cmd := exec.Command(app, args...)
	// No /dev/null here: os/exec would open it for a nil stream.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	status := 0
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			status = ee.ExitCode()
		} else {
			fail(err)
		}
	}
	fmt.Printf("netinit: %s exited with status %d\n", app, status)
	powerOff()
}

// loadModules loads the driver modules in moduleDir.
func loadModules() error {
	n, err := guest.LoadModules(moduleDir)
	if err == nil && n == 0 {
		err = fmt.Errorf("no driver modules in %s", moduleDir)
	}
	return err
}

// configure addresses eth0 and brings it and lo up.
func configure() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(ifaceWait)
	for {
		if _, err := net.InterfaceByName(iface); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no %s %v after loading the driver", iface, ifaceWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
	set := func(req uint, ip net.IP) error {
		ifr, err := unix.NewIfreq(iface)
		if err != nil {
			return err
		}
		if err := ifr.SetInet4Addr(ip); err != nil {
			return err
		}
		return unix.IoctlIfreq(fd, req, ifr)
	}
	if err := set(unix.SIOCSIFADDR, guestAddr); err != nil {
		return fmt.Errorf("SIOCSIFADDR %s: %v", iface, err)
	}
	if err := set(unix.SIOCSIFNETMASK, guestMask); err != nil {
		return fmt.Errorf("SIOCSIFNETMASK %s: %v", iface, err)
	}
	for _, name := range []string{"lo", iface} {
		ifr, err := unix.NewIfreq(name)
		if err != nil {
			return err
		}
		if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
			return fmt.Errorf("SIOCGIFFLAGS %s: %v", name, err)
		}
		ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
		if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
			return fmt.Errorf("SIOCSIFFLAGS %s: %v", name, err)
		}
	}
	return nil
}

func fail(err error) {
	fmt.Printf("netinit: %s\n", strings.TrimSpace(err.Error()))
	powerOff()
	os.Exit(1)
}

// powerOff ends the run: init may not exit (the kernel panics), so it
// powers the machine off, which QEMU takes as its own exit.
func powerOff() {
	unix.Sync()
	unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
}
