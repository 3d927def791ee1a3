// Package sysfs keeps /sys's tree (sysfs(5)): the directories Linux has
// at its top, the CPU lists Go's runtime and tools read
// (/sys/devices/system/cpu/{online,possible,present}), a directory per
// network interface under /sys/class/net with the attributes `ip` and
// friends read, the SoC's thermal zone on a Raspberry Pi
// (/sys/class/thermal/thermal_zone0), the GPIO chips' device numbers
// (/sys/bus/gpio/devices/gpiochipN/dev) and gpio-mockup's line files,
// and the empty directories other file systems mount on
// (/sys/kernel/security, /sys/kernel/debug, /sys/fs/cgroup: mounting
// those types answers ENODEV here, as on a kernel without them). Its
// inodes are kernel/fs's synthetic ones, as /proc's; what a file says
// is the Linux layer's, which knows the cores and the interfaces. Builds
// on the host: go test ./kernel/sysfs.
package sysfs

import (
	"github.com/gometal/gometal/kernel/fs"

	"golang.org/x/sys/unix"
)

// Kinds of /sys inode (fs.Synth.Kind), past /proc's.
const (
	KRoot       uint8 = 128 + iota // /sys
	KDir                           // any other directory
	KCPUList                       // a CPU list; Arg: which (cpuOnline…)
	KNetAttr                       // /sys/class/net/IF/ATTR; PID: the ifindex, Arg: the attribute
	KThermal                       // /sys/class/thermal/thermal_zone0/ATTR; Arg: the attribute
	KDTProp                        // /sys/firmware/devicetree/base/PROP; Arg: which (DTProps)
	KGPIODev                       // /sys/bus/gpio/devices/gpiochipN/dev; Arg: N
	KMockupLine                    // /sys/kernel/debug/gpio-mockup/gpiochipN/LINE; PID: N, Arg: the line
)

// GPIOChips counts the machine's GPIO chips (gpiochip0 on): each has
// /sys/bus/gpio/devices/gpiochipN/dev, the device number go-gpiocdev
// checks /dev/gpiochipN against. MockupChip is the gpio-mockup chip's
// number (-1: none) and MockupLines its lines: each a file under
// /sys/kernel/debug/gpio-mockup/gpiochipN that reads the line's value
// and takes "0" or "1" as its pull (gpio-mockup's debugfs files; there
// is no debugfs here, so they live in /sys's tree itself, where Linux
// mounts debugfs). The Linux layer sets them before the first mount.
var (
	GPIOChips   int
	MockupChip  = -1
	MockupLines int
)

// GPIOChipNames are the chips' names (gpiochipN): their directories
// here, and their device nodes and chip info in the Linux layer.
var GPIOChipNames = [...]string{"gpiochip0", "gpiochip1", "gpiochip2", "gpiochip3"}

// DTProps are the device tree root's properties /sys/firmware/devicetree/base
// shows (Linux shows every node and property; these are what programs
// read to know the board: periph.io and gpiozero read model, the Pi's
// firmware adds serial-number). DTHas says which the tree has; the Linux
// layer sets it before the first mount.
var (
	DTProps = [...]string{"model", "compatible", "serial-number"}
	DTHas   [len(DTProps)]bool
)

// Is says whether kind k is sysfs's.
func Is(k uint8) bool { return k >= KRoot }

// The CPU lists (Documentation/ABI/testing/sysfs-devices-system-cpu).
const (
	CPUOnline = iota
	CPUPossible
	CPUPresent
)

// The interface attributes (Documentation/ABI/testing/sysfs-class-net).
const (
	NetAddress = iota
	NetMTU
	NetIfindex
	NetOperstate
	NetType
	NetFlags
	NetCarrier
)

// The thermal zone's attributes (Documentation/ABI/testing/sysfs-class-thermal).
const (
	ThermalTemp = iota // millidegrees Celsius
	ThermalType        // the zone's name
)

var thermalAttrs = [...]string{ThermalTemp: "temp", ThermalType: "type"}

// Thermal says whether the machine has a thermal zone to show (the Pi's
// SoC sensor, read through its firmware); the Linux layer sets it
// before the first mount.
var Thermal bool

var netAttrs = [...]string{NetAddress: "address", NetMTU: "mtu", NetIfindex: "ifindex",
	NetOperstate: "operstate", NetType: "type", NetFlags: "flags", NetCarrier: "carrier"}

// Interface is a network interface /sys/class/net lists.
type Interface struct {
	Name    string
	Ifindex int32
}

// Interfaces are the machine's interfaces; the Linux layer sets them
// before the first mount.
var Interfaces []Interface

const (
	modeDir  = unix.S_IFDIR | 0o755
	modeFile = unix.S_IFREG | 0o444
)

// topDirs are the directories at /sys's top on Linux 6.1, and the
// mountpoints under them.
var topDirs = [...]string{"block", "bus", "class", "dev", "devices", "firmware", "fs", "kernel",
	"module", "power", "class/net", "class/thermal", "bus/gpio", "bus/gpio/devices", "devices/system", "firmware/devicetree", "firmware/devicetree/base", "devices/system/cpu", "fs/cgroup",
	"kernel/security", "kernel/debug", "kernel/tracing", "kernel/mm"}

