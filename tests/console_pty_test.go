package tests

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// waitFor waits until out holds s, failing after d.
func waitFor(t *testing.T, out *lockedBuffer, s string, d time.Duration) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if strings.Contains(out.String(), s) {
			return
		}
	}
	t.Fatalf("no %q after %v in:\n%s", s, d, out.String())
}

// startOnPTY runs gometal run args at a terminal, a pty of size ws (nil:
// the pty's own), as a user would interactively; out collects what the
// terminal shows. The pty closes when the test ends.
func startOnPTY(t *testing.T, ws *pty.Winsize, args ...string) (*exec.Cmd, *os.File, *lockedBuffer) {
	t.Helper()
	cmd := exec.Command(gometalBin, append([]string{"run", "-timeout", "3m"}, args...)...)
	cmd.Dir = repoRoot
	f, err := pty.StartWithSize(cmd, ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	out := new(lockedBuffer)
	go io.Copy(out, f)
	return cmd, f, out
}

// An interactive run, at a terminal (a pty): Ctrl-A b sends the UART a
// BREAK through QEMU's multiplexer and t then asks the kernel's SysRq
// for its state dump, while the program hangs; Ctrl-A x ends the run.
func TestConsoleSysRq(t *testing.T) {
	t.Parallel()
	cmd, f, out := startOnPTY(t, nil, "./tests/progs/procs", "--", "hang")
	waitFor(t, out, "hanging", 2*time.Minute)
	f.Write([]byte("\x01bt"))
	waitFor(t, out, "gometal: state dump: SysRq: show-task-states", time.Minute)
	waitFor(t, out, "process 1 (init)", 10*time.Second)
	f.Write([]byte("\x01x"))
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("after Ctrl-A x: %v, want exit status 130\n%s", err, out.String())
	}
}

// SysRq o powers the machine off, as Linux's sysrq_poweroff_op: a hung
// run ends, with status 0 (as reboot(POWER_OFF)) and its kernel trace
// written.
func TestConsoleSysRqPowerOff(t *testing.T) {
	t.Parallel()
	trace := filepath.Join(t.TempDir(), "hang.trace")
	cmd, f, out := startOnPTY(t, nil, "-trace", trace, "./tests/progs/procs", "--", "hang")
	waitFor(t, out, "hanging", 2*time.Minute)
	f.Write([]byte("\x01bo"))
	waitFor(t, out, "gometal: sysrq: Power Off", time.Minute)
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SysRq o: %v, want exit status 0\n%s", err, out.String())
	}
	if st, err := os.Stat(trace); err != nil || st.Size() == 0 {
		t.Errorf("no kernel trace written after SysRq o: %v\n%s", err, out.String())
	}
}

// The console as a terminal, from a host pty (tests/progs/rawkeys): the
// guest learns the pty's size (TIOCGWINSZ); a cooked line is echoed and
// edited ("hx", DEL, "i", Enter reads "hi\n", the host sees "hx\b \bi"
// and CR NL); in raw mode (x/term's MakeRaw) keys come unechoed and ^C
// is a byte; a VMIN 0, VTIME 3 read gives 0 after 0.3 s; cooked again,
// ^U kills the line. Linux's n_tty does the same (kernel/tty's tests
// cite its functions).
func TestTerminalModes(t *testing.T) {
	t.Parallel()
	cmd, f, out := startOnPTY(t, &pty.Winsize{Rows: 33, Cols: 101}, "./tests/progs/rawkeys")
	waitFor(t, out, "winsize 33x101", 2*time.Minute)

	waitFor(t, out, "cooked: type a line\r\n", time.Minute)
	f.Write([]byte("hx\x7fi\r"))
	waitFor(t, out, `line "hi\n" <nil>`, time.Minute)
	waitFor(t, out, "hx\b \bi\r\n", time.Second)

	waitFor(t, out, "raw: type keys\r\n", time.Minute)
	f.Write([]byte("q\x03\r"))
	waitFor(t, out, `keys "q\x03\r"`, time.Minute)
	if s := out.String(); !strings.Contains(s, "raw: type keys\r\nkeys") {
		t.Errorf("raw keys were echoed:\n%q", s)
	}
	waitFor(t, out, "vtime read 0 <nil>, waited true", time.Minute)

	waitFor(t, out, "cooked again: type a line\r\n", time.Minute)
	f.Write([]byte("ab\x15cd\r"))
	waitFor(t, out, `line "cd\n" <nil>`, time.Minute)
	waitFor(t, out, "rawkeys ok", time.Minute)
	if err := cmd.Wait(); err != nil {
		t.Errorf("gometal run: %v\n%s", err, out.String())
	}
}

// The runner ends QEMU when it is itself ended: SIGTERM or SIGHUP (the
// terminal closing) or SIGINT make it kill QEMU and exit 128+signal, and
// SIGKILL, which it cannot catch, kills QEMU through Pdeathsig. Before,
// QEMU (in its own process group) ran on unwatched after the runner died.
func TestRunnerEndsQEMUWhenKilled(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGKILL} {
		name := fmt.Sprintf("gometal-sigtest-%d-%d", os.Getpid(), sig)
		cmd := exec.Command(gometalBin, "run", "-timeout", "3m", "-qemu-arg", "-name", "-qemu-arg", name, "./tests/progs/procs", "--", "hang")
		cmd.Dir = repoRoot
		out := new(lockedBuffer)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, out, "hanging", 2*time.Minute)
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		ee, _ := err.(*exec.ExitError)
		switch {
		case sig == syscall.SIGKILL:
		case ee == nil || ee.ExitCode() != 128+int(sig):
			t.Errorf("after %v: %v, want exit status %d\n%s", sig, err, 128+int(sig), out.String())
		case !strings.Contains(out.String(), "QEMU killed"):
			t.Errorf("after %v the runner did not say it killed QEMU:\n%s", sig, out.String())
		}
		deadline := time.Now().Add(10 * time.Second)
		for pid := processNamed(name); pid != 0; pid = processNamed(name) {
			if time.Now().After(deadline) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("QEMU still runs 10 s after the runner got %v", sig)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// processNamed is the PID of a process whose command line holds s, 0 if
// none does (what pgrep -f finds, read from /proc).
func processNamed(s string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), s) {
			return pid
		}
	}
	return 0
}

// fstat of the console's descriptors answers for the node they were
// opened from, as Linux's does: the boot descriptors 0-2 are the
// initramfs's /dev/console (st_dev, st_ino, what tty(1) looks for).
func TestConsoleFstatNode(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "./tests/progs/ttyjobs", "--", "ttyname")
	r.expect(t, 0, "ttyname /dev/console rdev 5:1")
}
