// Package tests boots real programs on gometal under QEMU and checks what
// they print and how they exit. Every test here needs qemu-system-aarch64
// (`make deps` installs it); a machine without it fails them, loudly.
package tests

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gometal/gometal/linker"
)

var (
	gometalBin string // the CLI, built once
	repoRoot   string
)

func TestMain(m *testing.M) {
	os.Exit(setup(m))
}

func setup(m *testing.M) int {
	var err error
	repoRoot, err = filepath.Abs("..")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := os.MkdirTemp("", "gometal-tests-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	gometalBin = filepath.Join(dir, "gometal")
	// Every kernel the tests boot checks its lock order (a violation is a
	// kernel panic naming both locks), unless the caller chose otherwise.
	if os.Getenv("GOMETAL_LOCKCHECK") == "" {
		os.Setenv("GOMETAL_LOCKCHECK", "1")
	}
	// Every boot's network is isolated (QEMU restrict=on): nothing a test
	// guest sends leaves the host.
	os.Setenv("GOMETAL_NET", "isolated")
	build := exec.Command("go", "build", "-o", gometalBin, "-ldflags", "-X main.srcRoot="+repoRoot, "./cmd/gometal")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the CLI: %v\n%s", err, out)
		return 1
	}
	// Build the kernel once so parallel tests share the cached image.
	b, _ := linker.LookupBoard("virt")
	if _, err := linker.BuildKernel(repoRoot, b, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

type result struct {
	out    string
	status int
}

// gometal runs the CLI and returns its combined output and exit status.
func gometal(t testing.TB, args ...string) result {
	t.Helper()
	return gometalInput(t, "", args...)
}

// gometalInput is gometal with input piped to the guest console.
func gometalInput(t testing.TB, input string, args ...string) result {
	t.Helper()
	// gometal lab grade bounds each run, so that a lab's stub that hangs
	// the guest fails in seconds (an explicit -timeout stays).
	if d := os.Getenv("GOMETAL_TEST_RUN_TIMEOUT"); d != "" && len(args) > 0 && args[0] == "run" && !slices.Contains(args, "-timeout") {
		args = append([]string{"run", "-timeout", d}, args[1:]...)
	}
	cmd := exec.Command(gometalBin, args...)
	cmd.Stdin = strings.NewReader(input)
	cmd.Dir = repoRoot
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	err := cmd.Run()
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running gometal %v: %v", args, err)
	}
	t.Logf("gometal %s: status %d after %v", strings.Join(args, " "), status, time.Since(start).Round(time.Millisecond))
	return result{out.String(), status}
}

// counter returns the number re's first group matches in the output
// (a stats counter, say), failing the test if the output has none.
func (r result) counter(t *testing.T, re string) int {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("no %q in the output:\n%s", re, r.out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// logLine logs the first line of out matching re, if any.
func logLine(t *testing.T, out, re string) {
	t.Helper()
	if m := regexp.MustCompile(re).FindString(out); m != "" {
		t.Log(m)
	}
}

// expectClean is expect for programs that list every failed check as a
// FAIL line: there must be none.
func (r result) expectClean(t *testing.T, status int, wants ...string) {
	t.Helper()
	r.expect(t, status, wants...)
	if strings.Contains(r.out, "FAIL") {
		t.Errorf("a check failed:\n%s", r.out)
	}
}

func (r result) expect(t *testing.T, status int, wants ...string) {
	t.Helper()
	if r.status != status {
		t.Errorf("exit status %d, want %d", r.status, status)
	}
	for _, w := range wants {
		if !strings.Contains(r.out, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", r.out)
	}
}

func TestHelloArgsEnv(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-env", "GREETING=hi there", "./tests/progs/hello", "--", "a", "b c")
	r.expect(t, 0, "hello from gometal", `args=["a" "b c"]`, "GREETING=hi there",
		"gometal: kernel ready in", "wd=/ err=<nil>")
}

func TestGoroutines10000(t *testing.T) {
	t.Parallel()
	gometal(t, "run", "./tests/progs/goroutines").expect(t, 0, "ring: 10000", "sum: 50005000")
}

func TestGCStressBeyondGuestMemory(t *testing.T) {
	t.Parallel()
	// 1 GiB allocated in total in a 256 MiB guest.
	r := gometal(t, "run", "-m", "256M", "-timeout", "5m", "./tests/progs/gcstress", "--", "1024")
	r.expect(t, 0, "allocated 1024 MiB", "gcstress ok")
}

func TestSleepAndClocks(t *testing.T) {
	t.Parallel()
	gometal(t, "run", "./tests/progs/sleep").expect(t, 0, "order: 100 200 300", "sleep ok")
}

func TestNilDereferenceRecovers(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/nilderef")
	r.expect(t, 0, "recovered: runtime error: invalid memory address or nil pointer dereference", "nilderef ok")
	if n := strings.Count(r.out, "recovered:"); n != 3 {
		t.Errorf("%d recoveries, want 3", n)
	}
}

func TestNilDereferenceUnrecovered(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/nilderef", "--", "unrecovered")
	r.expect(t, 2, "panic: runtime error: invalid memory address or nil pointer dereference",
		"[signal SIGSEGV: segmentation violation", "main.deref")
}

func TestPanicExitStatus2(t *testing.T) {
	t.Parallel()
	gometal(t, "run", "./tests/progs/panic").expect(t, 2, "panic: boom from gometal", "goroutine 1 [running]:", "main.main()")
}

func TestOSExit3(t *testing.T) {
	t.Parallel()
	gometal(t, "run", "./tests/progs/exit3").expect(t, 3, "exiting with 3")
}

func TestReadInitFromInitramfs(t *testing.T) {
	t.Parallel()
	gometal(t, "run", "./tests/progs/readinit").expect(t, 0, "elf=true", "entry: init false", "readinit ok")
}

func TestEnteredAtEL2(t *testing.T) {
	t.Parallel()
	// virtualization=on starts the kernel at EL2, as the Pi's firmware does.
	r := gometal(t, "run", "-machine", "virt,virtualization=on", "./tests/progs/hello")
	r.expect(t, 0, "entered at EL2", "hello from gometal")
}

func TestKernelPanicIsSymbolized(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-bootarg", "gometal.crashtest=1", "./tests/progs/hello")
	r.expect(t, 125, "gometal: kernel panic: nil dereference in the kernel", "pc=0x", "far=0x",
		"github.com/gometal/gometal/kernel.Start+", "kernel/start_arm64.go:")
}

func TestTimeoutKillsQEMU(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	os.WriteFile(src, []byte("package main\nimport \"time\"\nfunc main() { time.Sleep(time.Hour) }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module sleeper\ngo 1.26\n"), 0o644)
	r := gometal(t, "run", "-timeout", "5s", dir)
	r.expect(t, 124, "gometal: timeout after 5s; QEMU killed")
}

// QEMU killed from outside while the guest runs: gometal says so in one
// line and exits 128+9, as a shell would, so a CI wrapping it fails.
func TestKilledQEMUExitsNonZero(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\nimport (\"fmt\"; \"time\")\nfunc main() { fmt.Println(\"sleeping\"); time.Sleep(time.Hour) }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module sleeper\ngo 1.26\n"), 0o644)
	cmd := exec.Command(gometalBin, "run", "-timeout", "5m", dir)
	cmd.Dir = repoRoot
	var out bytes.Buffer
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if sc.Text() == "sleeping" {
			break
		}
	}
	if !killQEMU(cmd) {
		cmd.Process.Kill()
		t.Fatal("found no QEMU child of gometal")
	}
	go io.Copy(io.Discard, stdout)
	err := cmd.Wait()
	status := -1
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	}
	if status != 137 || !strings.Contains(out.String(), "gometal: QEMU was killed by signal 9 (killed); the guest's run did not finish") {
		t.Errorf("status %d, want 137 and the signal named; output:\n%s", status, out.String())
	}
}

// killQEMU kills the QEMU that gometal command cmd started with
// SIGKILL, as a host's crash or an OOM killer would: it reports whether
// it found one. QEMU is gometal's child (in a process group of its own),
// started by whichever of its threads ran os/exec: every task is looked
// in.
func killQEMU(cmd *exec.Cmd) bool {
	var kids []byte
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", cmd.Process.Pid))
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		kids = append(kids, b...)
		kids = append(kids, ' ')
	}
	killed := false
	for _, f := range strings.Fields(string(kids)) {
		pid, _ := strconv.Atoi(f)
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); strings.HasPrefix(string(comm), "qemu-system") {
			killed = syscall.Kill(pid, syscall.SIGKILL) == nil || killed
		}
	}
	return killed
}

