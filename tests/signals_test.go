package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Preemption by interrupt and asynchronous signals (tests/progs/signals).

const signalsProg = "./tests/progs/signals"

// The example from the scheduler literature: GOMAXPROCS(1), a goroutine
// spinning with no calls, main sleeping 10 ms. The program ends only if
// the runtime's SIGURG preemption works: on one core the kernel's tick
// interrupts the spinner so sysmon can run and tgkill it; on four, sysmon
// runs on another core and the tgkill becomes an SGI to the spinner's.
func TestPreemptSpinnerHoldingOnlyP(t *testing.T) {
	t.Parallel()
	for _, smp := range []string{"1", "4"} {
		r := gometal(t, "run", "-smp", smp, "-env", "GOMETAL_STATS=1", signalsProg, "--", "spin1")
		r.expect(t, 0, "PASS")
		if m := regexp.MustCompile(`took (\S+)`).FindStringSubmatch(r.out); m != nil {
			t.Logf("-smp %s: time.Sleep(10ms) beside a call-free spinner took %s", smp, m[1])
		}
		// The runtime's handler ran for SIGURG (signal 23).
		if !regexp.MustCompile(`signals:.* 23=[1-9]`).MatchString(r.out) {
			t.Errorf("-smp %s: stats show no SIGURG frame:\n%s", smp, r.out)
		}
		if smp == "4" && !regexp.MustCompile(`sgi-kicks=[1-9]`).MatchString(r.out) {
			t.Errorf("-smp 4: no preemption SGI was sent:\n%s", r.out)
		}
	}
}

// A GC must stop every goroutine; 8 call-free spinners on 4 Ps stop only
// by asynchronous preemption.
func TestPreemptGCWithEightSpinners(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "4", signalsProg, "--", "gc")
	r.expect(t, 0, "GC with 8 spinners on GOMAXPROCS(4) took", "PASS")
}

func TestSignalNotifyKillAndTgkill(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "4", signalsProg, "--", "notify")
	r.expect(t, 0, "kill(getpid, SIGUSR1): 1 arrived", "tgkill(other thread, SIGUSR1): 1 arrived", "PASS")
}

func TestSignalBlockedThenUnblockedOnce(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "4", signalsProg, "--", "mask")
	r.expect(t, 0, "SIGUSR2 while blocked: 0 arrived", "SIGUSR2 after unblocking: 1 arrived", "PASS")
}

func TestSigtimedwaitAndSigqueueinfo(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "2", signalsProg, "--", "wait")
	r.expect(t, 0, "tgkill: signo 12 code -6 pid 1", "rt_tgsigqueueinfo: code -1 value 0x1234",
		"woken by rt_sigqueueinfo: value 0x5678", "PASS")
}

// Blocking syscalls cut short by a handled signal: restarted under
// SA_RESTART where Linux restarts them, EINTR where it does not; the
// stats count both.
func TestSignalInterruptsSyscalls(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "2", "-bootarg", "gometal.stats=1", signalsProg, "--", "eintr")
	r.expect(t, 0, "read(pipe) restarted after the handler (SA_RESTART)", "nanosleep: EINTR with the time left",
		"epoll_pwait: EINTR", "rt_sigsuspend: handler ran, EINTR, old mask back", "PASS")
	m := regexp.MustCompile(`interrupted=(\d+) restarted=(\d+)`).FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("no signal stats in output:\n%s", r.out)
	}
	intr, _ := strconv.Atoi(m[1])
	restarted, _ := strconv.Atoi(m[2])
	// read, nanosleep, epoll_pwait, rt_sigsuspend at least; the read
	// restarted.
	if intr < 4 || restarted < 1 {
		t.Errorf("interrupted=%d restarted=%d, want >= 4 and >= 1", intr, restarted)
	}
}

