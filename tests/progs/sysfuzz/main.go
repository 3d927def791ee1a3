//go:build linux && arm64

// Sysfuzz makes system calls with hostile arguments from many threads at
// once, then checks that the program (goroutines, timers, files, pipes)
// still works: the kernel must answer garbage like Linux, never crash or
// hang.
//
//	sysfuzz [CALLS [THREADS [SEED [KINDS]]]]   (default 300000 16 1, every kind;
//	                                          KINDS is a bit mask of fuzzOne's cases)
//
// Arguments come from pools: kernel, non-canonical, unaligned and
// unmapped addresses, a scratch buffer between guard pages, huge and
// negative lengths, bad descriptors, random flags. Left out are only
// calls that harm the calling program on Linux too: ending threads or the
// process, real signals to itself, changing signal handlers or the
// alternate stack, unmapping or re-protecting memory the program uses,
// populating or locking huge mappings, closing descriptors
// it did not open for the fuzz, clearing O_NONBLOCK on the fuzz's own
// descriptors (with fcntl or FIONBIO: a read would then wait forever, as
// on Linux), waits without a timeout (every futex wait gets one), and
// an exec of anything real.
//
// The mix makes processes too (procs.go): fork and vfork, whose children
// fuzz for a few calls of their own with raw system calls only
// (child_arm64.s) and may start a thread, a grandchild or this program
// again, then exit; waits with every option for any child, a child, a
// group or nobody; signals to the children and their groups (stops and
// continues among them); process groups and sessions; pidfds; prctl;
// execs that must fail; and the calls that set the clocks (clocks.go:
// the wall clock may end up anywhere, and the fuzz reads only
// CLOCK_MONOTONIC). At most 16 children are live at once. At the end
// every child is killed and reaped, and the kernel must hold no process
// but this one and no more memory than before (sysinfo, /proc). As PID 1
// on Linux it powers off at the end.
package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

const page = 4096

// The arena: a guard page, two scratch pages, a guard page, and a page
// that only mprotect touches.
var (
	arena     []byte
	scratch   uintptr // 2 pages, readable and writable
	guardLo   uintptr
	guardHi   uintptr
	protPage  uintptr // mprotect's target
	scratchFD [12]int
	calls     atomic.Int64
)

// hangSeconds: this long without a call finishing is a hang (a call
// returns in milliseconds, and the longest wait the fuzz asks for is 1 s).
const hangSeconds = 20

// fionbio is FIONBIO (asm-generic/ioctls.h).
const fionbio = 0x5421

// futexPrivate is FUTEX_PRIVATE_FLAG (linux/futex.h).
const futexPrivate = 128

// atCWD is AT_FDCWD (-100) as a raw argument.
var atCWD = ^uintptr(99)

