package kernel

import "golang.org/x/sys/unix"

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
	devConsole = 5<<8 | 1
)

// openCharDev opens device node nd; a number no driver here answers is
// ENXIO, as on Linux.
func openCharDev(nd fsNode, flags uint32) uint64 {
	kind := kindMemDev
	switch nd.rdev {
	case devNull, devZero, devFull, devRandom, devURandom:
	case devConsole, devTTY:
		kind = kindConsole
	default:
		return errno(unix.ENXIO)
	}
	fd, fl := allocFD(0)
	if fl == nil {
		return errno(unix.EMFILE)
	}
	fl.kind = kind
	fl.node = nd
	fl.flags = flags &^ openOnlyFlags
	setCloexec(fd, flags&unix.O_CLOEXEC != 0)
	return uint64(fd)
}

// maxDevRead bounds one read of a memory device: the kernel lock is held
// while it fills the buffer, and a short read is what read(2) allows.
const maxDevRead = 1 << 20

// memDevRead: /dev/null is always at its end; /dev/zero and /dev/full
// read as zeros; /dev/random and /dev/urandom give the getrandom stream.
func memDevRead(fl *file, buf uintptr, n uint64) uint64 {
	if fl.node.rdev == devNull || n == 0 {
		return 0
	}
	random := fl.node.rdev == devRandom || fl.node.rdev == devURandom
	return fillUser(buf, min(n, maxDevRead), random)
}

// memDevWrite: writes vanish, except on /dev/full, which is always full.
func memDevWrite(fl *file, n uint64) uint64 {
	if fl.node.rdev == devFull {
		return errno(unix.ENOSPC)
	}
	return n
}