func TestRejectsBadApps(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	os.WriteFile(text, []byte("not a program\n"), 0o644)
	amd64 := filepath.Join(dir, "amd64.elf")
	b := exec.Command("go", "build", "-o", amd64, "./tests/progs/exit3")
	b.Dir = repoRoot
	b.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := b.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	cases := []struct{ path, want string }{
		{filepath.Join(dir, "missing"), "does not exist"},
		{text, "is not an ELF executable"},
		{amd64, "need arm64; build with GOOS=linux GOARCH=arm64 CGO_ENABLED=0"},
	}
	for _, c := range cases {
		r := gometal(t, "run", c.path)
		r.expect(t, 2, c.want)
		if strings.Contains(r.out, "goroutine ") {
			t.Errorf("a Go stack trace reached the user:\n%s", r.out)
		}
		if n := strings.Count(strings.TrimSpace(r.out), "\n"); n != 0 {
			t.Errorf("want one line, got:\n%s", r.out)
		}
	}
}

func TestHTTPOverLoopback(t *testing.T) {
	t.Parallel()
	gometal(t, "run", "./tests/progs/httploop").expect(t, 0, "httploop ok: 20 requests served on 127.0.0.1:")
}

// The README's first command boots this program.
func TestExampleHello(t *testing.T) {
	t.Parallel()
	gometal(t, "run", "./examples/hello").expect(t, 0, "Hello from Go on gometal!",
		"sum of squares 1..100 over 4 goroutines: 338350", "GC cycles:")
}

