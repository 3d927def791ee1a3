package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"text/tabwriter"

	"github.com/gometal/gometal/sched/trace"
)

// The kernel trace on the host: reading the file the kernel wrote at exit
// (format: sched/trace), a per-core summary, and the Chrome/Perfetto
// trace-event JSON export.

// ktrace is a kernel trace as read from its file.
type ktrace struct {
	Freq  uint64
	Cores []coreTrace
}

type coreTrace struct {
	Written uint64 // events recorded
	Events  []trace.Event
}

func (c *coreTrace) lost() uint64 { return c.Written - uint64(len(c.Events)) }

// maxTraceCores bounds the header's core count (the kernel runs at most 8).
const maxTraceCores = 64

// readTrace reads and checks a trace file: the magic and version, counts
// that fit the ring size, and exactly as many events as the headers say.
func readTrace(path string) (*ktrace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var h trace.Header
	if err := binary.Read(r, binary.LittleEndian, &h); err != nil {
		return nil, fmt.Errorf("%s: not a gometal kernel trace (too short for its header)", path)
	}
	switch {
	case string(h.Magic[:]) != trace.Magic:
		return nil, fmt.Errorf("%s: not a gometal kernel trace (bad magic %q)", path, h.Magic[:])
	case h.Version != trace.Version:
		return nil, fmt.Errorf("%s: trace format version %d; this gometal reads version %d", path, h.Version, trace.Version)
	case h.Cores == 0 || h.Cores > maxTraceCores:
		return nil, fmt.Errorf("%s: corrupt trace: %d cores", path, h.Cores)
	case h.Freq == 0:
		return nil, fmt.Errorf("%s: corrupt trace: counter frequency 0", path)
	}
	heads := make([]trace.CoreHeader, h.Cores)
	if err := binary.Read(r, binary.LittleEndian, heads); err != nil {
		return nil, fmt.Errorf("%s: truncated trace (core headers): %v", path, err)
	}
	t := &ktrace{Freq: h.Freq, Cores: make([]coreTrace, h.Cores)}
	for i, ch := range heads {
		if ch.Kept > trace.RingEvents || ch.Kept > ch.Written {
			return nil, fmt.Errorf("%s: corrupt trace: core %d keeps %d of %d events (ring: %d)", path, i, ch.Kept, ch.Written, trace.RingEvents)
		}
		t.Cores[i].Written = ch.Written
		t.Cores[i].Events = make([]trace.Event, ch.Kept)
	}
	for i := range t.Cores {
		if err := binary.Read(r, binary.LittleEndian, t.Cores[i].Events); err != nil {
			return nil, fmt.Errorf("%s: truncated trace: core %d should have %d events: %v", path, i, len(t.Cores[i].Events), err)
		}
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("%s: corrupt trace: data after the last core's events", path)
	}
	return t, nil
}

// coreSummary counts what one core did.
type coreSummary struct {
	events, lost                          uint64
	runs, stolen, slices, blocks, idles   int
	timerIRQs, sgiIRQs, uartIRQs, sgisOut int
	syscalls, signals, preemptSignals     int
	idleTicks, spanTicks                  uint64
}

// sigURG is the signal Go's runtime preempts a goroutine with.
const sigURG = 23

func (c *coreTrace) summary() coreSummary {
	s := coreSummary{events: uint64(len(c.Events)), lost: c.lost()}
	var idleFrom uint64
	for _, e := range c.Events {
		switch e.Kind {
		case trace.KindRun:
			s.runs++
			if e.Code == trace.RunStolen {
				s.stolen++
			}
		case trace.KindStop:
			switch e.Code {
			case trace.StopSlice:
				s.slices++
			case trace.StopBlocked:
				s.blocks++
			}
		case trace.KindIdle:
			s.idles++
			idleFrom = e.TS
		case trace.KindWake:
			if idleFrom != 0 && e.TS >= idleFrom {
				s.idleTicks += e.TS - idleFrom
			}
			idleFrom = 0
		case trace.KindIRQ:
			switch e.Code {
			case trace.IRQTimer:
				s.timerIRQs++
			case trace.IRQSGI:
				s.sgiIRQs++
			case trace.IRQUART:
				s.uartIRQs++
			}
		case trace.KindSGI:
			s.sgisOut++
		case trace.KindSyscall:
			s.syscalls++
		case trace.KindSignal:
			s.signals++
			if e.Num == sigURG {
				s.preemptSignals++
			}
		}
	}
	if n := len(c.Events); n > 1 {
		s.spanTicks = c.Events[n-1].TS - c.Events[0].TS
	}
	return s
}