func arg(i int, def int) int {
	if len(os.Args) > i {
		if n, err := strconv.Atoi(os.Args[i]); err == nil {
			return n
		}
	}
	return def
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "exec-child" {
		os.Exit(0) // a fuzz child's exec that worked
	}
	checkPlanLayout()
	total, threads, seed := arg(1, 300000), arg(2, 16), arg(3, 1)
	if len(os.Args) > 4 {
		if k, err := strconv.ParseUint(os.Args[4], 0, 64); err == nil && k != 0 {
			kinds = k
		}
	}
	memBefore := measureMemory()
	before = listNames()
	setup()
	fmt.Printf("sysfuzz: %d calls from %d threads, seed %d\n", total, threads, seed)
	// Every time here is CLOCK_MONOTONIC's (guest.Mono): the calls set the
	// wall clock anywhere, and time.Since follows it past 2157.
	start := guest.Mono()
	per := total / threads
	// Every second: if no call finished in the last one, name the
	// threads still in one (and which kind of call), so a hang says where.
	// After hangSeconds of that, print every goroutine's stack and stop:
	// a thread in its system call still is "[syscall]", one the kernel
	// returned but never ran again is "[runnable]", and that tells a
	// kernel wait that never ends from a lost wake-up.
	done := make([]atomic.Int64, threads)
	inCall := make([]atomic.Int64, threads)
	go func() {
		last, stuck := int64(-1), 0
		lastPhase, phaseSince := "", guest.Mono()
		lastLook := guest.Mono()
		for range time.Tick(time.Second) {
			// A look comes a second after the last unless this
			// goroutine could not run meanwhile: then the ticker's next
			// tick follows at once, and a look so soon says nothing of
			// the calls. (It comes 2 to 4 s late now and then under the
			// full mix, while the kernel's trace shows every core busy
			// with calls, none idle or stuck for more than 3 ms: the
			// runtime, its every P held by the 16 locked fuzz threads,
			// seems to run the ticker late.)
			since := guest.Mono() - lastLook
			lastLook += since
			if since > hangSeconds/2*time.Second {
				fmt.Printf("sysfuzz: held up: this look came %v after the last\n", since.Round(time.Millisecond))
			}
			// The phases after the calls (reaping, measuring) must end
			// too: a child that cannot be reaped hangs here.
			if p, _ := phase.Load().(string); p != lastPhase {
				lastPhase, phaseSince = p, guest.Mono()
			} else if p != "" && guest.Mono()-phaseSince > 3*hangSeconds*time.Second {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				fmt.Printf("sysfuzz: %s for %d s; every goroutine:\n%s\n", p, 3*hangSeconds, buf)
				os.Exit(3)
			}
			c := calls.Load()
			if c != last || c >= int64(per*threads) {
				last, stuck = c, 0
				continue
			}
			if since < time.Second/2 {
				continue
			}
			for i := range done {
				if done[i].Load() < int64(per) {
					fmt.Printf("sysfuzz: no progress: thread %d after %d calls is in kind %d\n", i, done[i].Load(), inCall[i].Load())
				}
			}
			if stuck++; stuck == hangSeconds {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				fmt.Printf("sysfuzz: no call finished for %d s; every goroutine:\n%s\n", hangSeconds, buf)
				os.Exit(3)
			}
		}
	}()
	var wg sync.WaitGroup
	for i := 0; i < threads; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			runtime.LockOSThread() // an OS thread of its own, as the issue asks
			r := rand.New(rand.NewPCG(uint64(seed), uint64(i)))
			ts := new(unix.Timespec)
			ps := new(procState)
			for n := 0; n < per; n++ {
				k := r.IntN(numKinds)
				for kinds&(1<<k) == 0 || rare(k) && r.IntN(4) != 0 {
					k = r.IntN(numKinds)
				}
				inCall[i].Store(int64(k))
				fuzzOne(r, ts, ps, k)
				done[i].Add(1)
				if c := calls.Add(1); c%50000 == 0 {
					fmt.Printf("sysfuzz: %d calls after %v\n", c, (guest.Mono() - start).Round(time.Millisecond))
				}
			}
		}(i)
	}
	wg.Wait()
	fmt.Printf("sysfuzz: %d calls answered in %v\n", calls.Load(), (guest.Mono() - start).Round(time.Millisecond))
	phase.Store("reaping")
	reapAll()
	phase.Store("measuring memory")
	cleanup()
	memAfter := measureMemory()
	fmt.Printf("memory: the kernel holds %d pages, %d before the calls (in use %d and %d, this program %d and %d, files %d and %d)\n",
		memAfter.kernel(), memBefore.kernel(), memAfter.used, memBefore.used, memAfter.rss, memBefore.rss, memAfter.files, memBefore.files)
	if grown := memAfter.kernel() + memAfter.files - memBefore.kernel() - memBefore.files; onGometal() && grown > memorySlack {
		fmt.Printf("FAIL: the kernel and the files hold %d pages more than before the calls\n", grown)
		os.Exit(1)
	}
	phase.Store("afterwards")
	afterwards()
	fmt.Println("sysfuzz ok")
	if os.Getpid() == 1 {
		unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF) // init may not exit on Linux
	}
}

