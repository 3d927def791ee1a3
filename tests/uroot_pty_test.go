package tests

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// shellSession is u-root's small gosh at a host terminal (a pty), typed
// at as a person types: each line goes in with "\r" (the Enter key) and
// the session waits for the next "$ " prompt.
type shellSession struct {
	t   *testing.T
	cmd *exec.Cmd
	f   *os.File
	out *lockedBuffer
}

// startShell boots gometal run -uroot -uroot-gosh small ARGS on a pty and
// waits for the first prompt. The small gosh reads whole lines, which the
// console's line discipline edits and echoes (docs/CONSOLE.md), so what
// the terminal shows is the transcript a person sees; the full gosh's
// editor redraws its line with escape sequences (TestURootFullGosh).
func startShell(t *testing.T, args ...string) *shellSession {
	t.Helper()
	urootImage(t) // the small gosh's image, built once for the parallel tests
	cmd, f, out := startOnPTY(t, &pty.Winsize{Rows: 40, Cols: 120}, append([]string{"-uroot", "-uroot-gosh", "small"}, args...)...)
	s := &shellSession{t, cmd, f, out}
	s.waitPrompt(0, 2*time.Minute) // the image is built by now: this is the boot
	return s
}

// waitPrompt waits until the output after from ends in the prompt and
// returns what came between.
func (s *shellSession) waitPrompt(from int, d time.Duration) string {
	s.t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if o := s.out.String()[from:]; strings.HasSuffix(o, "$ ") {
			return strings.TrimSuffix(o, "$ ")
		}
	}
	s.t.Fatalf("no prompt after %v in:\n%s", d, s.out.String()[from:])
	return ""
}

// typeLine types line and Enter, waits for the next prompt and returns
// the command's own output: what appeared after the line's echo.
func (s *shellSession) typeLine(line string) string {
	s.t.Helper()
	n := len(s.out.String())
	s.f.Write([]byte(line + "\r"))
	o := s.waitPrompt(n, time.Minute)
	echo := line + "\r\n"
	if !strings.HasPrefix(o, echo) {
		s.t.Fatalf("typed %q: the terminal shows %q, not its echo first", line, o)
	}
	return strings.ReplaceAll(o[len(echo):], "\r\n", "\n")
}

// expect types line and checks that its output holds each of want.
func (s *shellSession) expect(line string, want ...string) string {
	s.t.Helper()
	o := s.typeLine(line)
	for _, w := range want {
		if !strings.Contains(o, w) {
			s.t.Errorf("%s: no %q in:\n%s", line, w, o)
		}
	}
	return o
}

// interrupt runs sleep 100, types Ctrl-C and returns how long the prompt
// took to come back after the key; the shell must live on.
func (s *shellSession) interrupt() time.Duration {
	s.t.Helper()
	n := len(s.out.String())
	s.f.Write([]byte("sleep 100\r"))
	s.waitAfter(n, "sleep 100\r\n")
	// The busybox takes up to a second to start under load; ^C before
	// sleep runs would interrupt the shell's wait for it all the same.
	time.Sleep(2 * time.Second)
	start := time.Now()
	s.f.Write([]byte("\x03"))
	s.waitPrompt(n, time.Minute)
	took := time.Since(start)
	if o := s.out.String()[n:]; !strings.Contains(o, "^C") {
		s.t.Errorf("Ctrl-C was not echoed as ^C: %q", o)
	}
	s.expect("echo alive", "alive\n")
	return took
}

// waitAfter waits until the output after from holds want.
func (s *shellSession) waitAfter(from int, want string) {
	s.t.Helper()
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(s.out.String()[from:], want) {
			return
		}
	}
	s.t.Fatalf("no %q in:\n%q", want, s.out.String()[from:])
}

// exit types exit and checks that the run ends with status 0.
func (s *shellSession) exit() {
	s.t.Helper()
	s.f.Write([]byte("exit\r"))
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			s.t.Errorf("exit: %v\n%s", err, s.out.String())
		}
	case <-time.After(time.Minute):
		s.t.Fatalf("exit did not end the run:\n%s", s.out.String())
	}
}

// interruptLimit is how long the prompt may take to come back after
// Ctrl-C: the kernel delivers SIGINT at once (13 to 44 ms measured),
// but the 2-core host runs other people's QEMUs, which can hold a vCPU
// off for seconds.
const interruptLimit = 5 * time.Second