func TestStdinFromHost(t *testing.T) {
	t.Parallel()
	r := gometalInput(t, "first line\nsecond\nquit\n", "run", "./tests/progs/stdin")
	r.expect(t, 0, `got "first line"`, `got "second"`, "stdin ok: 2 lines")
}

// The kernel answers garbage from the app with errors, never a fault.
func TestHostileSyscalls(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/badsyscalls")
	r.expect(t, 0, "survived", "badsyscalls ok")
	if strings.Contains(r.out, "kernel panic") {
		t.Error("the kernel panicked")
	}
}

func TestTmpfsWritableFiles(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/tmpfs")
	r.expect(t, 0, `log="one\ntwo\n"`, "sparse size 10003 truncated 5000", "entries: [big link log sparse z]", "initramfs file appended, renamed, removed", "tmpfs ok")
	if strings.Contains(r.out, "FAIL") {
		t.Error("the program reported a failure")
	}
}

func TestAuxv(t *testing.T) {
	t.Parallel()
	gometal(t, "run", "./tests/progs/auxv").expect(t, 0, "pagesz=4096", "auxv ok")
}

// Each thread keeps its own FPCR and FPSR, and its own TPIDR_EL0 (which
// the way back writes only when it changed), across system calls
// answered before any lock (which leave the FP state in the registers),
// blocking calls that switch threads, and sched_yield, with more threads
// than cores. With the TPIDR_EL0 write left out of the way back it fails
// at once ("TPIDR_EL0=0x0, want 0x7e1500000003").
func TestFPStatePerThread(t *testing.T) {
	t.Parallel()
	gometal(t, "run", "./tests/progs/fpstate").expect(t, 0, "fpstate ok: 8 threads x 300 rounds kept their FPCR, FPSR and TPIDR_EL0")
}

// A fault with no handler ends the app with the kernel's own report.
func TestUnhandledFaultReport(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/sigdfl")
	r.expect(t, 139, "gometal: app killed by SIGSEGV (signal 11) addr=0x18 pc=0x")
	if strings.Contains(r.out, "FAIL") {
		t.Error("the program kept running after the fault")
	}
}

// GICv3 (-M virt,gic-version=3): timers and console input interrupts,
// entered at EL1 and at EL2.
func TestGICv3(t *testing.T) {
	t.Parallel()
	gometal(t, "run", "-machine", "virt,gic-version=3", "./tests/progs/sleep").expect(t, 0, "sleep ok")
	r := gometalInput(t, "abc\nquit\n", "run", "-machine", "virt,gic-version=3,virtualization=on", "./tests/progs/stdin")
	r.expect(t, 0, "entered at EL2", `got "abc"`, "stdin ok: 1 lines")
}

// Input that is already waiting when the app starts reading must not be
// lost (a race between draining the UART and acknowledging it once was).
func TestStdinRepeatedly(t *testing.T) {
	t.Parallel()
	for i := 0; i < 4; i++ {
		gometalInput(t, "x\ny\nquit\n", "run", "-timeout", "30s", "./tests/progs/stdin").expect(t, 0, "stdin ok: 2 lines")
	}
}

func TestMemorySyscalls(t *testing.T) {
	t.Parallel()
	gometal(t, "run", "./tests/progs/mm").expectClean(t, 0, "mm ok")
}

// dup, dup3 and F_DUPFD share one open-file description (offset, status
// flags, an eventfd's counter, an epoll registration that outlives one of
// two dups); close-on-exec stays per descriptor. The same program passes
// as /init on Debian's Linux (checked by hand with the bench's guest).
func TestDupSharesOpenFileDescription(t *testing.T) {
	t.Parallel()
	gometal(t, "run", "./tests/progs/fdshare").expectClean(t, 0, "fdshare ok")
}

// The root file system has what a Linux program expects: /dev's memory
// devices (opened by device number), /etc/passwd and /etc/group for
// os/user, /etc/hosts, and a sticky, writable /tmp.
func TestRootSkeleton(t *testing.T) {
	t.Parallel()
	gometal(t, "run", "./tests/progs/devices").expectClean(t, 0, "devices ok")
}

// FIFOs on the tmpfs (mkfifo), with the output Linux gives the same
// program: a blocking open waits for its partner, a non-blocking writer
// without a reader is ENXIO, data then EOF, O_RDWR never waits.
func TestTmpfsFIFO(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/tmpfs", "--", "fifo")
	r.expect(t, 0, "fifo mode: true", "writer without reader: true", `read "through the fifo" then EOF`, "O_RDWR: x", "fifo ok")
}

// AF_UNIX stream sockets: a path (a socket file; found by its inode) and
// an abstract name, bytes both ways, the names each end sees, socketpair
// and Linux's errors. The program prints the same lines on the host's
// Linux.
func TestUnixSockets(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/unixsock")
	r.expect(t, 0, "socket file: true", "listener addr: true", "client remote: true",
		"server local is the listener's: true, remote unnamed: true",
		`echoed: "hello over a path"`, "bind in use: true", "open socket file: true",
		"dial missing: true", "dial a file: true", "dial a socket that does not listen: true",
		"file gone with the listener: true", "dial after close: true",
		"abstract addr: @gometal-abstract", `echoed: "hello over an abstract name"`,
		`pair: "through a pair" then EOF`, "inet pair: true", "unixsock ok")
}