func setup() {
	var err error
	arena, err = unix.Mmap(-1, 0, 5*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		fail("mmap arena", err)
	}
	base := uintptr(unsafe.Pointer(&arena[0]))
	guardLo, scratch, guardHi, protPage = base, base+page, base+3*page, base+4*page
	unix.Mprotect(arena[:page], unix.PROT_NONE)
	unix.Mprotect(arena[3*page:4*page], unix.PROT_NONE)
	// The fuzz's own descriptors, all non-blocking.
	unix.Mkdir("/tmp", 0o1777) // a bare Linux initramfs has none
	unix.Mkdir("/tmp/fuzz", 0o755)
	f, _ := unix.Open("/tmp/fuzz/file", unix.O_RDWR|unix.O_CREAT|unix.O_NONBLOCK, 0o644)
	var p [2]int
	unix.Pipe2(p[:], unix.O_NONBLOCK)
	e, _ := unix.Eventfd(0, unix.EFD_NONBLOCK)
	ep, _ := unix.EpollCreate1(0)
	tf, _ := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK)
	s, _ := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
	unix.Bind(s, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}})
	unix.Listen(s, 4)
	n, _ := unix.Open("/dev/null", unix.O_RDWR|unix.O_NONBLOCK, 0)
	d, _ := unix.Open("/tmp/fuzz", unix.O_RDONLY|unix.O_DIRECTORY, 0)
	u, _ := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK, 0)
	unix.Bind(u, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}})
	nl, _ := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_NONBLOCK, unix.NETLINK_ROUTE)
	sp, _ := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_NONBLOCK, 0)
	scratchFD = [12]int{f, p[0], p[1], e, ep, tf, s, n, d, sp[0], u, nl}
	scratchSP1, devNull = sp[1], n
	setupExec()
}

// scratchSP1 is the socket pair's other end, kept open (and closed by
// cleanup); devNull is the scratch descriptor of /dev/null.
var scratchSP1, devNull int

// phase names what main does after the calls, for the watchdog.
var phase atomic.Value

// memory is what sysinfo and /proc say of the guest's memory, in pages:
// used (not free), this program's resident pages (VmRSS) and the files'
// (Shmem: tmpfs).
type memory struct{ used, rss, files int64 }

// kernel is what is used by neither this program nor the files: the
// kernel's own and other processes' (none, once the children are
// reaped). A leak of a fork, an exit or a wait shows here; this
// program's heap growing over the run does not (it is in rss). The
// files' pages must be back too, every name the calls made being gone
// (cleanup): a file's pages kept after its last name and user shows
// there.
func (m memory) kernel() int64 { return m.used - m.rss - m.files }

// memorySlack is how far the kernel's and the files' share may move over
// a run without a leak: page tables of this program's address space
// (which stay, as Linux keeps them until unmapped) and the kernel's own
// growth. Measured over 300,000 calls and ~2,800 children: 11 to 37
// pages; a leak of a page per child would be thousands.
const memorySlack = 256

// measureMemory measures once this program's heap is collected and
// given back and every core has let go of address spaces no process
// uses (a core does when it runs another: ARCHITECTURE.md).
func measureMemory() memory {
	var p childPlan
	p.Flags, p.All = sigCHLD, ^uint64(0)
	if pid := int32(cloneRun(&p)); pid > 0 {
		unix.Wait4(int(pid), nil, 0, nil)
	}
	runtime.GC()
	debug.FreeOSMemory()
	guest.EveryCore()
	var si unix.Sysinfo_t
	unix.Sysinfo(&si)
	return memory{
		used:  int64((si.Totalram - si.Freeram) * uint64(si.Unit) / page),
		rss:   kbField("/proc/self/status", "VmRSS:") / 4,
		files: kbField("/proc/meminfo", "Shmem:") / 4,
	}
}