// u-root's shell at a terminal, through a host pty as a person types
// (issue 37): each command's own output is checked, in one boot on virt
// with -net isolated. tests/progs/ttyjobs is the guest program in /bin
// for raw mode and job control; its transcript is Linux's (run on the
// host through a pty: the same lines, in the same order).
func TestURootInteractive(t *testing.T) {
	t.Parallel()
	s := startShell(t, "-net", "isolated", "./tests/progs/ttyjobs")
	s.expect("echo hi", "hi\n")
	s.expect("ls /", "bbin\n", "bin\n", "dev\n", "etc\n", "proc\n", "tmp\n")
	s.expect("cat /etc/hosts", "127.0.0.1\tlocalhost")
	if o := s.typeLine("ls /bbin | wc -l"); atoi(o) < 100 {
		t.Errorf("ls /bbin | wc -l: %q, want over 100 commands", o)
	}
	s.expect("echo one > /tmp/r && echo two >> /tmp/r && wc -l < /tmp/r", "2\n")
	s.expect("cat /tmp/r", "one\ntwo\n")

	// ps: init is PID 1, the shell and ps in one session; /proc/self/stat
	// gives the parent (u-root's ps has no PPID column).
	shPid := strings.TrimSpace(s.typeLine("echo $$"))
	ps := s.expect("ps aux", "PID", "COMMAND")
	if !regexp.MustCompile(`(?m)^\s*1\s.*init`).MatchString(ps) {
		t.Errorf("ps aux: no PID 1 init:\n%s", ps)
	}
	if !regexp.MustCompile(`(?m)^\s*` + shPid + `\s.*(gosh|sh)`).MatchString(ps) {
		t.Errorf("ps aux: no shell with PID %s:\n%s", shPid, ps)
	}
	if !regexp.MustCompile(`(?m)^\s*\d+\s+` + shPid + `\s+` + shPid + `\s.*\sps\s*$`).MatchString(ps) {
		t.Errorf("ps aux: no ps:\n%s", ps)
	}
	stat := s.typeLine("cat /proc/self/stat")
	if f := strings.Fields(stat); len(f) < 4 || f[1] != "(cat)" || f[3] != shPid {
		t.Errorf("/proc/self/stat of cat: %q, want the parent %s (the shell)", stat, shPid)
	}

	// tty(1)'s search: fstat(0)'s st_dev and st_ino are the node the
	// console was opened from. The shell's descriptors are the boot ones,
	// opened from the initramfs's /dev/console, which init's devtmpfs
	// mount on /dev hides, so none matches (Linux's console_on_rootfs
	// gives the same); one opened from devtmpfs's /dev/console is found.
	s.expect("ttyjobs ttyname", "ttyname none rdev 5:1\n")
	s.expect("ttyjobs ttyname < /dev/console", "ttyname /dev/console rdev 5:1\n")
	s.expect("free", "Mem:")
	s.expect("uptime", "loadaverage: ")
	if o := s.typeLine("dmesg | head -n 3"); strings.Count(o, "\n") != 3 {
		t.Errorf("dmesg | head -n 3: %d lines:\n%s", strings.Count(o, "\n"), o)
	}
	s.expect("mount", "proc /proc proc", "sysfs /sys sysfs", "devtmpfs /dev devtmpfs", "tmpfs /tmp tmpfs", "devpts /dev/pts devpts")
	s.expect("df /tmp", "% /tmp")
	s.expect("ip a", "lo", "inet 127.0.0.1/8", "eth0", "inet 10.0.2.15/24")

	// kill: a background sleep, killed by its pid (wait without an
	// operand answers 0, in bash too); then no sleep is left.
	s.typeLine("sleep 100 &")
	if pid := atoi(s.typeLine("pidof sleep")); pid <= atoi(shPid) {
		t.Errorf("pidof sleep: %d", pid)
	}
	s.expect("kill $(pidof sleep); wait; echo status=$?", "status=0\n")
	s.expect("pidof sleep; echo none=$?", "none=1\n")

	took := s.interrupt()
	t.Logf("Ctrl-C to prompt: %v", took.Round(time.Millisecond))
	if took > interruptLimit {
		t.Errorf("Ctrl-C to prompt: %v, over %v", took, interruptLimit)
	}

	s.rawAndJobs()
	s.expect("echo still here", "still here\n")
	s.exit()
	if t.Failed() {
		fmt.Println(s.out.String())
	}
}

