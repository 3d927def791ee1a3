package tests

import (
	"io"
	"os/exec"
	"strings"
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

// An interactive run, at a terminal (a pty): Ctrl-A b sends the UART a
// BREAK through QEMU's multiplexer and t then asks the kernel's SysRq
// for its state dump, while the program hangs; Ctrl-A x ends the run.
func TestConsoleSysRq(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(gometalBin, "run", "-timeout", "3m", "./tests/progs/procs", "--", "hang")
	cmd.Dir = repoRoot
	f, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out lockedBuffer
	go io.Copy(&out, f)
	waitFor(t, &out, "hanging", 2*time.Minute)
	f.Write([]byte("\x01bt"))
	waitFor(t, &out, "gometal: state dump: SysRq: show-task-states", time.Minute)
	waitFor(t, &out, "process 1 (init)", 10*time.Second)
	f.Write([]byte("\x01x"))
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("after Ctrl-A x: %v, want exit status 130\n%s", err, out.String())
	}
}
