//go:build linux && arm64

// Command bench is the benchmark program `gometal bench` boots, unchanged,
// on gometal and on a Debian arm64 Linux kernel as /init. Each figure is
// printed as "BENCH <name> <value> <unit>". As PID 1 it powers the
// machine off at the end, which on Linux is the only way for init to end
// the run (gometal takes it as exit status 0).
//
//	bench [-klog] [-quick] [FIGURE...]   the named figures (default: all)
//	bench idle SECONDS                   prints "idle: sleeping", sleeps, "idle: awake"
//	bench exit0                          exits 0 at once, printing nothing (exec_go_us)
//	bench pong                           echoes bytes from fd 3 to fd 4 (proc_pingpong_us)
//
// -quick runs every figure with tiny counts (the smoke test in make test).
// -klog (on Linux) first prints the kernel's own boot-log lines that say
// whether it isolates its page tables (KPTI) and randomizes its base
// (KASLR), as "KLOG <line>": the harness quotes them.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

// The first line, whose arrival the host times from QEMU's start.
const startLine = "bench: start"

// scale holds the iteration counts: full, or tiny with -quick.
type scale struct {
	spawns, pingpongs, getpids, sleeps, preempts, cpuWork int
	gcMiB, pipeMiB                                        int
	sleepersFor                                           time.Duration
	faultMiB, fileMiB                                     int
	wakeRounds, scaleOps, scaleRounds, scalePipeMiB       int
	forks, bigForks, execs, goExecs, procPingpongs        int
	scaleFaultMiB, scaleMmaps                             int
	diskMiB, fsyncs, diskFiles                            int
}

var (
	full  = scale{100_000, 50_000, 100_000, 200, 50, 2000, 200, 1024, 2 * time.Second, 256, 256, 5_000, 200_000, 20_000, 64, 200, 50, 200, 50, 2000, 32, 5000, 64, 100, 1000}
	quick = scale{1000, 1000, 1000, 10, 3, 50, 8, 1, 200 * time.Millisecond, 4, 4, 200, 1000, 200, 1, 5, 5, 5, 5, 50, 1, 50, 4, 5, 20}
)

type figure struct {
	name string
	run  func(s scale)
}

var figures = []figure{
	{"spawn_join_ns", spawnJoin},
	{"pingpong_p1_ns", func(s scale) { pingpong(s, 1) }},
	{"pingpong_p4_ns", func(s scale) { pingpong(s, 4) }},
	{"getpid_ns", getpid},
	{"sleep1ms_overshoot_us", sleepOvershoot},
	{"preempt_latency_us", preemptLatency},
	{"cpu_speedup_x", cpuSpeedup},
	{"gc_pause_us", gcPauses}, // prints gc_pause_p50_us and gc_pause_max_us
	{"timer_wakeups_per_s", timerWakeups},
	{"pipe_mib_per_s", pipeThroughput},
	{"page_fault_ns", pageFaults},
	{"tmpfs_mib_per_s", tmpfsThroughput},
	{"file_read_mib_per_s", fileRead},
	{"file_mmap_mib_per_s", fileMmap},
	{"futex_wake_ns", futexWakeLatency},
	{"epoll_wake_ns", epollWakeLatency},
	{"scale_getpid", scaleGetpid}, // prints scale2_getpid_x and scale4_getpid_x
	{"scale_futex", scaleFutex},
	{"scale_pipe", scalePipe},
	{"scale_fault", scaleFaults},
	{"scale_mmap", scaleMmaps},
	{"fork_exit_wait_us", forkExitWait},
	{"vfork_exec_wait_us", vforkExecWait},
	{"exec_command_us", execCommand},
	{"exec_go_us", execGo},
	{"fork_64mib_us", fork64MiB},
	{"proc_pingpong_us", procPingpong},
	{"ext4_write_mib_per_s", diskWrite},
	{"ext4_read_mib_per_s", diskRead},
	{"ext4_parallel_read_mib_per_s", diskParallelRead},
	{"ext4_fsync_us", diskFsync},
	{"ext4_create_unlink", diskCreateUnlink},
	{"p9_write_mib_per_s", shareWrite},
	{"p9_read_mib_per_s", shareRead},
	{"gobuild_s", goBuild}, // prints gobuild_cold_s and gobuild_warm_s
}

