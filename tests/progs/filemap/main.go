//go:build linux && arm64

// Command filemap maps files (mmap with a descriptor) and prints what
// each step saw, so that its output compares line for line with
// Linux's: MAP_SHARED writes reaching read(2) and write(2) reaching the
// mapping, MAP_PRIVATE copies that nobody else sees, a mapping that
// outlives close and unlink, a fork sharing a MAP_SHARED mapping,
// SIGBUS past the end after a truncate, a mapping of an initramfs file
// (the program itself), msync, the errors, and /proc/self/maps.
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"syscall"
	"unsafe"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

const page = 4096

func say(format string, args ...any) { fmt.Printf("filemap: "+format+"\n", args...) }

func main() {
	if len(os.Args) > 1 && os.Args[1] == "sigbus" {
		sigbusChild()
		return
	}
	guest.LinuxDev()
	shared()
	unlinked()
	forked()
	truncated()
	linkerOutput()
	remapped()
	initramfs()
	errs()
	devZero()
	say("done")
}

// file makes path with size bytes, open read-write.
func file(path string, size int64) int {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_TRUNC, 0o644)
	if err != nil {
		guest.Fail(err.Error())
	}
	if err := unix.Ftruncate(fd, size); err != nil {
		guest.Fail(err.Error())
	}
	return fd
}

func mmap(fd int, off int64, n, prot, flags int) []byte {
	b, err := unix.Mmap(fd, off, n, prot, flags)
	if err != nil {
		say("mmap: %s", guest.Result(err))
		return make([]byte, n)
	}
	return b
}

func pread(fd, n int, off int64) string {
	b := make([]byte, n)
	m, _ := unix.Pread(fd, b, off)
	return string(b[:m])
}