// kbField reads a "Name: N kB" line of a /proc file.
func kbField(file, name string) int64 {
	b, _ := os.ReadFile(file)
	i := bytes.Index(b, []byte(name))
	if i < 0 {
		return 0
	}
	var n int64
	fmt.Sscan(string(b[i+len(name):]), &n)
	return n
}

// before lists every name in the file system when the fuzz began
// (/proc aside) with its inode; cleanup removes the rest, and names
// that lead elsewhere now (a file renamed over /dev/null).
var before map[string]uint64

func listNames() map[string]uint64 {
	names := map[string]uint64{}
	filepath.WalkDir("/", func(p string, d fs.DirEntry, err error) error {
		if p == "/proc" {
			return filepath.SkipDir
		}
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil {
			names[p] = st.Ino
		}
		return nil
	})
	return names
}

// cleanup gives back what the fuzz's objects hold, so that the free
// memory can be compared with before: its descriptors close, and every
// name made since it began goes (the files the calls wrote).
func cleanup() {
	// First take what is queued on the socket pair, with the
	// descriptors the calls sent along: one of its own ends in flight
	// on it would keep both alive after the close (gometal has no
	// unix_gc: kernel/vfs/pipe_rights.go), and what they hold with them.
	for _, fd := range []int{scratchFD[9], scratchSP1} {
		buf, oob := make([]byte, 1<<16), make([]byte, 4096)
		for {
			_, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_DONTWAIT|unix.MSG_CMSG_CLOEXEC)
			if err != nil {
				break
			}
			msgs, _ := unix.ParseSocketControlMessage(oob[:oobn])
			for _, m := range msgs {
				fds, _ := unix.ParseUnixRights(&m)
				for _, f := range fds {
					unix.Close(f)
				}
			}
		}
	}
	for _, fd := range scratchFD {
		unix.Close(fd)
	}
	unix.Close(scratchSP1)
	unix.Close(execDirFD)
	for p, ino := range listNames() {
		if was, ok := before[p]; !ok || was != ino {
			os.RemoveAll(p)
		}
	}
}

// hostile addresses: kernel, non-canonical, null-ish, unaligned scratch,
// the guard pages, the end of the scratch area, and plain random.
func addr(r *rand.Rand) uintptr {
	switch r.IntN(13) {
	case 0:
		return 0
	case 1:
		return 0xffff_0000_0000_0000 + uintptr(r.Uint64N(1<<30))
	case 2:
		return 0x0001_0000_0000_0000 + uintptr(r.Uint64N(1<<40))
	case 3:
		return guardLo + uintptr(r.IntN(page))
	case 4:
		return guardHi + uintptr(r.IntN(page))
	case 5:
		return scratch + 2*page - uintptr(r.IntN(64)) // runs into the guard
	case 6:
		return uintptr(r.Uint64())
	case 7:
		return uintptr(r.IntN(1 << 16))
	case 8:
		return 1<<62 + uintptr(r.IntN(page)) // where gometal lends kernel buffers to splice
	default:
		return scratch + uintptr(r.IntN(2*page-64)) // unaligned, in bounds
	}
}

func length(r *rand.Rand) uintptr {
	switch r.IntN(6) {
	case 0:
		return 0
	case 1:
		return ^uintptr(0) - uintptr(r.IntN(16))
	case 2:
		return 1 << (20 + r.IntN(44))
	case 3:
		return uintptr(r.IntN(1 << 31))
	default:
		return uintptr(r.IntN(2 * page))
	}
}

func fd(r *rand.Rand) uintptr {
	switch r.IntN(5) {
	case 0:
		return uintptr(r.IntN(1 << 20))
	case 1:
		return ^uintptr(0) - uintptr(r.IntN(4))
	case 2:
		return uintptr(1000 + r.IntN(100))
	default:
		return uintptr(scratchFD[r.IntN(len(scratchFD))])
	}
}

func flags(r *rand.Rand) uintptr {
	if r.IntN(2) == 0 {
		return uintptr(r.Uint32())
	}
	return uintptr(r.IntN(64))
}