// argsMark starts the program's own arguments when the harness boots it
// on Linux: the kernel also hands init the command-line words it does
// not know itself (such as nokaslr, which arm64 handles before its
// parameter parsing), in front of those after "--".
const argsMark = "--args"

func main() {
	childMode(os.Args[1:]) // run by a process figure: nothing else first
	fmt.Println(startLine)
	args := os.Args[1:]
	for i, a := range args {
		if a == argsMark {
			args = args[i+1:]
			break
		}
	}
	if len(args) > 0 && args[0] == "idle" {
		fmt.Println("idle: sleeping")
		secs := 5
		if len(args) > 1 {
			n, err := strconv.Atoi(args[1])
			if err != nil {
				guest.Fail("idle: " + err.Error())
			}
			secs = n
		}
		time.Sleep(time.Duration(secs) * time.Second)
		fmt.Println("idle: awake")
		powerOff()
		return
	}
	if len(args) > 0 && args[0] == "-klog" {
		printKernelLog()
		args = args[1:]
	}
	s := full
	if len(args) > 0 && args[0] == "-quick" {
		s, args = quick, args[1:]
	}
	for _, f := range figures {
		if want(args, f.name) {
			f.run(s)
		}
	}
	fmt.Println("bench: done")
	powerOff()
}

// klogSize is enough for the kernel log of a boot this short.
const klogSize = 1 << 20

// printKernelLog prints the boot-log lines about KPTI and KASLR, read
// with syslog(2) SYSLOG_ACTION_READ_ALL (init may; no /dev/kmsg needed).
func printKernelLog() {
	buf := make([]byte, klogSize)
	n, err := unix.Klogctl(unix.SYSLOG_ACTION_READ_ALL, buf)
	if err != nil {
		fmt.Println("KLOG (unreadable:", err, ")")
		return
	}
	for _, line := range strings.Split(string(buf[:n]), "\n") {
		if strings.Contains(line, "page table isolation") || strings.Contains(line, "KASLR") {
			// Drop the "<6>[    0.000000] " prefix.
			if i := strings.Index(line, "] "); i >= 0 {
				line = line[i+2:]
			}
			fmt.Println("KLOG", line)
		}
	}
}

// want says whether figure name was asked for (all but the storage
// figures when none was named;
// gc_pause_p50_us and gc_pause_max_us both name the GC figure,
// ext4_create_per_s and ext4_unlink_per_s the create-unlink one,
// gobuild_cold_s and gobuild_warm_s the go build one, and
// scale4_getpid_x names scale_getpid).
func want(args []string, name string) bool {
	if len(args) == 0 {
		// The storage figures need the disk the harness attaches for
		// them alone: they run only when named.
		return !strings.HasPrefix(name, "ext4_") && !strings.HasPrefix(name, "p9_") && !strings.HasPrefix(name, "gobuild_")
	}
	for _, a := range args {
		if a == name || name == "gc_pause_us" && (a == "gc_pause_p50_us" || a == "gc_pause_max_us") ||
			name == "ext4_create_unlink" && (a == "ext4_create_per_s" || a == "ext4_unlink_per_s") ||
			name == "gobuild_s" && (a == "gobuild_cold_s" || a == "gobuild_warm_s") {
			return true
		}
		if kind, ok := strings.CutPrefix(name, "scale_"); ok && strings.HasPrefix(a, "scale") && strings.HasSuffix(a, "_"+kind+"_x") {
			return true
		}
	}
	return false
}

// powerOff ends the run as PID 1 (on Linux, /init must not exit: the
// kernel would panic).
func powerOff() {
	if os.Getpid() != 1 {
		return
	}
	unix.Sync()
	unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
}

func report(name string, value float64, unit string) {
	fmt.Printf("BENCH %s %.3f %s\n", name, value, unit)
}

func perOp(d time.Duration, n int) float64 { return float64(d.Nanoseconds()) / float64(n) }

// spawnJoin: start and join goroutines that do nothing.
func spawnJoin(s scale) {
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < s.spawns; i++ {
		wg.Add(1)
		go wg.Done()
	}
	wg.Wait()
	report("spawn_join_ns", perOp(time.Since(start), s.spawns), "ns")
}