// writeSummary prints a table: one row per core.
func (t *ktrace) writeSummary(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "core\tevents\tlost\truns\tstolen\tslice ends\tblocks\tidle %\ttimer IRQs\tSGIs in\tSGIs out\tUART IRQs\tsyscalls\tsignals\tSIGURG\t")
	for i := range t.Cores {
		s := t.Cores[i].summary()
		idle := 0.0
		if s.spanTicks > 0 {
			idle = 100 * float64(s.idleTicks) / float64(s.spanTicks)
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.0f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", i, s.events, s.lost, s.runs, s.stolen, s.slices, s.blocks, idle,
			s.timerIRQs, s.sgiIRQs, s.sgisOut, s.uartIRQs, s.syscalls, s.signals, s.preemptSignals)
	}
	tw.Flush()
}

// traceEvent is one Chrome trace event ("Trace Event Format", the JSON
// Perfetto and chrome://tracing open): ts and dur in microseconds.
type traceEvent struct {
	Name  string         `json:"name"`
	Cat   string         `json:"cat,omitempty"`
	Ph    string         `json:"ph"`
	Ts    float64        `json:"ts"`
	Dur   float64        `json:"dur,omitempty"`
	Pid   int            `json:"pid"`
	Tid   int            `json:"tid"`
	Scope string         `json:"s,omitempty"`
	Args  map[string]any `json:"args,omitempty"`
}

// Lanes within a core's process in the JSON.
const (
	laneCPU      = 0 // the thread on the core, idle, interrupts, SGIs
	laneSyscalls = 1 // system calls, as spans
)

var stopReasons = map[uint8]string{
	trace.StopBlocked: "blocked", trace.StopSlice: "time slice ended", trace.StopYield: "yielded",
	trace.StopExit: "exited", trace.StopMigrate: "migrated",
}

// waitKinds names sched.WaitKind values (sched/thread.go).
var waitKinds = []string{"none", "futex", "sleep", "file", "epoll", "signal", "child", "vfork", "exec", "stopped", "disk"}

var irqNames = map[uint8]string{trace.IRQTimer: "timer", trace.IRQSGI: "SGI", trace.IRQUART: "UART", trace.IRQOther: "other"}

var sgiNames = map[uint8]string{trace.SGIWakeup: "wake-up", trace.SGIKick: "signal kick", trace.SGIStop: "stop"}