// timespec returns a short time (at most 1 ms) in t's own memory, which
// no fuzzed call writes into (a timespec in the scratch area could be
// overwritten by another thread's read before the kernel looks at it, and
// the wait would last for years, on Linux too).
func timespec(r *rand.Rand, ts *unix.Timespec) uintptr {
	ts.Sec, ts.Nsec = 0, int64(r.IntN(1_000_000))
	return uintptr(unsafe.Pointer(ts))
}

// futexArgs are a futex call's: every wait has a timeout of at most 1 ms.
func futexArgs(r *rand.Rand, ts *unix.Timespec) [6]uintptr {
	op := uintptr(r.IntN(14)) | uintptr(r.IntN(2))*futexPrivate
	return [6]uintptr{addr(r), op, uintptr(r.Uint32()), timespec(r, ts), addr(r), uintptr(r.Uint32())}
}

// nanosleepReq is nanosleep's request: a valid one is short; a hostile
// one is never in bounds (what other calls wrote into the scratch area
// may read as a sleep of years, on Linux too).
func nanosleepReq(r *rand.Rand, ts *unix.Timespec) uintptr {
	req := timespec(r, ts)
	if r.IntN(2) == 0 {
		for req = addr(r); req >= scratch && req < scratch+2*page; req = addr(r) {
		}
	}
	return req
}

// path returns a NUL-terminated path in the scratch area, or a hostile
// pointer.
func path(r *rand.Rand) uintptr {
	names := []string{"/", "/tmp/fuzz/a", "/tmp/fuzz/file", "/tmp/fuzz/d/e", "/nonexistent", "/init",
		"/dev/null", "/dev/zero", "/tmp/../tmp/fuzz/b", "", "/tmp/fuzz/" + string(bytes.Repeat([]byte("n"), 300))}
	if r.IntN(4) == 0 {
		return addr(r)
	}
	at := scratch + page + uintptr(r.IntN(4))*256
	dst := unsafe.Slice((*byte)(unsafe.Pointer(at)), 2*page-(at-scratch))
	n := copy(dst, names[r.IntN(len(names))])
	if n < len(dst) {
		dst[n] = 0
	}
	return at
}

func raw(nr uintptr, a ...uintptr) {
	var x [6]uintptr
	copy(x[:], a)
	unix.Syscall6(nr, x[0], x[1], x[2], x[3], x[4], x[5])
}

// kinds is the set of kinds of call to make (bit k: case k), all by
// default; the fourth argument narrows it, to find which one misbehaves.
var kinds uint64 = 1<<numKinds - 1

// numKinds is how many kinds fuzzOne has.
const numKinds = 52

// rare kinds are made a quarter as often as the others: a fork copies
// the fuzz's page tables under the kernel lock (milliseconds under QEMU),
// and a vfork child makes ~80 calls.
func rare(k int) bool { return k == 42 || k == 43 }