// A full tmpfs answers ENOSPC, as Linux's does at its size limit (default
// half of memory; gometal.tmpfs_size=), and the app keeps its memory.
func TestTmpfsFullIsENOSPC(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-bootarg", "gometal.tmpfs_size=16M", "./tests/progs/tmpfs", "--", "fill")
	r.expect(t, 0, "filled 15 MiB: write /tmp/fill: no space left on device", "tmpfs fill ok")
	r = gometal(t, "run", "-m", "192M", "./tests/progs/tmpfs", "--", "fill")
	r.expect(t, 0, "no space left on device", "tmpfs fill ok")
	logLine(t, r.out, `filled \d+ MiB`)
}

// accept on a blocking socket blocks until a client connects; a signal
// to the blocked thread runs its handler and accept waits on (Go's
// handlers are SA_RESTART: the stats show the call interrupted and
// restarted). The same program passes as /init on Debian's Linux.
func TestBlockingAcceptWaitsForConnect(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-env", "GOMETAL_STATS=1", "./tests/progs/accept")
	r.expect(t, 0, "accept ok")
	if !regexp.MustCompile(`interrupted=[1-9]\d* restarted=[1-9]`).MatchString(r.out) {
		t.Errorf("the stats show no interrupted and restarted call:\n%s", r.out)
	}
}

// A blocking read of a pipe, of a socket and of the console all wait
// through the one file-layer path (vfs.Wait): the stats count one wait of
// each kind. The console line is typed only once the guest says it is
// reading, so that its read must wait too. (tests/progs/accept passes as
// /init on Linux too.)
func TestBlockingReadsShareOneWaitPath(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(gometalBin, "run", "-env", "GOMETAL_STATS=1", "./tests/progs/accept", "--", "waits")
	cmd.Dir = repoRoot
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(out.String(), "reading the console") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the guest never read the console:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // the read is waiting by now
	io.WriteString(stdin, "typed line\n")
	stdin.Close()
	err = cmd.Wait()
	r := result{out.String(), cmd.ProcessState.ExitCode()}
	if err != nil && r.status == 0 {
		t.Fatal(err)
	}
	r.expect(t, 0, `pipe read "pipe data" after waiting`, `socket read "socket data" after waiting`, `console read "typed line\n"`, "waits ok")
	m := regexp.MustCompile(`stats: waits:.*`).FindString(r.out)
	for _, kind := range []string{"pipe", "socket", "console"} {
		if !regexp.MustCompile(` ` + kind + `=[1-9]`).MatchString(m) {
			t.Errorf("the stats count no %s wait: %q", kind, m)
		}
	}
}

// The kernel answers hostile system calls like Linux and stays well:
// 300,000 calls with bad pointers, lengths, descriptors and flags from 16
// threads locked to OS threads on 4 cores, then goroutines, timers,
// tmpfs and pipes must still work (tests/progs/sysfuzz, which passes as
// /init on Debian's Linux too). The seed changes with the day, so the
// suite covers more over time; a failure names it.
//
// The mix makes processes too: forks and vforks whose children fuzz,
// waits, signals to children and groups, execs that fail, and the calls
// that set the clocks; afterwards every child must be reaped, the kernel
// must hold no other process and no more memory than before. Forks of a
// 16-thread program are slow under TCG (each copies its page tables and
// flushes every core's TLB, then its writes fault copy-on-write), so make
// test runs 100,000 calls (75 s alone on a 2-core host, more beside the
// other tests) and make test-long the 300,000 the issue asks for (2.5 to
// 4.5 minutes alone there).
func TestSyscallFuzzer(t *testing.T) {
	t.Parallel()
	seed := fmt.Sprint(time.Now().YearDay())
	calls, timeout := "100000", "5m"
	if os.Getenv("GOMETAL_STD_FULL") == "1" {
		calls, timeout = "300000", "15m"
	}
	r := gometal(t, "run", "-timeout", timeout, "-bootarg", "quiet", "./tests/progs/sysfuzz", "--", calls, "16", seed)
	r.expect(t, 0, "sysfuzz: "+calls+" calls answered", "reaped at the end, none left", "memory: the kernel holds",
		"afterwards: 1 MiB through tmpfs and a pipe intact", "sysfuzz ok")
	logLine(t, r.out, `sysfuzz: \d+ calls answered in .*`)
	logLine(t, r.out, `processes: .*`)
	logLine(t, r.out, `memory: .*`)
	if strings.Contains(r.out, "kernel panic") {
		t.Errorf("the kernel panicked (seed %s)", seed)
	}
	if t.Failed() {
		t.Logf("reproduce: bin/gometal run -timeout %s ./tests/progs/sysfuzz -- %s 16 %s", timeout, calls, seed)
	}
}