// pingpong: round trips over two unbuffered channels with procs Ps.
func pingpong(s scale, procs int) {
	prev := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(prev)
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v
		}
	}()
	start := time.Now()
	for i := 0; i < s.pingpongs; i++ {
		ping <- i
		<-pong
	}
	d := time.Since(start)
	close(ping)
	report(fmt.Sprintf("pingpong_p%d_ns", procs), perOp(d, s.pingpongs), "ns")
}

func getpid(s scale) {
	start := time.Now()
	for i := 0; i < s.getpids; i++ {
		syscall.Getpid()
	}
	report("getpid_ns", perOp(time.Since(start), s.getpids), "ns")
}

func sleepOvershoot(s scale) {
	over := guest.Overshoots(s.sleeps, time.Millisecond, func() time.Duration { return guest.TimedSleep(time.Millisecond) })
	report("sleep1ms_overshoot_us", float64(over[len(over)/2].Microseconds()), "us")
}

func preemptLatency(s scale) {
	over := guest.Overshoots(s.preempts, 10*time.Millisecond, guest.SpinSleep)
	report("preempt_latency_us", float64(over[len(over)/2].Microseconds()), "us")
}

// cpuSpeedup: the same CPU-bound work on one goroutine, then split over
// NumCPU goroutines; the ratio of the times.
func cpuSpeedup(s scale) {
	timeIt := func(parts int) time.Duration {
		var wg sync.WaitGroup
		start := time.Now()
		for p := 0; p < parts; p++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				burn(s.cpuWork / parts)
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	t1 := timeIt(1)
	tn := timeIt(runtime.NumCPU())
	report("cpu_speedup_x", float64(t1)/float64(tn), "x")
}

var sink uint64

// burn does units of arithmetic that cannot be optimized away.
func burn(units int) {
	x := uint64(1)
	for i := 0; i < units*10_000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink += x
}

// gcPauses: a live heap of small objects (gcMiB MiB of 64-byte nodes),
// then as much again allocated as garbage, and two forced collections;
// the stop-the-world pause quantiles of all the cycles.
func gcPauses(s scale) {
	type node struct {
		next *node
		pad  [56]byte
	}
	n := s.gcMiB << 20 / 64
	live := make([]*node, n)
	for i := range live {
		live[i] = &node{}
		if i > 0 {
			live[i].next = live[i-1]
		}
	}
	var garbage *node
	for i := 0; i < n; i++ {
		garbage = &node{next: garbage}
		if i%1024 == 0 {
			garbage = nil
		}
	}
	runtime.GC()
	runtime.GC()
	runtime.KeepAlive(live)
	var st debug.GCStats
	st.PauseQuantiles = make([]time.Duration, 5)
	debug.ReadGCStats(&st)
	report("gc_pause_p50_us", float64(st.PauseQuantiles[2].Microseconds()), "us")
	report("gc_pause_max_us", float64(st.PauseQuantiles[4].Microseconds()), "us")
}

func timerWakeups(s scale) {
	counts, took := guest.Sleepers(1000, s.sleepersFor)
	report("timer_wakeups_per_s", float64(guest.Sum(counts))/took.Seconds(), "/s")
}

// pipeThroughput moves pipeMiB (1 GiB) through an os.Pipe in 64 KiB writes to a
// reader goroutine: both ends are non-blocking descriptors in the
// runtime's poller, so every full or empty pipe is an EAGAIN, an epoll
// wait and a wake-up.
func pipeThroughput(s scale) {
	r, w, err := os.Pipe()
	if err != nil {
		guest.Fail("pipe: " + err.Error())
	}
	const chunk = 64 << 10
	total := s.pipeMiB << 20
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, chunk)
		for n := 0; n < total; {
			m, err := r.Read(buf)
			if err != nil {
				done <- err
				return
			}
			n += m
		}
		done <- nil
	}()
	buf := make([]byte, chunk)
	start := time.Now()
	for sent := 0; sent < total; sent += chunk {
		if _, err := w.Write(buf); err != nil {
			guest.Fail("pipe write: " + err.Error())
		}
	}
	if err := <-done; err != nil {
		guest.Fail("pipe read: " + err.Error())
	}
	d := time.Since(start)
	r.Close()
	w.Close()
	report("pipe_mib_per_s", float64(s.pipeMiB)/d.Seconds(), "MiB/s")
}

