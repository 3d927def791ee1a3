package main

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The benchmark table: figures parsed from the guest's BENCH lines (and two
// the host measures), collected per side over alternating runs, and
// summarized as medians with min–max and a gometal/Linux ratio.

// benchFigure describes one row of the table.
type benchFigure struct {
	Name   string
	Unit   string
	Higher bool   // a higher value is better (rates, speedups)
	About  string // what it measures, for the table
}

// benchFigures are the rows, in table order. The guest program
// (tests/progs/bench) prints all but those the harness measures itself:
// figBoot, figReady, figIdle and the network figures (benchnet.go); the
// storage figures it prints in boots of their own (benchdisk.go).
var benchFigures = []benchFigure{
	{"boot_to_first_line_ms", "ms", false, "host wall time from QEMU's start to the app's first line"},
	{"kernel_ready_ms", "ms", false, "kernel entry to starting /init, as gometal's kernel measures it"},
	{"spawn_join_ns", "ns", false, "start and join one goroutine"},
	{"pingpong_p1_ns", "ns", false, "unbuffered channel round trip, GOMAXPROCS(1)"},
	{"pingpong_p4_ns", "ns", false, "unbuffered channel round trip, GOMAXPROCS(4)"},
	{"getpid_ns", "ns", false, "getpid system call"},
	{"sleep1ms_overshoot_us", "us", false, "time.Sleep(1ms) overshoot, median of 200"},
	{"preempt_latency_us", "us", false, "time.Sleep(10ms) overshoot while a call-free loop holds the only P, median of 50"},
	{"cpu_speedup_x", "x", true, "CPU-bound work: 1 goroutine vs NumCPU goroutines"},
	{"gc_pause_p50_us", "us", false, "GC stop-the-world pause, median, 200 MiB of 64-byte objects"},
	{"gc_pause_max_us", "us", false, "GC stop-the-world pause, max, same workload"},
	{"timer_wakeups_per_s", "/s", true, "wake-ups of 1000 goroutines sleeping 1 ms in a loop"},
	{"pipe_mib_per_s", "MiB/s", true, "os.Pipe throughput, 1 GiB in 64 KiB writes to a reader goroutine"},
	{"page_fault_ns", "ns", false, "first touch of a fresh anonymous page, 256 MiB mmap'd"},
	{"tmpfs_mib_per_s", "MiB/s", true, "write then read back 256 MiB under /tmp in 1 MiB calls (bytes moved per second)"},
	{"file_read_mib_per_s", "MiB/s", true, "read a 64 MiB /tmp file 4 times with pread(2) into a 1 MiB buffer"},
	{"file_mmap_mib_per_s", "MiB/s", true, "read the same file 4 times through a fresh MAP_SHARED mapping each time, copied into a 1 MiB buffer (page faults included)"},
	{"futex_wake_ns", "ns", false, "futex wake to the woken thread running, across cores (half a ping-pong between threads pinned to cores 0 and 1)"},
	{"epoll_wake_ns", "ns", false, "eventfd write to epoll_pwait returning, across cores (half a ping-pong, as futex_wake_ns)"},
	{"scale2_getpid_x", "x", true, "getpid throughput per core with 2 cores calling it at once, over 1 core's (1.0: perfect scaling)"},
	{"scale4_getpid_x", "x", true, "the same with 4 cores"},
	{"scale2_futex_x", "x", true, "futex ping-pong pairs, a pair pinned to each core: per-core rate with 2 cores over 1 core's"},
	{"scale4_futex_x", "x", true, "the same with 4 cores"},
	{"scale2_pipe_x", "x", true, "blocking pipe pairs (64 MiB in 64 KiB writes), a pair pinned to each core: per-core throughput with 2 cores over 1 core's"},
	{"scale4_pipe_x", "x", true, "the same with 4 cores"},
	{"scale2_fault_x", "x", true, "first-touch page faults of one process's threads, one pinned to each core, each in its own fresh 32 MiB anonymous mapping: per-core faults per second with 2 cores over 1 core's"},
	{"scale4_fault_x", "x", true, "the same with 4 cores"},
	{"scale2_mmap_x", "x", true, "mmap of 16 KiB anonymous, touch a page, munmap, by one process's threads, one pinned to each core: per-core rate with 2 cores over 1 core's"},
	{"scale4_mmap_x", "x", true, "the same with 4 cores"},
	{"fork_exit_wait_us", "us", false, "fork (raw clone(SIGCHLD)), the child's exit_group(0), the parent's wait4; median of 200"},
	{"vfork_exec_wait_us", "us", false, "vfork (raw clone with CLONE_VM, CLONE_VFORK and SIGCHLD), execve in the child of a 132-byte static ELF that calls exit(0), wait4; median of 200"},
	{"exec_command_us", "us", false, "os/exec: exec.Command(that ELF).Run(); median of 200"},
	{"exec_go_us", "us", false, "os/exec of a static Go program (the bench program, exiting at once); median of 50"},
	{"fork_64mib_us", "us", false, "fork_exit_wait_us with 64 MiB of touched anonymous memory in the parent; median of 50"},
	{"proc_pingpong_us", "us", false, "one byte there and back between two processes over two blocking pipes (the child started with os/exec); mean of 2000"},
	{"ext4_write_mib_per_s", "MiB/s", true, "ext4 on a fresh virtio-blk disk (mke2fs -t ext4, 256 MiB): write 64 MiB to a new file in 1 MiB writes, then fsync"},
	{"ext4_read_mib_per_s", "MiB/s", true, "read a 64 MiB file the image was made with (mke2fs -d) in 1 MiB reads, after unmounting and mounting the disk again (cold); a side that mounts ext4 read-only only mounts it so"},
	{"ext4_parallel_read_mib_per_s", "MiB/s", true, "the same file, cold again, read by 4 goroutines at once, each a quarter of it in 1 MiB preads"},
	{"ext4_fsync_us", "us", false, "append 4 KiB to a file and fsync it; median of 100"},
	{"ext4_create_per_s", "/s", true, "create 1000 empty files in a new directory (open with O_CREAT and O_EXCL, close), then fsync the directory"},
	{"ext4_unlink_per_s", "/s", true, "unlink those 1000 files, then fsync the directory"},
	{"p9_read_mib_per_s", "MiB/s", true, "a host directory shared over virtio-9p (QEMU's local fsdev, security_model=none), mounted by its tag with each kernel's default options: read a 64 MiB file in 1 MiB reads after unmounting and mounting the share again (cold)"},
	{"p9_write_mib_per_s", "MiB/s", true, "write 64 MiB to a new file on the share in 1 MiB writes, then fsync"},
	{"gobuild_cold_s", "s", false, "go build of a module that imports fmt, with the linux/arm64 toolchain (golang.org/toolchain, the host's Go version) on the share, the module, GOCACHE and GOTMPDIR on the ext4 disk (1 GiB): an empty cache, so the standard library is compiled from source; the built program run and checked; asked for by name only (make bench)"},
	{"gobuild_warm_s", "s", false, "the same go build again, the cache warm"},
	{figHTTPRate, "/s", true, "examples/httpserver: GET / on 8 keep-alive connections from the host, 5 s (through QEMU's isolated user networking)"},
	{figHTTPP99, "ms", false, "the same run's 99th-percentile request latency"},
	{figTCPIn, "MiB/s", true, "examples/httpserver: POST 64 MiB to /sha256 over one connection, host to guest"},
	{figTCPOut, "MiB/s", true, "examples/httpserver: GET /bytes?n=64MiB over one connection, guest to host"},
	{figConnect, "/s", true, "connections set up, used for one GET and closed by the host, one at a time, 3 s"},
	{"idle_cpu_pct", "%", false, "QEMU's host CPU (share of one core) while the guest sleeps 5 s"},
}