// Descriptors passed over AF_UNIX connections (tests/progs/scmrights):
// every line below is what the same program printed on Debian's Linux
// 6.1 (which bytes arrive with which descriptors on a stream, the
// received descriptor being the same open pipe, read(2) closing what it
// passes over, MSG_CMSG_CLOEXEC, MSG_CTRUNC, EBADF, seqpacket records).
func TestSCMRights(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/scmrights")
	r.expect(t, 0,
		`scmrights: stream recvmsg 1: "a", 1 descriptors`,
		`scmrights:   a write through the received descriptor comes out of the pipe: "via"`,
		`scmrights: stream recvmsg 2: "bc", 1 descriptors`,
		`scmrights:   a write through the received descriptor comes out of the pipe: "via"`,
		`scmrights: stream recvmsg 3: "d", 0 descriptors`,
		`scmrights: read(2) of a message with a descriptor: "e"; the pipe then reads EOF`,
		`scmrights: MSG_CMSG_CLOEXEC: FD_CLOEXEC true`,
		`scmrights: no room for control data: "g", 0 descriptors (MSG_CTRUNC)`,
		`scmrights: sending descriptor 999 (not open): EBADF`,
		`scmrights: a malformed control buffer: <nil>`,
		`scmrights: seqpacket recvmsg 1: "rec1", 2 descriptors`,
		`scmrights:   a write through the received descriptor comes out of the pipe: "via"`,
		`scmrights:   a write through the received descriptor comes out of the pipe: "via"`,
		`scmrights: seqpacket recvmsg 2: "rec2", 0 descriptors`,
		`scmrights: datagram recvmsg 1: "dg1", 1 descriptors`,
		`scmrights: datagram recvmsg 2: "dg2", 0 descriptors`,
		`scmrights: read(2) of a datagram with a descriptor: "dg3"; the pipe then reads EOF`,
		`scmrights: a datagram with a descriptor still queued when its receiver closes: the pipe reads EOF`,
		`scmrights: datagram pair recvmsg 1: "pair", 1 descriptors`,
		`scmrights: done`)
}

// Credentials over AF_UNIX sockets (tests/progs/scmrights creds):
// SCM_CREDENTIALS and SO_PASSCRED between the program and children it
// runs as root and as uid 1000, on streams (a read stops where the
// sender changes), seqpacket and datagram socketpairs and named
// datagram sockets; which pids and ids a sender may name, truncation,
// MSG_CMSG_CLOEXEC; SO_PEERCRED. Its checks print the same lines as on
// Debian's Linux 6.1.
func TestSCMCredentials(t *testing.T) {
	t.Parallel()
	expectLikeLinux(t, "scmrights", "creds")
}

// tests/progs/filemap maps tmpfs files and the program's own initramfs
// file (MAP_SHARED and MAP_PRIVATE writes, write(2) seen through a
// mapping, close and unlink while mapped, a fork sharing a mapping,
// SIGBUS past the end after a truncate, msync, mprotect, the errors,
// /dev/zero, /proc/self/maps); it prints the same lines as on Debian's
// Linux 6.1.
func TestFileMapLikeLinux(t *testing.T) {
	t.Parallel()
	expectLikeLinux(t, "filemap")
}

// tests/progs/splice moves bytes between files, pipes and sockets with
// sendfile, splice, tee and copy_file_range, and through Go's io.Copy
// paths that use them; it prints the same lines as on Debian's Linux
// 6.1.
func TestSpliceLikeLinux(t *testing.T) {
	t.Parallel()
	expectLikeLinux(t, "splice")
}

// tests/progs/clockset sets clocks (clock_settime, settimeofday,
// adjtimex, clock_adjtime) with good and bad clocks and arguments, as
// root and as another user, and watches what waits for a wall-clock
// time follow the clock (an absolute sleep, a FUTEX_CLOCK_REALTIME wait,
// CLOCK_REALTIME timerfds, TFD_TIMER_CANCEL_ON_SET); it prints the same
// lines as on Debian's Linux 6.1.
func TestClockSetLikeLinux(t *testing.T) {
	t.Parallel()
	expectLikeLinux(t, "clockset")
}

// tests/progs/recvflags reads every kind of socket with MSG_PEEK and
// MSG_DONTWAIT; it prints the same lines as on Debian's Linux 6.1.
func TestRecvFlagsLikeLinux(t *testing.T) {
	t.Parallel()
	expectLikeLinux(t, "recvflags")
}

// tests/progs/sleeps makes nanosleep and clock_nanosleep calls with good
// and bad arguments, which the kernel answers without its big lock
// where it can (kernel/linux's lockFreeSleep) and under it where it
// cannot (a timespec on a page not yet mapped); no sleep ends early,
// and the lines are Debian's Linux 6.1's.
func TestSleepsLikeLinux(t *testing.T) {
	t.Parallel()
	expectLikeLinux(t, "sleeps")
}

