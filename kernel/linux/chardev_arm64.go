package linux

import (
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mount"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/tty"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Character devices are the initramfs's device nodes, opened by their
// number as Linux opens them: the CLI's initramfs has /dev/console and
// the memory devices (linker/initramfs.go), the way a Linux initramfs
// brings its own /dev.

// Device numbers, major<<8 | minor (Documentation/admin-guide/devices.txt).
const (
	devNull    = 1<<8 | 3
	devZero    = 1<<8 | 5
	devFull    = 1<<8 | 7
	devRandom  = 1<<8 | 8
	devURandom = 1<<8 | 9
	devTTY     = 5<<8 | 0
	devConsole = tty.Rdev
	devPtmx    = tty.PtmxRdev
)

// devNodes are the devices devtmpfs shows, with the modes Linux's
// drivers give them (mem_class's devnode: 0666 for null, zero, full,
// random and urandom; the tty layer's: 0666 tty, 0600 console).
var devList = [...]mount.DevNode{
	{Name: "console", Mode: unix.S_IFCHR | 0o600, Rdev: devConsole},
	{Name: "tty", Mode: unix.S_IFCHR | 0o666, Rdev: devTTY},
	{Name: "ptmx", Mode: unix.S_IFCHR | 0o666, Rdev: devPtmx},
	{Name: "null", Mode: unix.S_IFCHR | 0o666, Rdev: devNull},
	{Name: "zero", Mode: unix.S_IFCHR | 0o666, Rdev: devZero},
	{Name: "full", Mode: unix.S_IFCHR | 0o666, Rdev: devFull},
	{Name: "random", Mode: unix.S_IFCHR | 0o666, Rdev: devRandom},
	{Name: "urandom", Mode: unix.S_IFCHR | 0o666, Rdev: devURandom},
	{Name: "kmsg", Mode: unix.S_IFCHR | 0o644, Rdev: devKmsg},
}

// newDevNumber turns mknod's dev_t (new_decode_dev: the major in bits
// 8-19, the minor in 0-7 and 20-31) into this kernel's major<<8|minor.
func newDevNumber(dev uint64) uint32 {
	return uint32(unix.Major(dev))<<8 | uint32(unix.Minor(dev))
}

// openCharDev opens device node i; a number no driver here answers is
// ENXIO, as on Linux.
func openCharDev(i int32, flags uint32) uint64 {
	cloexec := flags&unix.O_CLOEXEC != 0
	noctty := flags & unix.O_NOCTTY
	flags &^= openOnlyFlags
	switch fs.Inodes[i].Rdev {
	case devNull, devZero, devFull, devRandom, devURandom:
		return openDevNode(&memDevImpl, i, flags, cloexec)
	case devKmsg:
		return openKmsg(i, flags, cloexec)
	case devConsole, devTTY:
		// /dev/tty is the caller's controlling terminal, ENXIO with none
		// (tty_open_current_tty). Neither open makes the console one
		// (ctty_arm64.go).
		tm := &tty.Console
		if fs.Inodes[i].Rdev == devTTY {
			if tm = cttyOf(procOf(current())); tm == nil {
				return errno(unix.ENXIO)
			}
		}
		fd := openFD(tm, flags, cloexec)
		if !vfs.IsErr(fd) {
			fl, _ := getFD(fd)
			devNodes[fl.Index()] = i
			openedConsole(tm, fl, fs.Inodes[i].Rdev == devTTY)
		}
		return fd
	case devPtmx:
		return openPtmx(flags, cloexec)
	}
	if fs.Inodes[i].Rdev>>8 == i2cMajor {
		return openI2C(i, flags, cloexec)
	}
	if fs.Inodes[i].Rdev>>8 == rtcMajor {
		return openRTC(i, flags, cloexec)
	}
	if fs.Inodes[i].Rdev>>8 == spidevMajor {
		return openSpidev(i, flags, cloexec)
	}
	if fs.Inodes[i].Rdev>>8 == gpioMajor {
		return openGPIOChip(i, flags, cloexec)
	}
	if fs.Inodes[i].Rdev>>8 == fbMajor {
		return openFB(i, flags, cloexec)
	}
	if fs.Inodes[i].Rdev>>8 == tty.PtsMajor {
		return openPts(int32(fs.Inodes[i].Rdev&0xff), flags|noctty, cloexec)
	}
	return errno(unix.ENXIO)
}

// nodeDev is what a device's Impl answers from the node its description
// was opened on (devNodes): its stat, its release (the node was held),
// always ready, a device with no position. The devices embed it.
type nodeDev struct {
	vfs.Base
	W vfs.Waitable // never notified: always ready
}

func (d *nodeDev) Stat(f *vfs.File) unix.Stat_t { return devNodeStat(f) }
func (d *nodeDev) Release(f *vfs.File)          { fs.Drop(devNodes[f.Index()]) }
func (d *nodeDev) Readiness(f *vfs.File) uint32 { return unix.EPOLLIN | unix.EPOLLOUT }
func (d *nodeDev) Waitable() *vfs.Waitable      { return &d.W }
func (d *nodeDev) Kind() vfs.Kind               { return vfs.KindDevice }

// Seek: no position (no_llseek).
func (d *nodeDev) Seek(*vfs.File, int64, int) uint64 { return errno(unix.ESPIPE) }

// openDevNode opens a description of impl from device node i, which it
// holds (devNodes: its Stat and Release find it there).
func openDevNode(impl vfs.Impl, i int32, flags uint32, cloexec bool) uint64 {
	fd := openFD(impl, flags, cloexec)
	if !vfs.IsErr(fd) {
		fl, _ := getFD(fd)
		devNodes[fl.Index()] = i
		fs.Hold(i)
	}
	return fd
}

// openPtmx is an open of /dev/ptmx (tty_io.c's ptmx_open): a new pty
// pair, its master the description; ENOSPC with every pair in use.
func openPtmx(flags uint32, cloexec bool) uint64 {
	cred := &procOf(current()).Cred
	p := tty.NewPty(cred.User.E, cred.Group.E)
	if p == nil {
		return errno(unix.ENOSPC)
	}
	fd := openFD(p, flags, cloexec)
	if vfs.IsErr(fd) {
		p.Release(nil)
		return fd
	}
	noNode(fd)
	return fd
}

// noNode marks descriptor fd's description as opened from no node
// fileStat answers for: a description slot is reused, and a pty's end
// must not answer with the node of the console description before it.
func noNode(fd uint64) {
	if fl, ok := getFD(fd); ok {
		devNodes[fl.Index()] = -1
	}
}

// openPts opens slave n (/dev/pts/n, or TIOCGPTPEER): EIO while the pair
// is locked or its master is gone (pts_unix98_lookup, pty_open). Without
// O_NOCTTY a session leader with no terminal takes it as its own, as
// tty_open_proc_set_tty does for any tty but the console.
func openPts(n int32, flags uint32, cloexec bool) uint64 {
	if !tty.Used(n) {
		return errno(unix.EIO)
	}
	p := &tty.Ptys[n]
	if e := p.OpenSlave(); e != 0 {
		return errno(e)
	}
	noctty := flags&unix.O_NOCTTY != 0
	fd := openFD(&p.Slave, flags&^openOnlyFlags, cloexec)
	if vfs.IsErr(fd) {
		p.CloseSlave()
		return fd
	}
	noNode(fd)
	me := lx(current()).Proc
	if pp := &proc.Procs[me]; !noctty && proc.Leader(me) && !pp.CTTY && p.Slave.Session == 0 {
		takeConsole(&p.Slave, me)
	}
	return fd
}

// memDev is the Impl of the memory devices (mem(4), null(4), random(4));
// which one a description is comes from its device node (devNodes).
type memDev struct {
	vfs.Base
	W vfs.Waitable // never notified: always ready
}

var memDevImpl memDev

// devNodes holds the device node each memory-device description was
// opened on, indexed like vfs.Files; the description holds the inode.
var devNodes [vfs.MaxFiles]int32

func devRdev(f *vfs.File) uint32 { return fs.Inodes[devNodes[f.Index()]].Rdev }

func (d *memDev) Stat(f *vfs.File) unix.Stat_t { return devNodeStat(f) }

// devNodeStat is fstat of a device description: its node's.
func devNodeStat(f *vfs.File) unix.Stat_t {
	var st unix.Stat_t
	fs.Inodes[devNodes[f.Index()]].StatTo(&st)
	return st
}

// fileStat is fstat of description f. A console description answers
// for the node it was opened from, as Linux's fstat gives the inode of
// the file opened (st_dev, st_ino: what tty(1) looks for in /dev); the
// terminal knows only its device number. The node is not held open (the
// console's Release is the tty layer's), so one gone, or its slot reused
// for another file, leaves the terminal's own answer.
func fileStat(f *vfs.File) unix.Stat_t {
	st := f.Impl.Stat(f)
	if f.Impl.Kind() != vfs.KindConsole {
		return st
	}
	i := devNodes[f.Index()]
	if i < 0 {
		return st
	}
	n := &fs.Inodes[i]
	if n.Mode&unix.S_IFMT == unix.S_IFCHR && (n.Rdev == devConsole || n.Rdev == devTTY) {
		n.StatTo(&st)
	}
	return st
}

// bootConsoleNode makes the boot descriptors 0-2 (initConsoleFDs, before
// the initramfs is unpacked) opened from the initramfs's /dev/console,
// as Linux's console_on_rootfs opens it once the root is there.
func bootConsoleNode() {
	fl, ok := getFD(0)
	if !ok || fl.Impl.Kind() != vfs.KindConsole {
		return
	}
	var w fs.Walk
	devNodes[fl.Index()] = -1
	if i, e := fs.Lookup(&w, fs.RootPath(), []byte("/dev/console"), fs.Follow); e == 0 {
		devNodes[fl.Index()] = i
	}
}

func (d *memDev) Release(f *vfs.File) { fs.Drop(devNodes[f.Index()]) }

// maxDevRead bounds one read of a memory device: the kernel lock is held
// while it fills the buffer, and a short read is what read(2) allows.
const maxDevRead = 1 << 20

// Read: /dev/null is always at its end; /dev/zero and /dev/full read as
// zeros; /dev/random and /dev/urandom give the getrandom stream.
func (d *memDev) Read(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	rdev := devRdev(f)
	if rdev == devNull || n == 0 {
		return 0
	}
	return fillUser(buf, min(n, maxDevRead), rdev == devRandom || rdev == devURandom)
}

// Write: writes vanish, except on /dev/full, which is always full.
func (d *memDev) Write(f *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	if devRdev(f) == devFull {
		return errno(unix.ENOSPC)
	}
	return n
}

// Seek: the memory devices accept any position and stay where they are
// (Linux's null_lseek and friends return 0).
func (d *memDev) Seek(f *vfs.File, off int64, whence int) uint64 {
	f.Pos = 0
	return 0
}

func (d *memDev) Readiness(f *vfs.File) uint32 { return unix.EPOLLIN | unix.EPOLLOUT }
func (d *memDev) Waitable() *vfs.Waitable      { return &d.W }
func (d *memDev) Kind() vfs.Kind               { return vfs.KindDevice }