func shared() {
	const size = 3*page + 100
	fd := file("/tmp/f", size)
	m := mmap(fd, 0, 4*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	copy(m, "hello")
	say("MAP_SHARED write, then read(2): %q", pread(fd, 5, 0))
	unix.Pwrite(fd, []byte("world"), page)
	say("write(2), then the MAP_SHARED mapping: %q", m[page:page+5])
	say("past the end in the last page: %d %d", m[size], m[4*page-1])

	p := mmap(fd, 0, 4*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	say("MAP_PRIVATE sees the file: %q", p[:5])
	copy(p, "PRIVATE")
	say("MAP_PRIVATE write: itself %q, read(2) %q, the shared mapping %q", p[:7], pread(fd, 7, 0), m[:7])
	unix.Pwrite(fd, []byte("later"), 2*page)
	say("write(2) to a page the private mapping has not copied: %q", p[2*page:2*page+5])
	say("madvise(MADV_DONTNEED) on the private mapping: %s, then %q", guest.Result(unix.Madvise(p[:page], unix.MADV_DONTNEED)), p[:7])

	o := mmap(fd, page, page, unix.PROT_READ, unix.MAP_SHARED)
	say("a mapping at offset %d: %q", page, o[:5])

	say("msync(MS_SYNC): %s", guest.Result(unix.Msync(m, unix.MS_SYNC)))
	say("msync(MS_ASYNC|MS_INVALIDATE): %s", guest.Result(unix.Msync(m, unix.MS_ASYNC|unix.MS_INVALIDATE)))
	say("msync(MS_SYNC|MS_ASYNC): %s", guest.Result(unix.Msync(m, unix.MS_SYNC|unix.MS_ASYNC)))
	_, _, e := unix.Syscall(unix.SYS_MSYNC, uintptr(unsafe.Pointer(&m[1])), page, unix.MS_SYNC)
	say("msync unaligned: %s", guest.Result(errOf(e)))

	maps("/tmp/f", fd)

	// munmap of the middle page: the rest stays.
	_, _, e = unix.Syscall(unix.SYS_MUNMAP, uintptr(unsafe.Pointer(&m[page])), page, 0)
	say("munmap of one page: %s; the pages around it: %q %q", guest.Result(errOf(e)), m[:5], m[2*page:2*page+5])
	_, _, e = unix.Syscall(unix.SYS_MSYNC, uintptr(unsafe.Pointer(&m[0])), 3*page, unix.MS_SYNC)
	say("msync over the hole: %s", guest.Result(errOf(e)))
	unix.Munmap(p)
	unix.Munmap(o)
	unix.Close(fd)
}

func errOf(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// maps prints the lines of /proc/self/maps that map path, without the
// addresses, and whether their device and inode are the file's.
func maps(path string, fd int) {
	var st unix.Stat_t
	unix.Fstat(fd, &st)
	dev := fmt.Sprintf("%02x:%02x", unix.Major(st.Dev), unix.Minor(st.Dev))
	for _, l := range strings.Split(guest.ReadFile("/proc/self/maps"), "\n") {
		f := strings.Fields(l)
		if len(f) != 6 || f[5] != path {
			continue
		}
		say("maps: %s %s, device and inode as stat(2): %v, path at column 73: %v",
			f[1], f[2], f[3] == dev && f[4] == fmt.Sprint(st.Ino), strings.Index(l, path) == 73)
	}
}

func unlinked() {
	fd := file("/tmp/g", page)
	m := mmap(fd, 0, page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	copy(m, "kept")
	unix.Close(fd)
	say("unlink while mapped: %s", guest.Result(unix.Unlink("/tmp/g")))
	copy(m[4:], " after")
	say("the mapping after close and unlink: %q", m[:10])
	unix.Munmap(m)
}

// forked: a child made by a raw fork writes through a MAP_SHARED
// mapping and a MAP_PRIVATE one; the parent sees the first only.
func forked() {
	fd := file("/tmp/h", page)
	m := mmap(fd, 0, page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	p := mmap(fd, 0, page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	copy(m, "parent")
	p[10] = 'p'
	pid, _, e := syscall.RawSyscall6(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	if pid == 0 {
		childWrites(m, p)
	}
	var ws syscall.WaitStatus
	syscall.Wait4(int(pid), &ws, 0, nil)
	say("fork: %s; the child's MAP_SHARED write seen by the parent: %q, read(2): %q; its MAP_PRIVATE write: %q, exit %d",
		guest.Result(errOf(e)), m[:6], pread(fd, 6, 0), p[10:11], ws.ExitStatus())
	unix.Munmap(m)
	unix.Munmap(p)
	unix.Close(fd)
	unix.Unlink("/tmp/h")
}

// childWrites is the forked child: raw stores and a raw exit only.
//
//go:nosplit
func childWrites(m, p []byte) {
	m[0], m[1], m[2], m[3], m[4], m[5] = 'c', 'h', 'i', 'l', 'd', '!'
	p[10] = 'c'
	for {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 7, 0, 0)
	}
}

// truncated: after a truncate, a touch of a page past the end faults
// (recovered here), and a process that does not catch it dies of SIGBUS
// BUS_ADRERR (the Go runtime names the signal and its code).
func truncated() {
	fd := file("/tmp/t", 2*page)
	m := mmap(fd, 0, 2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	p := mmap(fd, 0, 2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	m[page] = 'x'
	p[page+1] = 'y'
	say("ftruncate to one page: %s", guest.Result(unix.Ftruncate(fd, page)))
	say("the shared mapping past the end: %s", touch(m, page))
	say("the private copy past the end: %s", touch(p, page))
	say("within the end: %s", touch(m, page-1))
	unix.Ftruncate(fd, 2*page)
	say("grown again, the page past the old end reads %s", touch(m, page))
	unix.Munmap(m)
	unix.Munmap(p)
	unix.Close(fd)

	out, err := exec.Command("/init", "sigbus").CombinedOutput()
	sig := "no signal line"
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "[signal ") {
			if i := strings.Index(l, " addr="); i > 0 {
				sig = l[1:i]
			}
		}
	}
	say("uncaught: %s (%v)", sig, err)
}

// touch reads m[i], reporting a fault instead of dying of it.
func touch(m []byte, i int) (r string) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if e := recover(); e != nil {
			r = "fault"
		}
	}()
	return fmt.Sprintf("%d", m[i])
}

func sigbusChild() {
	fd := file("/tmp/s", 0)
	m := mmap(fd, 0, page, unix.PROT_READ, unix.MAP_SHARED)
	fmt.Println(m[0])
}

// linkerOutput writes a file as the Go linker writes its output
// (cmd/link/internal/ld/outbuf_mmap.go): fallocate, ftruncate, a
// MAP_SHARED writable mapping written through, grown by unmapping,
// fallocating and mapping again; then fallocate's errors.
func linkerOutput() {
	fd := file("/tmp/a.out", 0)
	say("fallocate 3 pages: %s", guest.Result(unix.Fallocate(fd, 0, 0, 3*page)))
	m := mmap(fd, 0, 3*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	copy(m[3*page-3:], "end")
	unix.Munmap(m)
	unix.Fallocate(fd, 0, 0, 5*page)
	unix.Ftruncate(fd, 5*page)
	m = mmap(fd, 0, 5*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	copy(m[5*page-4:], "more")
	unix.Munmap(m)
	var st unix.Stat_t
	unix.Fstat(fd, &st)
	say("the output: size %d, %q %q", st.Size, pread(fd, 3, 3*page-3), pread(fd, 4, 5*page-4))
	say("fallocate KEEP_SIZE past the end: %s", guest.Result(unix.Fallocate(fd, unix.FALLOC_FL_KEEP_SIZE, 0, 9*page)))
	unix.Fstat(fd, &st)
	say("size after KEEP_SIZE: %d", st.Size)
	say("fallocate length 0: %s", guest.Result(unix.Fallocate(fd, 0, 0, 0)))
	say("fallocate PUNCH_HOLE without KEEP_SIZE: %s", guest.Result(unix.Fallocate(fd, unix.FALLOC_FL_PUNCH_HOLE, 0, page)))
	ro, _ := unix.Open("/tmp/a.out", unix.O_RDONLY, 0)
	say("fallocate of O_RDONLY: %s", guest.Result(unix.Fallocate(ro, 0, 0, page)))
	var p [2]int
	unix.Pipe(p[:])
	say("fallocate of a pipe: %s", guest.Result(unix.Fallocate(p[1], 0, 0, page)))
	d, _ := unix.Open("/tmp", unix.O_RDONLY|unix.O_DIRECTORY, 0)
	say("fallocate of a directory: %s", guest.Result(unix.Fallocate(d, 0, 0, page)))
	for _, c := range []int{fd, ro, p[0], p[1], d} {
		unix.Close(c)
	}
	unix.Unlink("/tmp/a.out")
}

// remapped grows a MAP_SHARED file mapping with mremap (moved or not,
// the file's pages come along), shrinks it, and tries mremap's errors.
func remapped() {
	fd := file("/tmp/r", 3*page)
	unix.Pwrite(fd, []byte("third"), 2*page)
	m := mmap(fd, 0, page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	copy(m, "remap")
	g, err := unix.Mremap(m, 3*page, unix.MREMAP_MAYMOVE)
	say("mremap to 3 pages: %s; %q %q", guest.Result(err), g[:5], g[2*page:2*page+5])
	if err != nil {
		return
	}
	copy(g[page:], "second")
	say("a write to the grown part, read(2): %q", pread(fd, 6, page))
	s, err := unix.Mremap(g, page, 0)
	say("mremap to 1 page: %s, %q", guest.Result(err), s[:5])
	_, err = unix.Mremap(s, page, 0xff)
	say("mremap with unknown flags: %s", guest.Result(err))
	addr := uintptr(unsafe.Pointer(&s[0]))
	unix.Munmap(s)
	_, _, e := unix.Syscall6(unix.SYS_MREMAP, addr, page, 2*page, unix.MREMAP_MAYMOVE, 0, 0)
	say("mremap of an unmapped range: %s", guest.Result(errOf(e)))
	unix.Close(fd)
	unix.Unlink("/tmp/r")
}

// initramfs maps the program's own file, which came in the initramfs.
func initramfs() {
	fd, err := unix.Open("/init", unix.O_RDONLY, 0)
	if err != nil {
		say("open /init: %s", guest.Result(err))
		return
	}
	m := mmap(fd, 0, 2*page, unix.PROT_READ, unix.MAP_PRIVATE)
	whole, _ := os.ReadFile("/init")
	say("/init mapped: %q, as read(2): %v", m[:4], bytes.Equal(m, whole[:2*page]))
	w := mmap(fd, 0, page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	w[0] = 'X'
	say("a private writable mapping of a read-only descriptor: %q, the file %q", w[:4], pread(fd, 4, 0))
	unix.Munmap(m)
	unix.Munmap(w)
	unix.Close(fd)
}

func mapErr(fd int, off uintptr, prot, flags int) string {
	_, _, e := unix.Syscall6(unix.SYS_MMAP, 0, page, uintptr(prot), uintptr(flags), uintptr(fd), off)
	return guest.Result(errOf(e))
}

func errs() {
	rw := file("/tmp/e", page)
	ro, _ := unix.Open("/tmp/e", unix.O_RDONLY, 0)
	wo, _ := unix.Open("/tmp/e", unix.O_WRONLY, 0)
	const rdwr = unix.PROT_READ | unix.PROT_WRITE
	say("PROT_WRITE MAP_SHARED of O_RDONLY: %s", mapErr(ro, 0, rdwr, unix.MAP_SHARED))
	say("PROT_READ MAP_SHARED of O_RDONLY: %s", mapErr(ro, 0, unix.PROT_READ, unix.MAP_SHARED))
	say("PROT_WRITE MAP_PRIVATE of O_RDONLY: %s", mapErr(ro, 0, rdwr, unix.MAP_PRIVATE))
	say("PROT_READ MAP_SHARED of O_WRONLY: %s", mapErr(wo, 0, unix.PROT_READ, unix.MAP_SHARED))
	say("unaligned offset: %s", mapErr(rw, 100, unix.PROT_READ, unix.MAP_SHARED))
	say("bad descriptor: %s", mapErr(999, 0, unix.PROT_READ, unix.MAP_SHARED))
	say("offset 1<<62 (past the end): %s", mapErr(rw, 1<<62, unix.PROT_READ, unix.MAP_SHARED))
	say("offset 1<<63: %s", mapErr(rw, 1<<63, unix.PROT_READ, unix.MAP_SHARED))
	say("neither MAP_SHARED nor MAP_PRIVATE: %s", mapErr(rw, 0, unix.PROT_READ, 0))
	var p [2]int
	unix.Pipe(p[:])
	say("a pipe: %s", mapErr(p[0], 0, unix.PROT_READ, unix.MAP_SHARED))
	s, _ := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	say("a socket: %s", mapErr(s, 0, unix.PROT_READ, unix.MAP_SHARED))
	d, _ := unix.Open("/tmp", unix.O_RDONLY|unix.O_DIRECTORY, 0)
	say("a directory: %s", mapErr(d, 0, unix.PROT_READ, unix.MAP_SHARED))
	null, _ := unix.Open("/dev/null", unix.O_RDWR, 0)
	say("/dev/null: %s", mapErr(null, 0, unix.PROT_READ, unix.MAP_SHARED))

	m := mmap(ro, 0, page, unix.PROT_READ, unix.MAP_SHARED)
	say("mprotect(PROT_WRITE) of a MAP_SHARED O_RDONLY mapping: %s", guest.Result(unix.Mprotect(m, rdwr)))
	q := mmap(ro, 0, page, unix.PROT_READ, unix.MAP_PRIVATE)
	say("mprotect(PROT_WRITE) of a MAP_PRIVATE O_RDONLY mapping: %s", guest.Result(unix.Mprotect(q, rdwr)))
	for _, fd := range []int{rw, ro, wo, p[0], p[1], s, d, null} {
		unix.Close(fd)
	}
	unix.Munmap(m)
	unix.Munmap(q)
}

// devZero: MAP_SHARED of /dev/zero and MAP_SHARED|MAP_ANONYMOUS are
// shared memory a fork's child writes to and its parent sees; a
// MAP_PRIVATE mapping is not.
func devZero() {
	fd, _ := unix.Open("/dev/zero", unix.O_RDWR, 0)
	m := mmap(fd, 0, 2*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	z := m[page]
	copy(m, "zero")
	say("/dev/zero MAP_SHARED: %d, then %q", z, m[:4])
	p := mmap(fd, 0, page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	p[0] = 1
	say("/dev/zero MAP_PRIVATE: %d %d", p[0], p[1])
	unix.Close(fd)
	a := mmap(-1, 0, 3*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
	a[2*page] = 'p'
	pid, _, _ := syscall.RawSyscall6(syscall.SYS_CLONE, uintptr(syscall.SIGCHLD), 0, 0, 0, 0, 0)
	if pid == 0 {
		childWrites(m, a[2*page:])
	}
	var ws syscall.WaitStatus
	syscall.Wait4(int(pid), &ws, 0, nil)
	say("fork: the child's writes to /dev/zero MAP_SHARED %q and MAP_SHARED|MAP_ANONYMOUS %q", m[:6], a[2*page+10:2*page+11])
	for _, l := range strings.Split(guest.ReadFile("/proc/self/maps"), "\n") {
		if f := strings.Fields(l); len(f) >= 6 && strings.HasPrefix(f[5], "/dev/zero") && len(f) == 7 {
			say("maps: %s %s %s %s", f[1], f[2], f[3], strings.Join(f[5:], " "))
		}
	}
}