// expectLikeLinux runs tests/progs/PROG with args and compares the
// lines it prints that start "PROG: " with tests/testdata/PROG-linux.txt
// (PROG-ARGS-linux.txt with args, joined by "-"), the same program's
// lines as it printed them on Debian's Linux 6.1 (the benchmark's Linux
// guest, booted nokaslr).
func expectLikeLinux(t *testing.T, prog string, args ...string) {
	t.Helper()
	name, run := prog, []string{"run", "./tests/progs/" + prog}
	if len(args) > 0 {
		name += "-" + strings.Join(args, "-")
		run = append(append(run, "--"), args...)
	}
	want, err := os.ReadFile("testdata/" + name + "-linux.txt")
	if err != nil {
		t.Fatal(err)
	}
	r := gometal(t, run...)
	var got []string
	for _, l := range strings.Split(r.out, "\n") {
		if l = strings.TrimRight(l, "\r"); strings.HasPrefix(l, prog+": ") {
			got = append(got, l)
		}
	}
	if r.status != 0 || strings.Join(got, "\n")+"\n" != string(want) {
		t.Errorf("exit status %d; the lines differ from Linux's:\n%s", r.status, lineDiff(strings.Split(strings.TrimSuffix(string(want), "\n"), "\n"), got))
	}
}

// lineDiff lists the lines of got that differ from want's, by number.
func lineDiff(want, got []string) string {
	var b strings.Builder
	for i := 0; i < max(len(want), len(got)); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			fmt.Fprintf(&b, "line %d:\n  Linux:   %q\n  gometal: %q\n", i+1, w, g)
		}
	}
	return b.String()
}

// Processes from inside /init (tests/progs/procs, whose every check
// prints the same on Debian's Linux 6.1 running it as init): PID 1 with
// parent 0, process group and session 0, setsid and setpgid; fork with
// copied memory and descriptors, vfork on the parent's memory; wait4 and
// waitid (WNOHANG, WNOWAIT, ECHILD), SIGCHLD; SIGTERM and SIGKILL ending
// a child; an orphan adopted by PID 1; os/exec running a program with
// its arguments, environment and exit status, close-on-exec, execve's
// errors (ENOENT, EACCES, ENOTDIR, ENOEXEC), a #! script and a program
// the app wrote itself, os.Executable in the child; ETXTBSY for the
// running program; SIGSTOP and SIGCONT as wait4 reports them; pidfds
// (readable at the exit, pidfd_send_signal, waitid(P_PIDFD)).
func TestProcesses(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/procs")
	r.expect(t, 0, "ok pid", "ok setsid", "ok fork-copy", "ok vfork-shared", "ok waitid-wnowait", "ok sigchld",
		"ok wait4-status-efault-reaps", "ok waitid-info-efault-reaps", "ok wait4-stop-efault",
		"ok kill-killed", "ok sigqueue-eperm-0", "ok sigqueue-queue", "ok orphan", "ok exec-args", "ok exec-status", "ok exec-cloexec", "ok exec-enoexec",
		"ok exec-script", "ok exec-written", "ok exec-executable", "ok exec-text-mapped", "ok exec-etxtbsy", "ok stop", "ok cont", "ok stop-kill",
		"ok pidfd-ready", "ok pidfd-waitid", "ok pidfd-self-echild", "ok pidfd-getfd", "ok pidfd-getfd-shared",
		"ok exec-nested-5", "ok exec-nested-6", "ok prctl-name", "ok pdeathsig-process", "ok pdeathsig-thread",
		"ok rusage-wait", "ok rusage-maxrss", "ok cputime-clocks", "ok rt-queue", "ok clone3",
		"ok clone3-vfork", "ok clone3-go-cgroup", "procs ok")
	if strings.Contains(r.out, "FAIL") {
		t.Errorf("a check failed:\n%s", r.out)
	}
}

// The console's job control (tests/progs/procs jobctl, every line of
// which Debian's Linux 6.1 prints too, running the program as init): PID
// 1 has no controlling terminal (/dev/tty is ENXIO); a session leader
// takes the console with TIOCSCTTY (opening /dev/console gives none);
// TIOCGPGRP, TIOCSPGRP and TIOCGSID with Linux's errors; a background
// read through /dev/tty stops its group with SIGTTIN and runs again
// after SIGCONT, and is EIO with SIGTTIN ignored or blocked or in an
// orphaned group; TIOCSPGRP and TCSETS from the background, and with
// TOSTOP a write, stop with SIGTTOU unless it is ignored; TIOCNOTTY hangs the foreground group up
// (SIGHUP, SIGCONT); TIOCSCTTY 1 takes another session's terminal; and a
// leader's exit hangs up its foreground group and wakes its orphaned
// stopped one.
func TestJobControl(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-timeout", "120s", "./tests/progs/procs", "--", "jobctl")
	r.expect(t, 0, "ok jobctl-devtty-enxio", "ok jobctl-console-noctty", "ok jobctl-tiocsctty", "ok jobctl-tiocgpgrp",
		"ok jobctl-tiocgsid", "ok jobctl-devtty", "ok jobctl-tiocspgrp-esrch", "ok jobctl-tiocspgrp-eperm", "ok jobctl-tiocspgrp",
		"ok jobctl-read-orphaned", "ok jobctl-tiocspgrp-orphaned", "ok jobctl-sigttin", "ok jobctl-sigttin-restart",
		"ok jobctl-read-ignored", "ok jobctl-read-blocked", "ok jobctl-sigttou", "ok jobctl-sigttou-tcsets",
		"ok jobctl-sigttou-ignored", "ok jobctl-tostop", "ok jobctl-tostop-ignored", "ok jobctl-tiocnotty", "ok jobctl-tiocnotty-gone", "ok jobctl-tiocsctty-taken",
		"ok jobctl-tiocsctty-steal", "ok jobctl-stolen", "ok jobctl-exit-hangup", "ok jobctl-exit-orphaned",
		"ok jobctl-exit-released", "procs ok")
	if strings.Contains(r.out, "FAIL") {
		t.Errorf("a check failed:\n%s", r.out)
	}
}