func fuzzOne(r *rand.Rand, ts *unix.Timespec, ps *procState, kind int) {
	switch kind {
	case 42:
		forkKind(r, ts, ps, false)
	case 43:
		forkKind(r, ts, ps, true)
	case 44:
		wait4Kind(r, ps)
	case 45:
		waitidKind(r, ps)
	case 46:
		signalKind(r, ps)
	case 47:
		pidfdKind(r)
	case 48:
		groupKind(r)
	case 49:
		prctlKind(r)
	case 50:
		execKind(r, ps)
	case 51:
		clockKind(r, ps)
	case 0:
		raw(unix.SYS_READ, fd(r), addr(r), length(r))
	case 1:
		raw(unix.SYS_WRITE, fd(r), addr(r), length(r))
	case 2:
		raw(unix.SYS_PREAD64, fd(r), addr(r), length(r), uintptr(r.Uint64()))
	case 3:
		raw(unix.SYS_PWRITE64, fd(r), addr(r), length(r)&0xffff, uintptr(r.IntN(1<<20)))
	case 4:
		raw(unix.SYS_READV, fd(r), addr(r), length(r))
	case 5:
		raw(unix.SYS_WRITEV, fd(r), addr(r), length(r))
	case 6:
		raw(unix.SYS_LSEEK, fd(r), uintptr(r.Uint64()), uintptr(r.IntN(6)))
	case 7:
		raw(unix.SYS_FSTAT, fd(r), addr(r))
	case 8:
		cmd := []uintptr{unix.F_GETFD, unix.F_GETFL, unix.F_DUPFD_CLOEXEC, unix.F_GETLK, 1000 + uintptr(r.IntN(100))}[r.IntN(5)]
		f := fd(r)
		ret, _, _ := unix.Syscall(unix.SYS_FCNTL, f, cmd, uintptr(r.IntN(2000)))
		if cmd == unix.F_DUPFD_CLOEXEC && int(ret) > 2 && int64(ret) < 4096 {
			unix.Close(int(ret))
		}
	case 9:
		// Not FIONBIO, which could clear the fuzz descriptors' O_NONBLOCK.
		if req := flags(r); req != fionbio {
			raw(unix.SYS_IOCTL, fd(r), req, addr(r))
		}
	case 10:
		raw(unix.SYS_GETDENTS64, fd(r), addr(r), length(r))
	case 11:
		ret, _, err := unix.Syscall6(unix.SYS_OPENAT, atCWD, path(r), flags(r)&^unix.O_NONBLOCK|unix.O_NONBLOCK, uintptr(r.IntN(0o7777)), 0, 0)
		if err == 0 {
			unix.Close(int(ret))
		}
	case 12:
		raw(unix.SYS_NEWFSTATAT, atCWD, path(r), addr(r), flags(r))
	case 13:
		raw(unix.SYS_FACCESSAT, atCWD, path(r), flags(r))
	case 14:
		raw(unix.SYS_READLINKAT, atCWD, path(r), addr(r), length(r))
	case 15:
		raw(unix.SYS_MKDIRAT, atCWD, path(r), uintptr(r.IntN(0o7777)))
	case 16:
		raw(unix.SYS_UNLINKAT, atCWD, path(r), flags(r))
	case 17:
		raw(unix.SYS_RENAMEAT, atCWD, path(r), atCWD, path(r))
	case 18:
		raw(unix.SYS_SYMLINKAT, path(r), atCWD, path(r))
	case 19:
		raw(unix.SYS_FTRUNCATE, fd(r), length(r)&0xfffff)
	case 20:
		raw(unix.SYS_UTIMENSAT, atCWD, path(r), addr(r), flags(r))
	case 21:
		raw(unix.SYS_EPOLL_CTL, fd(r), uintptr(r.IntN(5)), fd(r), addr(r))
	case 22:
		raw(unix.SYS_EPOLL_PWAIT, fd(r), addr(r), uintptr(r.IntN(2000)-1000), uintptr(r.IntN(2)), 0, 8)
	case 23:
		ret, _, err := unix.Syscall(unix.SYS_EVENTFD2, uintptr(r.Uint32()), flags(r)|unix.EFD_NONBLOCK, 0)
		if err == 0 {
			unix.Close(int(ret))
		}
	case 24:
		raw(unix.SYS_TIMERFD_SETTIME, fd(r), flags(r)&1, addr(r), addr(r))
	case 25:
		raw(unix.SYS_TIMERFD_GETTIME, fd(r), addr(r))
	case 26:
		a := futexArgs(r, ts)
		raw(unix.SYS_FUTEX, a[:]...)
	case 27:
		raw(unix.SYS_NANOSLEEP, nanosleepReq(r, ts), addr(r))
	case 28:
		raw(unix.SYS_CLOCK_GETTIME, uintptr(r.IntN(16)-4), addr(r))
	case 29:
		raw(unix.SYS_CLOCK_NANOSLEEP, uintptr(r.IntN(16)-4), flags(r)&1, timespec(r, ts), addr(r))
	case 30:
		// mmap without MAP_FIXED (a fixed mapping over the program's
		// own memory harms it on Linux too); what it maps, it unmaps.
		// Nor MAP_FIXED_NOREPLACE: at a hostile address (0, the low 64
		// KiB) it succeeds, on Linux too, and until the unmap that
		// address is memory other threads' calls write into: a nanosleep
		// handed it then may read a clock_gettime's answer as a sleep of
		// decades. (CI once hung that way in kind 27.)
		n := length(r)
		// Nor MAP_POPULATE or MAP_LOCKED: filling gigabytes holds Linux's
		// mmap lock for as long, and every other thread waits on it.
		mf := flags(r) &^ (unix.MAP_FIXED | unix.MAP_FIXED_NOREPLACE | unix.MAP_POPULATE | unix.MAP_LOCKED)
		ret, _, err := unix.Syscall6(unix.SYS_MMAP, addr(r), n, flags(r)&7, mf, fd(r), uintptr(r.IntN(4))*page)
		if err == 0 {
			unix.Syscall(unix.SYS_MUNMAP, ret, n, 0)
		}
	case 31:
		// madvise and mprotect only on the fuzz's own page, or on
		// addresses the program does not use (kernel, non-canonical).
		a := protPage
		if r.IntN(2) == 0 {
			a = 0xffff_0000_0000_0000 + uintptr(r.Uint64N(1<<30))&^(page-1)
		}
		if r.IntN(2) == 0 {
			raw(unix.SYS_MADVISE, a, page, uintptr(r.IntN(30)))
		} else {
			raw(unix.SYS_MPROTECT, a, page, flags(r)&7)
		}
	case 32:
		// Signal masks and sets only from bad pointers or to read.
		raw(unix.SYS_RT_SIGPROCMASK, uintptr(r.IntN(4)), 0, addr(r), uintptr(r.IntN(16)))
	case 33:
		raw(unix.SYS_RT_SIGPENDING, addr(r), uintptr(r.IntN(16)))
	case 34:
		// Signal 0 checks a target without sending; bad numbers fail.
		sig := []uintptr{0, 65, 1000, ^uintptr(0)}[r.IntN(4)]
		raw(unix.SYS_TGKILL, uintptr(r.IntN(3)-1), uintptr(r.IntN(1<<20)), sig)
	case 35:
		raw(unix.SYS_GETRANDOM, addr(r), length(r)&0xffff, flags(r)&7)
	case 36:
		raw(unix.SYS_SCHED_GETAFFINITY, uintptr(r.IntN(3)), length(r), addr(r))
	case 37:
		switch r.IntN(4) {
		case 0:
			raw(unix.SYS_GETSOCKNAME, fd(r), addr(r), addr(r))
		case 1:
			raw(unix.SYS_CONNECT, fd(r), addr(r), length(r))
		case 2:
			raw(unix.SYS_SETSOCKOPT, fd(r), flags(r), flags(r), addr(r), length(r))
		case 3:
			raw(unix.SYS_RECVFROM, fd(r), addr(r), length(r), flags(r)|unix.MSG_DONTWAIT, addr(r), addr(r))
		}
	case 38:
		ret, _, err := unix.Syscall(unix.SYS_SOCKET, uintptr(r.IntN(50)), flags(r)|unix.SOCK_NONBLOCK, uintptr(r.IntN(300)))
		if err == 0 {
			unix.Close(int(ret))
		}
	case 40:
		// Messages: a struct msghdr of whatever the pointer finds, on the
		// fuzz's descriptors (a UDP and a netlink socket among them).
		switch r.IntN(3) {
		case 0:
			raw(unix.SYS_SENDMSG, fd(r), addr(r), flags(r)|unix.MSG_DONTWAIT)
		case 1:
			raw(unix.SYS_RECVMSG, fd(r), addr(r), flags(r)|unix.MSG_DONTWAIT)
		case 2:
			raw(unix.SYS_SENDTO, fd(r), addr(r), length(r), flags(r)|unix.MSG_DONTWAIT, addr(r), length(r))
		}
	case 41:
		// Moving bytes between descriptors inside the kernel; the pipe
		// side never blocks (SPLICE_F_NONBLOCK), the others are
		// non-blocking already.
		switch r.IntN(4) {
		case 0:
			raw(unix.SYS_SPLICE, fd(r), addr(r), fd(r), addr(r), length(r), flags(r)|unix.SPLICE_F_NONBLOCK)
		case 1:
			raw(unix.SYS_TEE, fd(r), fd(r), length(r), flags(r)|unix.SPLICE_F_NONBLOCK)
		case 2:
			raw(unix.SYS_SENDFILE, fd(r), fd(r), addr(r), length(r))
		case 3:
			raw(unix.SYS_COPY_FILE_RANGE, fd(r), addr(r), fd(r), addr(r), length(r)&0xfffff, flags(r)&1)
		}
	case 39:
		// Numbers the kernel does not know (or knows and refuses).
		nr := uintptr(300 + r.IntN(700))
		if r.IntN(2) == 0 {
			nr = []uintptr{unix.SYS_GETPID, unix.SYS_GETTID, unix.SYS_SCHED_YIELD, unix.SYS_UNAME, unix.SYS_GETCWD,
				unix.SYS_SYSINFO, unix.SYS_PRLIMIT64, unix.SYS_GETRUSAGE, unix.SYS_TIMES, unix.SYS_PIPE2}[r.IntN(10)]
		}
		switch nr {
		case unix.SYS_PRLIMIT64:
			raw(nr, 0, uintptr(r.IntN(20)), 0, addr(r)) // read limits only
		case unix.SYS_PIPE2:
			var p [2]int32
			if _, _, err := unix.Syscall(nr, uintptr(unsafe.Pointer(&p)), flags(r)|unix.O_NONBLOCK, 0); err == 0 {
				unix.Close(int(p[0]))
				unix.Close(int(p[1]))
			}
		default:
			raw(nr, addr(r), length(r), flags(r), addr(r), fd(r), flags(r))
		}
	}
}