var benchLineRE = regexp.MustCompile(`^BENCH (\S+) (-?[0-9.]+(?:e[-+]?[0-9]+)?) (\S+)\s*$`)

// parseBench returns the figures in a guest's output. A BENCH line that
// does not parse is an error: the program and the harness disagree.
func parseBench(out string) (map[string]float64, error) {
	figs := map[string]float64{}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		if !strings.HasPrefix(line, "BENCH ") {
			continue
		}
		m := benchLineRE.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("malformed BENCH line %q", line)
		}
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			return nil, fmt.Errorf("malformed value in %q", line)
		}
		figs[m[1]] = v
	}
	return figs, nil
}

// samples holds one side's values per figure, in run order.
type samples map[string][]float64

func (s samples) add(figs map[string]float64) {
	for k, v := range figs {
		s[k] = append(s[k], v)
	}
}

// stats returns the median, min and max of v (which must not be empty).
func stats(v []float64) (med, lo, hi float64) {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}

// The sides of the comparison, in table order. Debian's kernel boots
// twice per round: with its default command line, where KASLR is on and
// with it kernel page-table isolation (KPTI: every system call switches
// page tables, which QEMU's TCG makes expensive), and with nokaslr, which
// turns both off — Linux at its best on a Cortex-A72, which Meltdown does
// not affect. Ratios are against whichever Linux was faster.
const (
	sideGometal      = "gometal"
	sideLinux        = "linux"
	sideLinuxNoKASLR = "linux-nokaslr"
)

var allSides = []string{sideGometal, sideLinux, sideLinuxNoKASLR}

// sideGometalTraced is gometal with the kernel trace recording (bench
// -trace-cost); it has its own table (traceCostTable).
const sideGometalTraced = "gometal traced"

