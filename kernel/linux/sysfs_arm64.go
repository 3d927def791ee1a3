package linux

import (
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/gpio"
	"github.com/gometal/gometal/kernel/procfs"
	"github.com/gometal/gometal/kernel/socket"
	"github.com/gometal/gometal/kernel/sysfs"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"
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
	sysfs.GPIOChips = gpio.NChips
	sysfs.MockupChip = -1
	if gpio.NChips > 0 && gpio.Chips[gpio.NChips-1].Label == gpio.MockupLabel {
		sysfs.MockupChip = gpio.NChips - 1
		sysfs.MockupLines = gpio.Chips[gpio.NChips-1].NLines
	}
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
	case sysfs.KGPIODev:
		o.Dec(gpioMajor).Byte(':').Dec(int64(arg)).Byte('\n') // MAJOR:MINOR, as every dev attribute
	case sysfs.KMockupLine:
		// gpio_mockup_debugfs_read: the line's value now.
		if gpio.Mock.Get(int(arg)) {
			o.Str("1\n")
		} else {
			o.Str("0\n")
		}
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

// writeMockupLine is a write to a gpio-mockup line's file
// (gpio_mockup_debugfs_write): "0" or "1", a newline allowed, sets the
// line's pull; anything else is EINVAL.
func writeMockupLine(line int32, buf uintptr, count uint64) uint64 {
	var b [3]byte
	n := min(count, uint64(len(b)))
	if !usermem.CopyIn(b[:n], buf) {
		return vfs.Err(unix.EFAULT)
	}
	if n == 0 || n > 2 || b[0] != '0' && b[0] != '1' || n == 2 && b[1] != '\n' || count > 2 {
		return vfs.Err(unix.EINVAL)
	}
	gpio.Mock.Pull(int(line), b[0] == '1')
	return count
}