// atoi is the number s holds, -1 if none.
func atoi(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return -1
	}
	return n
}

// The same shell on the Raspberry Pi 4 (QEMU raspi4b), one session on
// its mini UART, the UART a Pi's header pins 8 and 10 carry, as a person
// at a serial terminal has it: QEMU's second serial port is a host pty's
// slave (QEMU's serial chardev makes it raw, as a serial line is), the test types into its
// master. The console is on both UARTs (TestRPi4MiniUART); gometal run's
// own terminal, the PL011, is a pty too, so the console is a terminal's
// (cooked, with echo) and that side is only read. Raw mode and job
// control run here too; -net isolated has no network device on the board.
func TestURootInteractiveRPi4(t *testing.T) {
	t.Parallel()
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close(); slave.Close() })
	mini := new(lockedBuffer)
	go io.Copy(mini, master)
	urootImage(t)
	cmd, _, pl011 := startOnPTY(t, &pty.Winsize{Rows: 40, Cols: 120}, "-uroot", "-uroot-gosh", "small", "-board", "rpi4",
		"-qemu-arg", "-chardev", "-qemu-arg", "serial,id=mini,path="+slave.Name(), "-qemu-arg", "-serial", "-qemu-arg", "chardev:mini",
		"./tests/progs/ttyjobs")
	s := &shellSession{t, cmd, master, mini}
	s.waitPrompt(0, 2*time.Minute) // the image is built by now: this is the boot
	s.expect("echo hi", "hi\n")
	s.expect("uname -m", "aarch64\n")
	if o := s.typeLine("ls /bbin | wc -l"); atoi(o) < 100 {
		t.Errorf("ls /bbin | wc -l: %q, want over 100 commands", o)
	}
	took := s.interrupt()
	t.Logf("Ctrl-C to prompt: %v", took.Round(time.Millisecond))
	if took > interruptLimit {
		t.Errorf("Ctrl-C to prompt: %v, over %v", took, interruptLimit)
	}
	s.rawAndJobs()
	s.exit()
	if !strings.Contains(pl011.String(), "$ echo hi\r\nhi\r\n") {
		t.Errorf("the PL011 does not show the session:\n%s", pl011.String())
	}
	if t.Failed() {
		fmt.Println(s.out.String())
	}
}

// rawAndJobs runs tests/progs/ttyjobs raw and jobs; the transcripts are
// Linux's (the same program through a pty on the host).
func (s *shellSession) rawAndJobs() {
	s.t.Helper()
	// Raw mode: three keys, ^C among them as a byte, unechoed; then
	// cooked mode again, whose line is echoed.
	t := s.t
	n := len(s.out.String())
	s.f.Write([]byte("ttyjobs raw\r"))
	s.waitAfter(n, "raw: type keys\r\n")
	s.f.Write([]byte("q\x03z"))
	s.waitAfter(n, "cooked: icanon true echo true; type a line\r\n")
	s.f.Write([]byte("hello\r"))
	o := s.waitPrompt(n, time.Minute)
	if want := "raw: type keys\r\nkeys \"q\\x03z\"\r\ncooked: icanon true echo true; type a line\r\nhello\r\nline \"hello\\n\" <nil>\r\n"; !strings.HasSuffix(o, want) {
		t.Errorf("ttyjobs raw: %q\nwant it to end %q", o, want)
	}

	// Job control: ^Z (echoed as ^Z, n_tty's ECHOCTL) stops the
	// foreground child, SIGCONT resumes it.
	n = len(s.out.String())
	s.f.Write([]byte("ttyjobs jobs\r"))
	s.waitAfter(n, "child: reading; type ^Z\r\n")
	s.waitAfter(n, "foreground true\r\n")
	s.f.Write([]byte("\x1a"))
	s.waitAfter(n, "type a line\r\n")
	s.f.Write([]byte("resumed\r"))
	o = s.waitPrompt(n, time.Minute)
	for _, want := range []string{
		"parent: child in its own group, foreground true\r\n",
		"^Zparent: child stopped by SIGTSTP\r\nparent: foreground back true\r\nparent: child continued, type a line\r\nresumed\r\nchild: read \"resumed\\n\" <nil>\r\nparent: child exited 0, foreground back true\r\njobs ok\r\n",
	} {
		if !strings.Contains(o, want) {
			t.Errorf("ttyjobs jobs: no %q in:\n%q", want, o)
		}
	}
}
