package tests

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gometal/qemu"
)

// The interrupt-driven poller: timers, pipes, stdin, eventfd, timerfd,
// epoll, and idle cores (tests/progs/poller).

const pollerProg = "./tests/progs/poller"

// logLine logs the first line of out matching re, if any.
func logLine(t *testing.T, out, re string) {
	t.Helper()
	if m := regexp.MustCompile(re).FindString(out); m != "" {
		t.Log(m)
	}
}

func TestThousandSleepersAllProgress(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "4", pollerProg, "--", "sleepers")
	r.expect(t, 0, "PASS")
	logLine(t, r.out, `1000 sleepers over .*`)
	logLine(t, r.out, `BENCH timer_wakeups_per_s .*`)
}

func TestTickerTenMilliseconds(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "4", pollerProg, "--", "ticker")
	r.expect(t, 0, "PASS")
	logLine(t, r.out, `ticker 10ms: .*`)
}

func TestPipeDeadlineAnd64MiB(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "2", pollerProg, "--", "pipe-deadline")
	r.expect(t, 0, "i/o timeout", "PASS")
	r = gometal(t, "run", "-smp", "2", pollerProg, "--", "pipe-64m")
	r.expect(t, 0, "64 MiB through a pipe intact", "PASS")
	logLine(t, r.out, `64 MiB through a pipe .*`)
}

func TestStdinLineAndDeadline(t *testing.T) {
	t.Parallel()
	r := gometalInput(t, "a line from the host\n", "run", "-smp", "2", pollerProg, "--", "stdin-line")
	r.expect(t, 0, `stdin: "a line from the host\n"`, "PASS")
	r = gometal(t, "run", "-smp", "2", pollerProg, "--", "stdin-deadline")
	r.expect(t, 0, "stdin read with a 100ms deadline: read stdin: i/o timeout", "PASS")
}

func TestEventfdSemantics(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "2", pollerProg, "--", "eventfd")
	r.expect(t, 0, "eventfd: counter, semaphore, blocking read and write", "PASS")
}

func TestTimerfdSemantics(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "2", pollerProg, "--", "timerfd")
	r.expect(t, 0, "timerfd: one-shot, gettime, periodic, disarm, absolute, epoll, blocking read, bad arguments", "PASS")
}

func TestEpollSemantics(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "2", "-env", "GOMETAL_STATS=1", pollerProg, "--", "epoll")
	r.expect(t, 0, "epoll: level, edge, one-shot, MOD, DEL, HUP, closed fds, timeouts, maxevents, bad arguments, wake-up", "PASS")
	// The stats say how waits ended: the timeouts above, and the
	// eventfd write that woke a blocked wait.
	m := regexp.MustCompile(`epoll: ready=\d+ polls=\d+ woken=(\d+) breaks=(\d+) timeouts=(\d+)`).FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("no epoll stats:\n%s", r.out)
	}
	if m[2] == "0" || m[3] == "0" {
		t.Errorf("epoll stats: breaks=%s timeouts=%s, want both > 0", m[2], m[3])
	}
}

// An idle guest costs the host almost nothing: with the app asleep for
// 5 s on 4 cores, every core sits in WFI with its timer set to its next
// deadline. The QEMU process's CPU time over the sleep (from
// /proc/<pid>/stat) must stay under 25% of one host core; busy-polling
// would show ~400%.
func TestIdleGuestCostsLittleHostCPU(t *testing.T) {
	t.Parallel()
	elfPath := filepath.Join(t.TempDir(), "poller")
	build := exec.Command("go", "build", "-o", elfPath, pollerProg)
	build.Dir = repoRoot
	build.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	frac, out := idleCPU(t, elfPath, 5)
	t.Logf("QEMU used %.1f%% of one host core while the guest slept 5 s on 4 cores", frac*100)
	if frac > 0.25 {
		t.Errorf("QEMU used %.0f%% of a host core while idle, want < 25%%:\n%s", frac*100, out)
	}
}

// idleCPU boots the poller's idle mode and returns the share of one host
// core QEMU used between "idle: sleeping" and "idle: awake".
func idleCPU(t testing.TB, elfPath string, seconds int) (float64, string) {
	cmd := exec.Command(gometalBin, "run", "-smp", "4", "-env", "GOMETAL_STATS=1", elfPath, "--", "idle", strconv.Itoa(seconds))
	cmd.Dir = repoRoot
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	var cpu0, cpu1 time.Duration
	var wall0, wall1 time.Time
	qemu := 0
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		out.WriteString(line + "\n")
		switch {
		case strings.Contains(line, "idle: sleeping"):
			qemu = childPID(t, cmd.Process.Pid)
			cpu0, wall0 = procCPU(t, qemu), time.Now()
		case strings.Contains(line, "idle: awake") && qemu != 0:
			cpu1, wall1 = procCPU(t, qemu), time.Now()
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("gometal: %v\n%s", err, out.String())
	}
	if wall1.IsZero() {
		t.Fatalf("the guest never said it slept and woke:\n%s", out.String())
	}
	return float64(cpu1-cpu0) / float64(wall1.Sub(wall0)), out.String()
}

// childPID is the one child of pid (gometal's QEMU). A child is listed
// under the thread that started it (proc(5): /proc/pid/task/tid/children),
// and Go starts processes from any of its threads.
func childPID(t testing.TB, pid int) int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var kids []string
	for _, task := range tasks {
		b, err := os.ReadFile(task)
		if err == nil {
			kids = append(kids, strings.Fields(string(b))...)
		}
	}
	if len(kids) != 1 {
		t.Fatalf("gometal has children %q, want one (QEMU)", kids)
	}
	n, _ := strconv.Atoi(kids[0])
	return n
}

func procCPU(t testing.TB, pid int) time.Duration {
	d, err := qemu.CPUTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The standard library's own tests of what the poller carries: timers,
// contexts, pipes and deadlines, and the poller package itself. os's
// TestStdPipe and TestStatStdin start a child process, which gometal
// cannot (no fork/exec): skipped by name.
func TestStdlibPollerSuites(t *testing.T) {
	goTestExec(t, true, nil, "time", "context", "internal/poll", "io")
	goTestExec(t, true, []string{"-run", "Pipe|Deadline|Stdin", "-skip", "^(TestStdPipe|TestStatStdin)$"}, "os")
}
