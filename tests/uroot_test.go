package tests

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/gometal/gometal/linker"
	"github.com/u-root/u-root/pkg/cpio"
)

// u-root's userland on gometal (docs/UROOT.md): gometal run -uroot boots
// u-root's init, which starts gosh on the console. The image is built
// once and cached by linker.BuildURoot: the first run builds it (2m49s
// to 3m48s on the 2-core host under other people's load, module
// downloads included), later ones find it in seconds.
func urootImage(t *testing.T) {
	t.Helper()
	urootOnce.Do(func() { _, urootErr = linker.BuildURoot("core", linker.GoshSmall, os.Stderr) })
	if urootErr != nil {
		t.Fatal(urootErr)
	}
}

// urootOnce builds the image once for the tests that run in parallel,
// which would otherwise each build it on a cold cache.
var (
	urootOnce sync.Once
	urootErr  error
)

// The shell reads commands from the console (piped here), runs u-root's
// commands and the program put in /bin, and exit ends init and the run
// with status 0. Each line below is one that works today; what does not
// yet is listed in docs/UROOT.md.
func TestURootShell(t *testing.T) {
	t.Parallel()
	urootImage(t)
	script := strings.Join([]string{
		"echo hi",
		"ls /",
		"ls /bin",
		"readlink /bin/sh",
		"hello",
		"cat /etc/hosts",
		"grep root /etc/passwd",
		"seq 3 | wc -l",
		"mkdir -p /tmp/u/v && echo data > /tmp/u/v/f && cp /tmp/u/v/f /tmp/u/g && mv /tmp/u/g /tmp/u/h && cat /tmp/u/h && rm -r /tmp/u && echo removed",
		"ln -s /etc/hosts /tmp/l && readlink /tmp/l",
		"uname -a",
		"hostname",
		"ps",
		"free",
		"ip addr",
		"mount",
		"df /tmp",
		"dmesg | grep -c -e 'Failed to initialize loopback' -e 'proc.*busy'",
		"dmesg | grep 'kernel ready'",
		"chroot / /bbin/true && echo chrooted",
		"uptime",
		"echo status=$?",
		"exit",
	}, "\n") + "\n"
	r := gometalInput(t, script, "run", "-uroot", "-timeout", "3m", "./examples/hello")
	r.expect(t, 0,
		"Welcome to u-root!",
		"$ hi\n",
		"bbin\nbin\n",
		"$ hello\nsh\n", "$ ../bbin/gosh\n",
		"Hello from Go on gometal!", `args: ["hello"]`,
		"127.0.0.1\tlocalhost",
		"root:x:0:0:root:/root:/bin/sh",
		"$ 3\n",
		"data\nremoved\n",
		"/etc/hosts\n",
		"Linux gometal ",
		"$ gometal\n",
		"PID TTY", "console ", " ps",
		"Mem:",
		"inet 127.0.0.1/8", "inet 10.0.2.15/24",
		"proc /proc proc", "devtmpfs /dev devtmpfs", "tmpfs /tmp tmpfs", "sysfs /sys sysfs",
		"% /tmp", // df: its line for /tmp
		"$ 0\n",  // init's log has no loopback or proc mount error
		"] kernel ready in ",
		"chrooted",
		"loadaverage: ", // u-root's uptime spells it so
		"status=0",
		"init: ", "Exiting...",
	)
}