// Ctrl-C typed at the terminal goes to the console's foreground process
// group when a session holds the console, and not to PID 1; with none,
// to PID 1 (gometal's choice: Linux would signal nobody).
func TestConsoleInterrupt(t *testing.T) {
	t.Parallel()
	r := gometalCtrlCAt(t, []string{"./tests/progs/procs", "--", "intr"},
		"intr: type ^C for the foreground group", "intr: type ^C for PID 1")
	r.expect(t, 0, "ok intr-foreground", "ok intr-session", "ok intr-init", "procs ok")
}

// Fork shares memory copy-on-write (tests/progs/procs cow, xv6's
// cowtest): a 64 MiB parent forks for the price of its page tables, the
// child sees the parent's pages and its writes (its own and the
// kernel's through read(2)) stay its own, the parent's read(2) into a
// shared page stays the parent's, and 100 forks give their pages back.
// The cow lab grades it.
func TestCopyOnWriteFork(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/procs", "--", "cow")
	r.expect(t, 0, "ok cow-shared", "ok cow-child", "ok cow-parent", "ok cow-loop", "procs ok")
}

// /proc as programs read it (tests/progs/procfs): /proc/self and each
// process's stat (52 fields), status, cmdline, environ, comm, maps,
// exe, cwd, fd/ and task/, a child's directory alive, as a zombie and
// gone once reaped, a thread's hidden /proc/TID, the system-wide files
// in Linux's formats, and nothing made, written or removed there. Every
// line is what Linux 6.1 prints with the program as init.
func TestProcfs(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/procfs")
	r.expect(t, 0, "ok self", "ok exe", "ok stat-fields", "ok stat-ids", "ok status ^State", "ok maps", "ok fd-file",
		"ok fd-pipe", "ok fd-open", "ok task-status", "ok task-hidden", "ok child-zombie", "ok child-reaped",
		"ok meminfo SwapFree", "ok cpuinfo", "ok mounts", "ok ro-create", "ok fd-open-pipe", "ok fd-stat-pipe", "procfs ok")
	// The load average rises while threads run (and sysinfo says the same).
	r = gometal(t, "run", "./tests/progs/procfs", "--", "load")
	r.expect(t, 0, "ok loadavg-rises", "ok sysinfo-loads", "procfs ok")
	// The initramfs's /dev/fd and /dev/std* lead there too.
	r = gometal(t, "run", "./tests/progs/procfs", "--", "devfd")
	r.expect(t, 0, "ok dev-fd", "written to /dev/stdout", "ok dev-stdout", "procfs ok")
}

// Mounts as a program makes and sees them (tests/progs/mounts): tmpfs
// with size= and mode=, statfs, ENOSPC at the size, EXDEV across
// mounts, EBUSY while a working directory is in one, a read-only
// remount (EROFS), stacked mounts, a lazy unmount with a file open,
// noexec, bind and recursive bind mounts (".." and getcwd through
// them), /proc/mounts and mountinfo lines, devtmpfs's devices, mknod,
// sysfs's CPU lists and interfaces, a chrooted child, and ENODEV for
// the types gometal does not have.
func TestMounts(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/mounts")
	r.expect(t, 0, "ok tmpfs-line", "ok statfs", "ok tmpfs-full", "ok rename-exdev", "ok umount-busy", "ok umount-uncovers",
		"ok ro-create", "ok ro-write", "ok stack-below", "ok detach", "ok noexec", "ok bind-dotdot", "ok mountinfo-bind",
		"ok rbind", "ok umount-children-busy", "ok devtmpfs", "ok mknod-chr", "ok mknod-blk", "ok sysfs-cpus", "ok sysfs-lo", "ok chroot", "ok enodev cgroup2",
		"ok bad-option", "mounts ok")
}

// Advisory locks between processes (tests/progs/flock): fcntl record
// locks seen from a child (F_GETLK with the holder's pid), EAGAIN, a
// close of any descriptor dropping them, F_SETLKW waiting, EDEADLK,
// flock(2) per description, OFD locks, and bad arguments.
func TestFileLocks(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/flock")
	r.expect(t, 0, "ok getlk-other", "ok setlk-busy", "ok close-drops", "ok setlkw-waits", "ok edeadlk",
		"ok flock-other-desc", "ok flock-close-drops", "ok ofd", "flock ok")
}

// ppoll and pselect6 (tests/progs/poll): ready at once, a timeout that
// writes the time left and empties the sets, a wake-up by another
// thread's write, POLLERR and POLLNVAL, regular files always ready,
// EINVAL and EBADF, as on Linux.
func TestPoll(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/poll")
	r.expect(t, 0, "ok ppoll-timeout", "ok ppoll-wakes", "ok ppoll-nval", "ok pselect-timeout", "ok pselect-wakes",
		"ok pselect-ebadf", "poll ok")
}