// traceCostTable compares gometal with and without the kernel trace,
// figure by figure: medians (min–max) and on/off. Within the noise
// means the two ranges overlap.
func traceCostTable(got map[string]samples, o *benchOptions) string {
	var b strings.Builder
	b.WriteString("### What the kernel trace costs when on\n\n")
	b.WriteString("gometal alone and gometal with `-trace` (gometal.trace=: every event recorded into the per-core rings, written out at exit), alternating.\n\n")
	b.WriteString("| figure | unit | trace off | trace on | on/off |\n|---|---|---|---|---|\n")
	for _, f := range benchFigures {
		off, on := got[sideGometal][f.Name], got[sideGometalTraced][f.Name]
		if !o.wants(f.Name) || len(off) == 0 || len(on) == 0 {
			continue
		}
		mOff, loOff, hiOff := stats(off)
		mOn, loOn, hiOn := stats(on)
		ratio := "–"
		if mOff != 0 {
			ratio = fmt.Sprintf("%.2f", mOn/mOff)
		}
		if loOn <= hiOff && loOff <= hiOn {
			ratio += " (within the noise)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", f.Name, f.Unit, cell(off, true, true), cell(on, true, true), ratio)
	}
	b.WriteString("\nOff, each hook is one load and a branch.\n")
	return b.String()
}

// benchRow is one figure's summary.
type benchRow struct {
	Fig   benchFigure
	Cells map[string]string // per side: "median (min–max)" or why there is none
	// Ratio is gometal over the faster Linux, Against names that Linux,
	// Better the better of gometal and it.
	Ratio, Against, Better string
	GometalMed, LinMed     float64
}

// summarize builds the table rows from each side's samples. A side that
// was not run says so; a figure missing from a side that ran says it
// did not run there.
func summarize(got map[string]samples, ran map[string]bool) []benchRow {
	var rows []benchRow
	for _, f := range benchFigures {
		r := benchRow{Fig: f, Cells: map[string]string{}}
		for _, sd := range allSides {
			v, ok := got[sd][f.Name]
			r.Cells[sd] = cell(v, ok, ran[sd])
		}
		gv, gok := got[sideGometal][f.Name]
		best := ""
		for _, sd := range []string{sideLinux, sideLinuxNoKASLR} {
			lv, ok := got[sd][f.Name]
			if !ok || len(lv) == 0 {
				continue
			}
			med, _, _ := stats(lv)
			if best == "" || (med > r.LinMed) == f.Higher && med != r.LinMed {
				best, r.LinMed = sd, med
			}
		}
		if gok && len(gv) > 0 && best != "" {
			r.GometalMed, _, _ = stats(gv)
			r.Against = best
			r.Ratio, r.Better = compare(f, r.GometalMed, r.LinMed)
		}
		rows = append(rows, r)
	}
	return rows
}

func cell(v []float64, ok, ran bool) string {
	switch {
	case !ran:
		return "not run"
	case !ok || len(v) == 0:
		return "does not run"
	}
	med, lo, hi := stats(v)
	if len(v) == 1 {
		return num(med)
	}
	return fmt.Sprintf("%s (%s–%s)", num(med), num(lo), num(hi))
}

// compare returns gometal/Linux and which side is better (within 2% is a
// tie: QEMU's timing is noisy).
func compare(f benchFigure, g, l float64) (ratio, better string) {
	if l == 0 || g == 0 {
		if g == l {
			return "–", "tie"
		}
		gBetter := (g > l) == f.Higher
		return "–", side(gBetter)
	}
	q := g / l
	ratio = fmt.Sprintf("%.2f", q)
	if q > 0.98 && q < 1.02 {
		return ratio, "tie"
	}
	return ratio, side((q > 1) == f.Higher)
}

func side(gometal bool) string {
	if gometal {
		return "**gometal**"
	}
	return "**Linux**"
}

// num prints a value with sensible precision.
func num(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// markdownTable renders rows as a Markdown table.
func markdownTable(rows []benchRow) string {
	var b strings.Builder
	b.WriteString("| figure | unit | gometal | Linux (default: KASLR, KPTI) | Linux `nokaslr` (no KPTI) | gometal / faster Linux | better |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		ratio := orDash(r.Ratio)
		if r.Ratio != "" && r.Ratio != "–" {
			ratio += " (vs " + linuxLabel(r.Against) + ")"
		}
		fmt.Fprintf(&b, "| `%s`: %s | %s | %s | %s | %s | %s | %s |\n", r.Fig.Name, r.Fig.About, r.Fig.Unit,
			r.Cells[sideGometal], r.Cells[sideLinux], r.Cells[sideLinuxNoKASLR], ratio, orDash(r.Better))
	}
	return b.String()
}

func linuxLabel(sd string) string {
	if sd == sideLinuxNoKASLR {
		return "nokaslr"
	}
	return "default"
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