// gometal build -uroot writes the same image: u-root's /init link to the
// busybox, its commands, the program in /bin and the kernel's settings.
func TestURootBuild(t *testing.T) {
	t.Parallel()
	urootImage(t)
	out := t.TempDir()
	r := gometal(t, "build", "-uroot", "-uroot-gosh", "small", "-o", out, "./examples/hello")
	r.expect(t, 0, filepath.Join(out, "initramfs.cpio"))
	recs, err := linker.ReadArchive(filepath.Join(out, "initramfs.cpio"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]cpio.Record{}
	for _, rec := range recs {
		got[rec.Name] = rec
	}
	if got["init"].Mode&cpio.S_IFMT != cpio.S_IFLNK || linker.RecordData(got["init"]) != "bbin/init" {
		t.Errorf("/init: mode %o -> %q, want a link to bbin/init", got["init"].Mode, linker.RecordData(got["init"]))
	}
	if _, ok := got["bin/defaultsh"]; ok {
		t.Error("/bin/defaultsh: init would start a second shell after exit")
	}
	for name, want := range map[string]string{"bin/sh": "../bbin/gosh", "bbin/bb": "\x7fELF", "bin/hello": "\x7fELF", ".gometal/argv": "/init\x00"} {
		if s := linker.RecordData(got[name]); !strings.HasPrefix(s, want) {
			t.Errorf("%s: %.20q, want %q first", name, s, want)
		}
	}
	if r := gometal(t, "build", "-uroot-cmds", "ls", "-o", out); r.status != 2 || !strings.Contains(r.out, "-uroot-cmds needs -uroot") {
		t.Errorf("-uroot-cmds without -uroot: status %d\n%s", r.status, r.out)
	}
}

// The full gosh (-uroot-gosh full): its line editor in raw mode on the
// console, typed at through a host pty as a person types. Tab completes
// a path, Up brings back an earlier command, Ctrl-C ends the foreground
// command (the editor's own ^C handling is for the line being typed),
// and exit ends the run with status 0. A small command set keeps its
// build short (about 25 s on 2 cores, then cached).
//
// Not in make test yet: about one run in eight, typed input stops
// reaching the editor mid-session (docs/UROOT.md: the state dump then
// shows no thread reading the console); GOMETAL_TEST_FULLGOSH=1 runs it.
func TestURootFullGosh(t *testing.T) {
	if os.Getenv("GOMETAL_TEST_FULLGOSH") == "" {
		t.Skip("TestURootFullGosh: the full gosh's input stalls about one run in eight (docs/UROOT.md); GOMETAL_TEST_FULLGOSH=1 runs it")
	}
	t.Parallel()
	cmd, f, out := startOnPTY(t, &pty.Winsize{Rows: 40, Cols: 120}, "-uroot", "-uroot-gosh", "full", "-uroot-cmds", "ls,sleep", "-net", "none")
	waitFor(t, out, "M-? toggle key help", 5*time.Minute) // the build, then the boot
	// say types keys and waits for want; if it does not come, the
	// kernel's state dump (SysRq t) says who waits where.
	say := func(keys, want string) {
		t.Helper()
		f.Write([]byte(keys))
		for end := time.Now().Add(30 * time.Second); !strings.Contains(out.String(), want); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(end) {
				f.Write([]byte("\x01bt"))
				time.Sleep(5 * time.Second)
				s := out.String()
				t.Fatalf("no %q 30 s after typing %q; the end of the output:\n%q", want, keys, s[max(0, len(s)-20000):])
			}
		}
	}
	say("echo hi\r", "hi\r\n")
	say("ls /bb\t", "ls /bbin")
	say("\r", "sleep\r\n")
	say("sleep 100\r", "sleep 100")
	time.Sleep(time.Second) // sleep runs by now, or soon: ^C must end it either way
	start := time.Now()
	say("\x03", "exit status 130")
	t.Logf("Ctrl-C to sleep's end: %v", time.Since(start).Round(time.Millisecond))
	// Up, one key at a time, until the editor shows echo hi again.
	before := strings.Count(out.String(), "hi\r\n")
	for i := 0; ; i++ {
		if i == 4 {
			t.Fatalf("four times Up did not bring back echo hi:\n%q", out.String())
		}
		n := len(out.String())
		f.Write([]byte("\x1b[A"))
		waitFor(t, out, "\x1b[2K> ", time.Minute)
		time.Sleep(time.Second) // the redraw is whole by then
		if strings.Contains(out.String()[n:], "> echo hi ") {
			break
		}
	}
	say("\r", "hi\r\n")
	for end := time.Now().Add(time.Minute); strings.Count(out.String(), "hi\r\n") == before; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("Enter on the recalled echo hi did not run it:\n%q", out.String())
		}
	}
	say("exit\r", "Exiting...")
	if err := cmd.Wait(); err != nil {
		t.Errorf("gometal run -uroot: %v\n%s", err, out.String())
	}
}
