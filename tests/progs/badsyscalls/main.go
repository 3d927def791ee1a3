//go:build linux && arm64

// Badsyscalls hands the kernel garbage: bad pointers (NULL, unmapped,
// unaligned, kernel addresses), huge sizes, bad descriptors and flags. The
// kernel must answer with errors, never fault; the app checks a few exact
// errnos and then makes thousands of random calls.
package main

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	unmapped = 0x0000_7000_dead_0000
	kernel   = 0xffff_0000_4008_0000
)

var fails int

func expect(name string, got, want syscall.Errno) {
	if got != want {
		fmt.Printf("FAIL %s: errno %v (%d), want %v\n", name, got, int(got), want)
		fails++
	}
}

func main() {
	var buf [64]byte
	_, _, e := syscall.Syscall(unix.SYS_WRITE, 1, unmapped, 10)
	expect("write(unmapped buffer)", e, syscall.EFAULT)
	_, _, e = syscall.Syscall(unix.SYS_WRITE, 1, kernel, 10)
	expect("write(kernel address)", e, syscall.EFAULT)
	_, _, e = syscall.Syscall(unix.SYS_READ, 1000, uintptr(unsafe.Pointer(&buf[0])), 10)
	expect("read(bad fd)", e, syscall.EBADF)
	_, _, e = syscall.Syscall6(unix.SYS_OPENAT, ^uintptr(99), unmapped, 0, 0, 0, 0)
	expect("openat(unmapped path)", e, syscall.EFAULT)
	_, _, e = syscall.Syscall6(unix.SYS_MMAP, 0, 0, 3, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS, ^uintptr(0), 0)
	expect("mmap(len 0)", e, syscall.EINVAL)
	_, _, e = syscall.Syscall(unix.SYS_CLOCK_GETTIME, 999, uintptr(unsafe.Pointer(&buf[0])), 0)
	expect("clock_gettime(bad clock)", e, syscall.EINVAL)
	_, _, e = syscall.Syscall(unix.SYS_CLOCK_GETTIME, 1, kernel, 0)
	expect("clock_gettime(kernel address)", e, syscall.EFAULT)
	_, _, e = syscall.Syscall(unix.SYS_GETRANDOM, unmapped, 16, 0)
	expect("getrandom(unmapped)", e, syscall.EFAULT)
	_, _, e = syscall.Syscall6(unix.SYS_FUTEX, unmapped, 0, 0, 0, 0, 0)
	expect("futex(unmapped)", e, syscall.EFAULT)
	_, _, e = syscall.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&buf[1])), 0, 0, 0, 0, 0)
	expect("futex(unaligned)", e, syscall.EINVAL)
	_, _, e = syscall.Syscall(unix.SYS_NANOSLEEP, kernel, 0, 0)
	expect("nanosleep(kernel address)", e, syscall.EFAULT)
	_, _, e = syscall.Syscall6(unix.SYS_MUNMAP, kernel, 4096, 0, 0, 0, 0)
	expect("munmap(kernel address)", e, syscall.EINVAL)
	_, _, e = syscall.Syscall(unix.SYS_SCHED_GETAFFINITY, 0, 3, uintptr(unsafe.Pointer(&buf[0])))
	expect("sched_getaffinity(size 3)", e, syscall.EINVAL)
	_, _, e = syscall.Syscall(unix.SYS_EPOLL_CTL, 1000, 1, 0)
	expect("epoll_ctl(bad epfd)", e, syscall.EBADF)
	_, _, e = syscall.Syscall(9999, 0, 0, 0)
	expect("syscall 9999", e, syscall.ENOSYS)

	// Random calls over the implemented syscalls with hostile arguments.
	// Left out: those that end the process or thread, change signal
	// handling, or alter memory or descriptors the Go runtime owns.
	nums := []uintptr{
		unix.SYS_GETCWD, unix.SYS_EVENTFD2, unix.SYS_EPOLL_CTL, unix.SYS_EPOLL_PWAIT,
		unix.SYS_FCNTL, unix.SYS_IOCTL, unix.SYS_FACCESSAT, unix.SYS_CHDIR,
		unix.SYS_OPENAT, unix.SYS_GETDENTS64, unix.SYS_LSEEK, unix.SYS_READ, unix.SYS_WRITE,
		unix.SYS_READV, unix.SYS_WRITEV, unix.SYS_PREAD64, unix.SYS_PWRITE64, unix.SYS_READLINKAT,
		unix.SYS_FSTATAT, unix.SYS_FSTAT, unix.SYS_FUTEX, unix.SYS_NANOSLEEP, unix.SYS_CLOCK_GETTIME,
		unix.SYS_CLOCK_GETRES, unix.SYS_CLOCK_NANOSLEEP, unix.SYS_SCHED_GETAFFINITY,
		unix.SYS_UNAME, unix.SYS_GETRLIMIT, unix.SYS_PRLIMIT64, unix.SYS_GETCPU,
		unix.SYS_GETTIMEOFDAY, unix.SYS_GETRANDOM, unix.SYS_PIPE2, unix.SYS_SOCKET, unix.SYS_BIND,
		unix.SYS_CONNECT, unix.SYS_GETSOCKNAME, unix.SYS_GETSOCKOPT, unix.SYS_SENDTO, unix.SYS_RECVFROM,
	}
	ptrs := []uintptr{0, 1, 7, unmapped, unmapped + 3, kernel, ^uintptr(0), ^uintptr(0) - 4095, 1 << 47}
	ints := []uintptr{0, 1, 2, 3, 8, 64, 4096, 1 << 31, ^uintptr(0), 1 << 40}
	fds := []uintptr{100, 999, 1 << 20, ^uintptr(0), ^uintptr(99)} // bad fds and AT_FDCWD
	x := uint64(0x9E3779B97F4A7C15)
	next := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	pick := func() uintptr {
		switch next() % 3 {
		case 0:
			return ptrs[next()%uint64(len(ptrs))]
		case 1:
			return ints[next()%uint64(len(ints))]
		}
		return fds[next()%uint64(len(fds))]
	}
	calls := 0
	for i := 0; i < 4000; i++ {
		nr := nums[next()%uint64(len(nums))]
		a := [6]uintptr{fds[next()%uint64(len(fds))], pick(), pick(), pick(), pick(), pick()}
		switch nr {
		case unix.SYS_NANOSLEEP, unix.SYS_CLOCK_NANOSLEEP:
			a[0], a[2] = ptrs[next()%uint64(len(ptrs))], ptrs[next()%uint64(len(ptrs))]
			if a[0] == 0 || a[2] == 0 {
				continue
			}
		case unix.SYS_FUTEX:
			a[0] = ptrs[next()%uint64(len(ptrs))]
		case unix.SYS_EVENTFD2, unix.SYS_PIPE2, unix.SYS_SOCKET:
			// These make descriptors; close what they make.
		}
		r, _, e := syscall.Syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
		if e == 0 && (nr == unix.SYS_EVENTFD2 || nr == unix.SYS_SOCKET) && r > 2 {
			syscall.Close(int(r))
		}
		calls++
	}
	fmt.Printf("survived %d hostile syscalls\n", calls)
	if fails > 0 {
		os.Exit(1)
	}
	fmt.Println("badsyscalls ok")
}