// afterwards checks that the program still works: 1000 goroutines
// sleeping 1 ms, a 1 MiB tmpfs file, a 1 MiB pipe transfer.
func afterwards() {
	t0 := guest.Mono()
	var wg sync.WaitGroup
	for i := 0; i < 1000; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); time.Sleep(time.Millisecond) }()
	}
	wg.Wait()
	fmt.Printf("afterwards: 1000 sleepers done in %v\n", (guest.Mono() - t0).Round(time.Millisecond))
	data := bytes.Repeat([]byte("gometal!"), 1<<17)
	// A fresh directory at the root, not /tmp: the fuzz may rename or
	// replace /tmp itself, as it may on Linux. Sixteen threads write
	// their paths into the same scratch slots, so a call can read a mix
	// of two (such as "/tmp/" from "/tmp/../tmp/fuzz/b" cut short by
	// "/init"'s NUL), and rename("/tmp/", "/nonexistent") is a legitimate
	// call.
	dir, err := os.MkdirTemp("/", "after-fuzz-")
	if err != nil {
		fail("mkdir", err)
	}
	after := dir + "/after"
	if err := os.WriteFile(after, data, 0o644); err != nil {
		fail("tmpfs write", err)
	}
	back, err := os.ReadFile(after)
	if err != nil || !bytes.Equal(back, data) {
		fail("tmpfs read back", err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		fail("pipe", err)
	}
	go func() { pw.Write(data); pw.Close() }()
	var got bytes.Buffer
	if _, err := got.ReadFrom(pr); err != nil || !bytes.Equal(got.Bytes(), data) {
		fail("pipe transfer", err)
	}
	fmt.Println("afterwards: 1 MiB through tmpfs and a pipe intact")
}

func fail(what string, err error) {
	fmt.Println("FAIL:", what, err)
	os.Exit(1)
}