// chromeEvents turns the trace into trace events: one pid per core, ts
// in µs from the first event of any core (the counter is the same on
// every core).
func (t *ktrace) chromeEvents() []traceEvent {
	t0 := t.start()
	us := func(ts uint64) float64 { return float64(ts-t0) * 1e6 / float64(t.Freq) }
	var out []traceEvent
	names := t.procNames()
	for core, c := range t.Cores {
		out = append(out,
			traceEvent{Name: "process_name", Ph: "M", Pid: core, Args: map[string]any{"name": fmt.Sprintf("core %d", core)}},
			traceEvent{Name: "process_sort_index", Ph: "M", Pid: core, Args: map[string]any{"sort_index": core}},
			traceEvent{Name: "thread_name", Ph: "M", Pid: core, Tid: laneCPU, Args: map[string]any{"name": "threads"}},
			traceEvent{Name: "thread_name", Ph: "M", Pid: core, Tid: laneSyscalls, Args: map[string]any{"name": "syscalls"}})
		var runTID uint32
		var runFrom, idleFrom, sysFrom uint64
		var sysNr uint16
		running, idle, inSys := false, false, false
		span := func(name, cat string, from, to uint64, lane int, args map[string]any) {
			out = append(out, traceEvent{Name: name, Cat: cat, Ph: "X", Ts: us(from), Dur: us(to) - us(from), Pid: core, Tid: lane, Args: args})
		}
		instant := func(name, cat string, ts uint64, args map[string]any) {
			out = append(out, traceEvent{Name: name, Cat: cat, Ph: "i", Ts: us(ts), Pid: core, Tid: laneCPU, Scope: "t", Args: args})
		}
		for _, e := range c.Events {
			switch e.Kind {
			case trace.KindRun:
				runTID, runFrom, running = e.Arg, e.TS, true
			case trace.KindStop:
				if running && e.Arg == runTID {
					why := stopReasons[e.Code]
					if e.Code == trace.StopBlocked && int(e.Num) < len(waitKinds) {
						why += " (" + waitKinds[e.Num] + ")"
					}
					args := map[string]any{"tid": runTID, "left": why}
					if l := names[runTID]; len(l) > 0 {
						args["pid"] = l[len(l)-1].pid
					}
					span(threadLabel(names, runTID, runFrom), "thread", runFrom, e.TS, laneCPU, args)
				}
				running = false
			case trace.KindIdle:
				idleFrom, idle = e.TS, true
			case trace.KindWake:
				if idle {
					span("idle (WFI)", "idle", idleFrom, e.TS, laneCPU, nil)
				}
				idle = false
			case trace.KindIRQ:
				instant("IRQ "+irqNames[e.Code], "irq", e.TS, map[string]any{"intid": e.Arg})
			case trace.KindSGI:
				instant(fmt.Sprintf("SGI → core %d (%s)", e.Arg, sgiNames[e.Code]), "sgi", e.TS, map[string]any{"to": e.Arg, "purpose": sgiNames[e.Code]})
			case trace.KindSignal:
				name := fmt.Sprintf("signal %d → thread %d", e.Num, e.Arg)
				if e.Num == sigURG {
					name = fmt.Sprintf("SIGURG (preemption) → thread %d", e.Arg)
				}
				instant(name, "signal", e.TS, map[string]any{"signal": e.Num, "tid": e.Arg})
			case trace.KindSyscall:
				sysFrom, sysNr, inSys = e.TS, e.Num, true
			case trace.KindSysret:
				if inSys && e.Num == sysNr {
					args := map[string]any{"nr": e.Num, "tid": e.Arg}
					if e.Code == 1 {
						args["blocked"] = true
					}
					span(syscallName(e.Num), "syscall", sysFrom, e.TS, laneSyscalls, args)
				}
				inSys = false
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Ph == "M" && out[j].Ph != "M" })
	return out
}

// start is the counter at the first event of any core (the counter is
// the same on every core).
func (t *ktrace) start() uint64 {
	var t0 uint64
	for _, c := range t.Cores {
		if len(c.Events) > 0 && (t0 == 0 || c.Events[0].TS < t0) {
			t0 = c.Events[0].TS
		}
	}
	return t0
}

// startNanos is start in nanoseconds: the kernel's CLOCK_MONOTONIC is
// the counter in nanoseconds (drivers/timer.TicksToNanos), and so are a
// Go execution trace's times.
func (t *ktrace) startNanos() int64 {
	t0 := t.start()
	return int64(t0/t.Freq*1e9 + t0%t.Freq*1e9/t.Freq)
}

// writeJSON writes the trace as a JSON object with traceEvents; gt's
// goroutine spans (if any) go to one process per P, after the cores.
func (t *ktrace) writeJSON(w io.Writer, gt *goTrace) error {
	ev := t.chromeEvents()
	if gt != nil {
		ev = append(ev, t.goEvents(gt)...)
	}
	return json.NewEncoder(w).Encode(map[string]any{"traceEvents": ev, "displayTimeUnit": "ns"})
}

// goPidBase numbers the Go Ps' processes in the JSON, apart from cores;
// goPhasePid is the runtime phases' process.
const (
	goPidBase  = 1000
	goPhasePid = goPidBase - 1
)

func (t *ktrace) goEvents(gt *goTrace) []traceEvent {
	var out []traceEvent
	for p := 0; p < gt.Procs; p++ {
		out = append(out,
			traceEvent{Name: "process_name", Ph: "M", Pid: goPidBase + p, Args: map[string]any{"name": fmt.Sprintf("Go P%d", p)}},
			traceEvent{Name: "process_sort_index", Ph: "M", Pid: goPidBase + p, Args: map[string]any{"sort_index": len(t.Cores) + p}})
	}
	t0 := t.startNanos()
	for _, s := range gt.Spans {
		out = append(out, traceEvent{Name: fmt.Sprintf("G%d", s.G), Cat: "go", Ph: "X", Ts: float64(s.From-t0) / 1e3,
			Dur: float64(s.To-s.From) / 1e3, Pid: goPidBase + s.P, Args: map[string]any{"g": s.G, "m_tid": s.M, "then": s.Left}})
	}
	// The runtime's phases, as a process of their own below the Ps.
	out = append(out,
		traceEvent{Name: "process_name", Ph: "M", Pid: goPhasePid, Args: map[string]any{"name": goPhaseRow}},
		traceEvent{Name: "process_sort_index", Ph: "M", Pid: goPhasePid, Args: map[string]any{"sort_index": len(t.Cores) + gt.Procs}})
	for _, ph := range gt.Phases {
		cat, _ := phaseCategory(ph.Name)
		out = append(out, traceEvent{Name: ph.Name, Cat: cat, Ph: "X", Ts: float64(ph.From-t0) / 1e3,
			Dur: float64(ph.To-ph.From) / 1e3, Pid: goPhasePid})
	}
	return out
}

// syscallNames are the arm64 numbers (include/uapi/asm-generic/unistd.h)
// of the calls a Go program makes most. x/sys/unix's SYS_* constants are
// the host's architecture's, so they cannot name a guest's calls here.
var syscallNames = map[uint16]string{
	17: "getcwd", 21: "epoll_ctl", 22: "epoll_pwait", 23: "dup", 24: "dup3", 25: "fcntl", 29: "ioctl",
	34: "mkdirat", 35: "unlinkat", 48: "faccessat", 56: "openat", 57: "close", 59: "pipe2",
	61: "getdents64", 62: "lseek", 63: "read", 64: "write", 65: "readv", 66: "writev", 67: "pread64",
	68: "pwrite64", 78: "readlinkat", 79: "newfstatat", 80: "fstat", 93: "exit", 94: "exit_group",
	96: "set_tid_address", 98: "futex", 101: "nanosleep", 113: "clock_gettime", 115: "clock_nanosleep",
	124: "sched_yield", 129: "kill", 130: "tkill", 131: "tgkill", 132: "sigaltstack", 134: "rt_sigaction",
	135: "rt_sigprocmask", 139: "rt_sigreturn", 172: "getpid", 173: "getppid", 178: "gettid",
	198: "socket", 199: "socketpair", 200: "bind", 201: "listen", 202: "accept", 203: "connect",
	206: "sendto", 207: "recvfrom", 214: "brk", 215: "munmap", 220: "clone", 222: "mmap",
	226: "mprotect", 233: "madvise", 242: "accept4", 261: "prlimit64", 278: "getrandom",
	19: "eventfd2", 20: "epoll_create1", 85: "timerfd_create", 86: "timerfd_settime",
	122: "sched_setaffinity", 123: "sched_getaffinity", 168: "getcpu", 160: "uname", 167: "prctl",
	71: "sendfile", 76: "splice",
}

func syscallName(nr uint16) string {
	if n, ok := syscallNames[nr]; ok {
		return n
	}
	return fmt.Sprintf("syscall %d", nr)
}

// traceCmd is `gometal trace [-o OUT.html] [-json OUT.json] [-go GOTRACE] FILE`.
func traceCmd(args []string) int {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	htmlOut := fs.String("o", "", "write a self-contained HTML timeline to this file")
	jsonOut := fs.String("json", "", "write Chrome/Perfetto trace-event JSON to this file")
	goIn := fs.String("go", "", "a Go execution trace (runtime/trace) of the same run, drawn under the cores")
	fs.Usage = func() { fmt.Fprint(os.Stderr, usage) }
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "gometal trace: give one trace file (written by gometal run -trace FILE)")
		return exitUsage
	}
	t, err := readTrace(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(os.Stderr, "gometal trace: %v\n", err)
		return exitUsage
	}
	var gt *goTrace
	if *goIn != "" {
		if gt, err = readGoTrace(*goIn); err != nil {
			fmt.Fprintf(os.Stderr, "gometal trace: %v\n", err)
			return exitUsage
		}
	}
	t.writeSummary(os.Stdout)
	if gt != nil {
		gt.writePhaseSummary(os.Stdout)
	}
	write := func(path string, f func(io.Writer) error) error {
		out, err := os.Create(path)
		if err != nil {
			return err
		}
		err = f(out)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		return err
	}
	if *jsonOut != "" {
		if err := write(*jsonOut, func(w io.Writer) error { return t.writeJSON(w, gt) }); err != nil {
			fmt.Fprintf(os.Stderr, "gometal trace: %v\n", err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "gometal trace: wrote %s (open it in https://ui.perfetto.dev or chrome://tracing)\n", *jsonOut)
	}
	if *htmlOut != "" {
		title := fs.Arg(0)
		if *goIn != "" {
			title += " + " + *goIn
		}
		if err := write(*htmlOut, func(w io.Writer) error { return t.writeTimeline(w, title, gt) }); err != nil {
			fmt.Fprintf(os.Stderr, "gometal trace: %v\n", err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "gometal trace: wrote %s (open it in a browser; it needs no network)\n", *htmlOut)
	}
	return 0
}

// errNoTrace is what run reports when the kernel wrote no trace.
var errNoTrace = errors.New("no trace was written: the kernel writes it when the app exits, so a run that timed out, was killed or panicked has none")