// Pseudo-terminals (tests/progs/pty): github.com/creack/pty runs a
// child on a pty, which has it as its controlling terminal, reads a
// line typed into the master with its echo, gets SIGINT from Ctrl-C and
// SIGWINCH from a resize, reads raw bytes and Ctrl-D's EOF, and the
// master reads EIO once it is gone; and /dev/ptmx, TIOCGPTN,
// TIOCSPTLCK, /dev/pts/N, TIOCGPTPEER and devpts in /proc/mounts by
// raw calls. The lines are Linux's as init.
func TestPseudoTerminals(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/pty")
	r.expect(t, 0, "ok tiocgptn", "ok locked-open-eio", "ok pts-listed", "ok unlocked-open", "ok pts-stat",
		"ok fd-link", "ok master-tcgets", "ok master-tcsets", "ok slave-output-onlcr", "ok master-eagain",
		"ok master-poll", "ok tiocgptpeer", "ok master-eio-after-close", "ok pts-removed", "ok proc-mounts",
		"ok child-terminal", "ok line-and-echo", "ok ctrl-c-sigint", "ok setsize-sigwinch", "ok raw-mode",
		"ok ctrl-d-eof", "ok child-status", "ok master-eio", "pty ok")
}

// The kernel log (tests/progs/klog): syslog(2) as dmesg calls it, with
// the boot lines in it although quiet kept them off the console, and
// /dev/kmsg's records, writes, seeks and EAGAIN, in Linux's formats.
func TestKernelLog(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-bootarg", "quiet", "./tests/progs/klog")
	r.expect(t, 0, "ok boot-lines", "ok kmsg-first", "ok kmsg-eagain", "ok kmsg-write", "ok kmsg-escape",
		"ok syslog-sees-write", "ok clear", "ok after-clear", "klog ok")
	if strings.Contains(r.out, "cores: ") {
		t.Errorf("quiet printed the boot lines:\n%s", r.out)
	}
}

// ASIDs roll over and every process still sees only its own memory
// (tests/progs/procs asid): 256 processes, 8 at a time, each checking a
// word of its own across 100 yields, with the ASID space forced down to
// 15 (gometal.asidbits=4), so the generation begins anew every few
// processes. QEMU's TCG drops its TLB whenever TTBR0's ASID changes, so
// this checks the allocator's bookkeeping and the switch path in a real
// run; TestASIDRollover in kernel/mm checks the TLB rules on a model.
func TestASIDRolloverProcesses(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-bootarg", "gometal.asidbits=4", "-env", "GOMETAL_STATS=1", "./tests/progs/procs", "--", "asid")
	r.expect(t, 0, "ok asid-own-memory", "procs ok")
	if n := r.counter(t, `asid-rollovers=(\d+)`); n < 10 {
		t.Errorf("%d ASID rollovers for 256 processes over 15 ASIDs; want at least 10", n)
	}
}

// A fork bomb meets the process table's limit: fork answers EAGAIN,
// the kernel and PID 1 live on, and once the children are reaped a
// program runs again.
func TestForkBomb(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/procs", "--", "bomb")
	r.expect(t, 0, "bomb: 63 children, then resource temporarily unavailable", "ok bomb-eagain", "ok bomb-reaped", "ok bomb-after", "procs ok")
}

// Spawning, exiting and reaping gives back what it took: the free pages
// after two rounds of exec+fork cycles are what they were after one
// (tests/progs/procs memory; make test-long runs 2,500 a round: 10,000
// processes made and reaped in all).
func TestProcessMemoryReturns(t *testing.T) {
	t.Parallel()
	cycles, timeout := "100", "10m"
	if os.Getenv("GOMETAL_STD_FULL") == "1" {
		cycles, timeout = "2500", "60m"
	}
	r := gometal(t, "run", "-timeout", timeout, "-env", "PROCS_CYCLES="+cycles, "./tests/progs/procs", "--", "memory")
	r.expect(t, 0, "ok memory-returns", "procs ok")
	logLine(t, r.out, `memory: \d+ cycles .*`)
}

// Out of memory, the kernel kills the process using the most (a child
// that allocates without end), says which, and the rest live on.
func TestOOMKillsTheBiggest(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-m", "256M", "./tests/progs/procs", "--", "oom")
	r.expect(t, 0, "gometal: out of memory faulting in", "(init) using", "ok oom-killed", "ok oom-wait-answer", "procs ok")
	logLine(t, r.out, `gometal: out of memory .*`)
}

// A run that outlives its -timeout says where every thread was: the
// kernel prints its state dump shortly before the CLI kills QEMU
// (gometal.dumpafter). tests/progs/procs "hang" blocks its main thread
// reading a pipe nobody writes.
func TestTimeoutDumpsState(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-timeout", "8s", "./tests/progs/procs", "--", "hang")
	r.expect(t, 124, "gometal: state dump: the run's time is nearly up", "gometal:   process 1 (init) parent 0",
		"waiting for a file", "gometal: timeout after 8s; QEMU killed")
	logLine(t, r.out, `gometal:     thread \d+: blocked in system call 63\(.*`)
}