var cpuLists = [...]string{CPUOnline: "online", CPUPossible: "possible", CPUPresent: "present"}

// Root and Super are /sys's root inode and instance once Instance made
// them (0 before).
var (
	Root  int32
	Super uint8
)

// Instance is sysfs's instance, made the first time it is asked for
// (mount.SysfsInstance): every mount of sysfs shows this one.
func Instance() (uint8, unix.Errno) {
	if Root != 0 {
		return Super, 0
	}
	sb, r, e := fs.NewSynthRoot(fs.TypeSysfs, fs.Synth{Kind: KRoot})
	if e != 0 {
		return 0, e
	}
	for _, d := range topDirs {
		if _, e := mkdir(r, d); e != 0 {
			return 0, e
		}
	}
	cpu, _ := lookup(r, "devices/system/cpu")
	for k, nm := range cpuLists {
		if _, e := fs.MakeSynth(cpu, []byte(nm), modeFile, fs.Synth{Kind: KCPUList, Arg: int32(k)}); e != 0 {
			return 0, e
		}
	}
	net, _ := lookup(r, "class/net")
	for _, ifc := range Interfaces {
		d, e := fs.MakeSynth(net, []byte(ifc.Name), modeDir, fs.Synth{Kind: KDir})
		if e != 0 {
			return 0, e
		}
		for k, nm := range netAttrs {
			if _, e := fs.MakeSynth(d, []byte(nm), modeFile, fs.Synth{Kind: KNetAttr, PID: ifc.Ifindex, Arg: int32(k)}); e != 0 {
				return 0, e
			}
		}
	}
	base, _ := lookup(r, "firmware/devicetree/base")
	for k, nm := range DTProps {
		if DTHas[k] {
			if _, e := fs.MakeSynth(base, []byte(nm), modeFile, fs.Synth{Kind: KDTProp, Arg: int32(k)}); e != 0 {
				return 0, e
			}
		}
	}
	if e := gpioFiles(r); e != 0 {
		return 0, e
	}
	if Thermal {
		th, _ := lookup(r, "class/thermal")
		z, e := fs.MakeSynth(th, []byte("thermal_zone0"), modeDir, fs.Synth{Kind: KDir})
		if e != 0 {
			return 0, e
		}
		for k, nm := range thermalAttrs {
			if _, e := fs.MakeSynth(z, []byte(nm), modeFile, fs.Synth{Kind: KThermal, Arg: int32(k)}); e != 0 {
				return 0, e
			}
		}
	}
	Root, Super = r, sb
	return sb, 0
}

// mkdir makes directory path (its parent made already) under dir.
func mkdir(dir int32, path string) (int32, unix.Errno) {
	slash := -1
	for k := len(path) - 1; k >= 0; k-- {
		if path[k] == '/' {
			slash = k
			break
		}
	}
	if slash >= 0 {
		var e unix.Errno
		if dir, e = lookup(dir, path[:slash]); e != 0 {
			return -1, e
		}
		path = path[slash+1:]
	}
	return fs.MakeSynth(dir, []byte(path), modeDir, fs.Synth{Kind: KDir})
}

// lookup finds directory path under dir, one name at a time.
func lookup(dir int32, path string) (int32, unix.Errno) {
	for len(path) > 0 {
		n := 0
		for n < len(path) && path[n] != '/' {
			n++
		}
		if dir = fs.LookupIn(dir, []byte(path[:n])); dir < 0 {
			return -1, unix.ENOENT
		}
		if n < len(path) {
			n++
		}
		path = path[n:]
	}
	return dir, 0
}

// gpioFiles makes the GPIO chips' files under root r.
func gpioFiles(r int32) unix.Errno {
	devs, _ := lookup(r, "bus/gpio/devices")
	for c := 0; c < min(GPIOChips, len(GPIOChipNames)); c++ {
		d, e := fs.MakeSynth(devs, []byte(GPIOChipNames[c]), modeDir, fs.Synth{Kind: KDir})
		if e != 0 {
			return e
		}
		if _, e := fs.MakeSynth(d, []byte("dev"), modeFile, fs.Synth{Kind: KGPIODev, Arg: int32(c)}); e != 0 {
			return e
		}
	}
	if MockupChip < 0 || MockupChip >= len(GPIOChipNames) {
		return 0
	}
	debug, _ := lookup(r, "kernel/debug")
	m, e := fs.MakeSynth(debug, []byte("gpio-mockup"), modeDir, fs.Synth{Kind: KDir})
	if e != 0 {
		return e
	}
	d, e := fs.MakeSynth(m, []byte(GPIOChipNames[MockupChip]), modeDir, fs.Synth{Kind: KDir})
	if e != 0 {
		return e
	}
	for k := 0; k < MockupLines; k++ {
		var name [2]byte
		n := 0
		if k >= 10 {
			name[n] = byte('0' + k/10)
			n++
		}
		name[n] = byte('0' + k%10)
		n++
		// 0664, as gpio-mockup's debugfs_create_file makes them.
		if _, e := fs.MakeSynth(d, name[:n], unix.S_IFREG|0o664, fs.Synth{Kind: KMockupLine, Writable: true, PID: int32(MockupChip), Arg: int32(k)}); e != 0 {
			return e
		}
	}
	return 0
}
