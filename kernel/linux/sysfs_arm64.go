package linux

import (
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/procfs"
	"github.com/gometal/gometal/kernel/socket"
	"github.com/gometal/gometal/kernel/sysfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// /sys's files (kernel/sysfs keeps the tree), in Linux 6.1's formats
// (drivers/base/cpu.c's cpumap lists, net/core/net-sysfs.c).

// sysIfaces are the interfaces /sys/class/net shows: the loopback, and
// eth0 when the machine has its network device.
var sysIfaces = [...]sysfs.Interface{{Name: "lo", Ifindex: 1}, {Name: "eth0", Ifindex: 2}}

// sysfsInstance is mount.SysfsInstance: the tree, made at the first
// mount, when the network device is known.
func sysfsInstance() (uint8, unix.Errno) {
	n := 1
	if socket.HasEthernet() {
		n = 2
	}
	sysfs.Interfaces = sysIfaces[:n]
	sysfs.Thermal = kernel.Board.Present
	for k, nm := range sysfs.DTProps {
		sysfs.DTHas[k] = kernel.DTRootProp(nm) != nil
	}
	return sysfs.Instance()
}

// readSys makes the text of sysfs file s into o.
func readSys(o *procfs.Buf, kind uint8, ifindex, arg int32) {
	switch kind {
	case sysfs.KCPUList:
		// Every core is possible, present and online once booted: "0" or
		// "0-N" (cpumap_print_to_pagebuf's list form).
		o.Byte('0')
		if n := sched.OnlineCPUs(); n > 1 {
			o.Byte('-').Dec(int64(n - 1))
		}
		o.Byte('\n')
	case sysfs.KNetAttr:
		typ, flags, mtu, mac := socket.LinkOf(uint32(ifindex))
		switch arg {
		case sysfs.NetAddress:
			for k, b := range mac {
				if k > 0 {
					o.Byte(':')
				}
				o.Hex(uint64(b), 2)
			}
		case sysfs.NetMTU:
			o.Udec(uint64(mtu))
		case sysfs.NetIfindex:
			o.Dec(int64(ifindex))
		case sysfs.NetOperstate:
			if typ == unix.ARPHRD_LOOPBACK {
				o.Str("unknown") // the loopback has no carrier to be up on (IF_OPER_UNKNOWN)
			} else {
				o.Str("up")
			}
		case sysfs.NetType:
			o.Udec(uint64(typ))
		case sysfs.NetFlags:
			// dev->flags, as format_flags prints them: the operational
			// bits (RUNNING, LOWER_UP, DORMANT) are dev_get_flags's, not these.
			o.Str("0x").Hex(uint64(flags&^(unix.IFF_RUNNING|unix.IFF_LOWER_UP|unix.IFF_DORMANT)), 0)
		case sysfs.NetCarrier:
			o.Byte('1')
		}
		o.Byte('\n')
	case sysfs.KDTProp:
		// The property's bytes as the tree holds them, NULs included
		// (Linux's of_node_property_read).
		o.Raw(kernel.DTRootProp(sysfs.DTProps[arg]))
		return
	case sysfs.KThermal:
		switch arg {
		case sysfs.ThermalTemp:
			// The firmware's reading now, in millidegrees (as
			// bcm2711_thermal's get_temp); EIO-free: a firmware that
			// stopped answering reads as 0, as a failed sensor's zone.
			t, _ := kernel.SoCTemperature()
			o.Dec(int64(t))
		case sysfs.ThermalType:
			o.Str("cpu-thermal") // the Pi 4 device tree's zone name
		}
		o.Byte('\n')
	}
}