// pageFaults maps fresh anonymous memory and touches one byte of each
// 4 KiB page: the cost of a first-touch page fault (allocate, zero, map).
func pageFaults(s scale) {
	size := s.faultMiB << 20
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		guest.Fail("mmap: " + err.Error())
	}
	const page = 4096
	start := time.Now()
	for off := 0; off < size; off += page {
		mem[off] = 1
	}
	d := time.Since(start)
	if err := syscall.Munmap(mem); err != nil {
		guest.Fail("munmap: " + err.Error())
	}
	report("page_fault_ns", perOp(d, size/page), "ns")
}

// tmpfsThroughput writes a file under /tmp in 1 MiB calls and reads it
// back: the bytes moved both ways per second (on Linux, /tmp is in the
// initramfs's rootfs, in memory too).
// benchFile is a file of mib MiB under /tmp, made once for the two
// figures that read it (file_read_mib_per_s, file_mmap_mib_per_s).
func benchFile(mib int) *os.File {
	name := "/tmp/bench-file.dat"
	if f, err := os.Open(name); err == nil {
		return f
	}
	if err := os.MkdirAll("/tmp", 0o1777); err != nil { // the Linux guest has no /tmp
		guest.Fail("mkdir /tmp: " + err.Error())
	}
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	f, err := os.Create(name)
	if err != nil {
		guest.Fail("create: " + err.Error())
	}
	for i := 0; i < mib; i++ {
		if _, err := f.Write(buf); err != nil {
			guest.Fail("write: " + err.Error())
		}
	}
	return f
}

// filePasses is how many times the file figures read their file.
const filePasses = 4

// fileRead reads a 64 MiB tmpfs file with pread(2) into a 1 MiB buffer,
// filePasses times.
func fileRead(s scale) {
	fileFigure(s, "file_read_mib_per_s", func(f *os.File, buf []byte, size int) {
		for off := 0; off < size; off += len(buf) {
			if _, err := f.ReadAt(buf, int64(off)); err != nil {
				guest.Fail("pread: " + err.Error())
			}
		}
	})
}

// fileMmap reads the same file through a fresh MAP_SHARED mapping each
// pass, copied into a 1 MiB buffer: the page faults and the copy.
func fileMmap(s scale) {
	fileFigure(s, "file_mmap_mib_per_s", func(f *os.File, buf []byte, size int) {
		m, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			guest.Fail("mmap: " + err.Error())
		}
		for off := 0; off < len(m); off += len(buf) {
			copy(buf, m[off:])
		}
		unix.Munmap(m)
	})
}

// fileFigure times filePasses passes of pass over the benchmark file.
func fileFigure(s scale, name string, pass func(f *os.File, buf []byte, size int)) {
	mib := max(s.fileMiB/4, 1)
	f := benchFile(mib)
	defer f.Close()
	buf := make([]byte, 1<<20)
	start := time.Now()
	for p := 0; p < filePasses; p++ {
		pass(f, buf, mib<<20)
	}
	report(name, float64(filePasses*mib)/time.Since(start).Seconds(), "MiB/s")
}

func tmpfsThroughput(s scale) {
	const chunk = 1 << 20
	buf := make([]byte, chunk)
	for i := range buf {
		buf[i] = byte(i)
	}
	// The Linux guest's initramfs has no /tmp; its rootfs is in memory.
	if err := os.MkdirAll("/tmp", 0o1777); err != nil {
		guest.Fail("mkdir /tmp: " + err.Error())
	}
	name := "/tmp/bench-tmpfs.dat"
	start := time.Now()
	f, err := os.Create(name)
	if err != nil {
		guest.Fail("create: " + err.Error())
	}
	for i := 0; i < s.fileMiB; i++ {
		if _, err := f.Write(buf); err != nil {
			guest.Fail("write: " + err.Error())
		}
	}
	if _, err := f.Seek(0, 0); err != nil {
		guest.Fail("seek: " + err.Error())
	}
	for i := 0; i < s.fileMiB; i++ {
		if _, err := io.ReadFull(f, buf); err != nil {
			guest.Fail("read: " + err.Error())
		}
	}
	d := time.Since(start)
	f.Close()
	os.Remove(name)
	report("tmpfs_mib_per_s", float64(2*s.fileMiB)/d.Seconds(), "MiB/s")
}