// tgkill and rt_sigreturn are answered without the kernel lock in the
// common case (kernel/linux/unlockedsignal_arm64.go): a signal sent the
// moment its receiver says it is ready finds the receiver still running
// on its way into rt_sigtimedwait or rt_sigsuspend, or already waiting;
// none may be lost or taken late, whichever way the send went. The
// stats must show both ways used: sends to a running receiver without
// the kernel lock, and every handler's rt_sigreturn (2,000 frames, on
// the runtime's signal stack, which is present) without it too.
func TestSignalsRaceWithUnlockedSends(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "4", "-env", "GOMETAL_STATS=1", signalsProg, "--", "race", "2000")
	r.expect(t, 0, "rt_sigtimedwait: 2000 signals", "rt_sigsuspend: 2000 signals", "PASS")
	m := regexp.MustCompile(`unlocked-sends=(\d+) unlocked-returns=(\d+)`).FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("no unlocked signal stats in output:\n%s", r.out)
	}
	sends, _ := strconv.Atoi(m[1])
	returns, _ := strconv.Atoi(m[2])
	t.Logf("tgkill without the kernel lock: %d; rt_sigreturn without it: %d", sends, returns)
	if sends < 1 || returns < 2000 {
		t.Errorf("unlocked-sends=%d unlocked-returns=%d, want >= 1 and >= 2000", sends, returns)
	}
	logLine(t, r.out, `stats: lock signals: .*`)
}

// More runnable threads than cores: the kernel's tick shares the core.
func TestTimeSlicingMoreThreadsThanCores(t *testing.T) {
	t.Parallel()
	for _, smp := range []string{"1", "2"} {
		r := gometal(t, "run", "-smp", smp, signalsProg, "--", "slice")
		r.expect(t, 0, "PASS")
		logLine(t, r.out, `3 spinning threads on \d+ cores.*`) // names the core count
	}
}

// Ctrl-C typed at the terminal gometal runs in reaches the app as SIGINT:
// signal.Notify sees it; with no handler the app ends with status 130.
func TestCtrlCIsSIGINT(t *testing.T) {
	t.Parallel()
	r := gometalCtrlC(t, "sigint")
	r.expect(t, 0, "got interrupt", "PASS")

	r = gometalCtrlC(t, "hang")
	r.expect(t, 130, "gometal: app killed by SIGINT (signal 2)")
}

// gometalCtrlC runs the signals program in mode with a pseudo-terminal
// as gometal's stdin, as a person at a terminal would, and types Ctrl-C
// once the program says it waits for it.
func gometalCtrlC(t *testing.T, mode string) result {
	t.Helper()
	return gometalCtrlCAt(t, []string{signalsProg, "--", mode}, "waiting for Ctrl-C")
}

// gometalCtrlCAt runs gometal run with args (a program and its
// arguments) at a pseudo-terminal and types Ctrl-C once at each of
// prompts, in order, when the program prints it.
func gometalCtrlCAt(t *testing.T, args []string, prompts ...string) result {
	t.Helper()
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(gometalBin, append([]string{"run", "-smp", "2"}, args...)...)
	cmd.Dir = repoRoot
	var out lockedBuffer
	cmd.Stdin = slave
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	// The pty's output side must be drained or gometal's writes to it
	// (it prints a banner to stderr only, but be safe) could block.
	go func() {
		var b [256]byte
		for {
			if _, err := master.Read(b[:]); err != nil {
				return
			}
		}
	}()
	for _, prompt := range prompts {
		deadline := time.Now().Add(60 * time.Second)
		for !strings.Contains(out.String(), prompt) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("program never printed %q:\n%s", prompt, out.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		if _, err := master.Write([]byte{0x03}); err != nil {
			t.Fatal(err)
		}
	}
	err := cmd.Wait()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{strings.ReplaceAll(out.String(), "\r\n", "\n"), status}
}

// openPTY opens a pseudo-terminal pair (pty(7): /dev/ptmx, unlock, then
// /dev/pts/N).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening the pty's terminal side: %v", err)
	}
	return m, s
}

// lockedBuffer is a bytes.Buffer that a command writes to while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The standard library's own signal tests, and the runtime's preemption
// tests, at one and four Ps on four cores, whole: TestAtomicStop and
// TestNotifyContextNotifications re-run the test binary as a child
// process. Of the runtime's Preempt tests, TestAsyncPreempt needs 'go
// build' in the guest and skips itself.
func TestStdlibSignalsAndPreemption(t *testing.T) {
	goTestExec(t, true, []string{"-cpu", "1,4"}, "os/signal")
	out := goTestExec(t, false, []string{"-v", "-cpu", "1,4", "-run", "Preempt"}, "runtime")
	for _, name := range []string{"TestPreemption", "TestPreemptionGC", "TestPreemptSplitBig", "TestPreemptionAfterSyscall"} {
		if n := strings.Count(out, "--- PASS: "+name+" "); n != 2 {
			t.Errorf("%s passed %d times, want 2 (-cpu 1,4)", name, n)
		}
	}
}
