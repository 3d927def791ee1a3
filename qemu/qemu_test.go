package qemu

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestArgs(t *testing.T) {
	c := &Config{Kernel: "Image", Initrd: "rd", SMP: 2, Memory: "1G", Append: []string{"quiet", "x=y"}, Extra: []string{"-d", "int"}}
	got := strings.Join(c.Args(), " ")
	for _, want := range []string{"-M virt", "-cpu cortex-a72", "-smp 2", "-m 1G", "-kernel Image", "-initrd rd",
		"-append gometal.semihosting=1 quiet x=y", "-semihosting-config enable=on,target=native", "signal=off", "-d int"} {
		if !strings.Contains(got, want) {
			t.Errorf("args lack %q: %s", want, got)
		}
	}
}

func TestNoQEMU(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Run(context.Background(), &Config{Kernel: "x"})
	if !errors.Is(err, ErrNoQEMU) || !strings.Contains(err.Error(), "apt-get install qemu-system-arm") {
		t.Errorf("err = %v", err)
	}
}

// A lone NL gets its CR; a CR NL the guest's ONLCR made, even split
// across two writes, is left alone.
func TestCRLF(t *testing.T) {
	var b bytes.Buffer
	var c crlfWriter
	c.write(&b, []byte("a\nb\n\nc\r\nd\r"))
	c.write(&b, []byte("\ne\n"))
	if b.String() != "a\r\nb\r\n\r\nc\r\nd\r\ne\r\n" {
		t.Errorf("%q", b.String())
	}
}

// Symbolize addresses of a real arm64 Go binary.
func TestSymbolizer(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\n//go:noinline\nfunc target() int { return 42 }\n\nfunc main() { println(target()) }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\ngo 1.26\n"), 0o644)
	out := filepath.Join(dir, "app")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	s, err := NewSymbolizer(out)
	if err != nil {
		t.Fatal(err)
	}
	fn := s.table.LookupFunc("main.target")
	if fn == nil {
		t.Fatal("main.target not in the table")
	}
	got := s.Annotate("  pc=0x" + strings.TrimPrefix(hex(fn.Entry+4), "0x") + " far=0x0")
	if len(got) != 1 || !strings.Contains(got[0], "main.target+0x4") || !strings.Contains(got[0], "main.go:4") {
		t.Errorf("Annotate = %q", got)
	}
	if s.Lookup(1) != "" {
		t.Error("address outside text symbolized")
	}
}

func hex(v uint64) string {
	const d = "0123456789abcdef"
	var b []byte
	for ; v > 0; v >>= 4 {
		b = append([]byte{d[v&15]}, b...)
	}
	return "0x" + string(b)
}

func TestStreamDetectsPanic(t *testing.T) {
	var out bytes.Buffer
	in := strings.NewReader("hello\n\ngometal: kernel panic: x\n  pc=0x1\n\nafter\n")
	if !stream(in, &out, false, "", nil) {
		t.Error("panic not detected")
	}
	if out.String() != "hello\n\ngometal: kernel panic: x\n  pc=0x1\n\nafter\n" {
		t.Errorf("output altered: %q", out.String())
	}
}

// A panic line split across reads gets its annotation after its newline,
// not inside the next line (a CI run printed "fa<annotation>r=0x3b0").
func TestStreamAnnotatesWholeLines(t *testing.T) {
	in := &chunkReader{r: strings.NewReader("gometal: kernel panic: x\n  pc=0x1 lr=0x2\n  esr=0x3 far=0x4\n\n"), n: 7}
	var out bytes.Buffer
	streamAnnotated(in, &out, false, listenNote(nil), func(s string) []string {
		if strings.Contains(s, "pc=0x1") {
			return []string{"0x1 = main.f"}
		}
		return nil
	})
	want := "gometal: kernel panic: x\n  pc=0x1 lr=0x2\n      0x1 = main.f\n  esr=0x3 far=0x4\n\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// chunkReader returns at most n bytes a read, so lines straddle reads.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// CPUTime reads a real process: this one, after burning some CPU.
func TestCPUTime(t *testing.T) {
	start := time.Now()
	x := 0
	for time.Since(start) < 150*time.Millisecond {
		x++
	}
	d, err := CPUTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if d < 50*time.Millisecond || d > time.Hour {
		t.Errorf("CPU time %v after a 150 ms busy loop", d)
	}
	if _, err := CPUTime(-5); err == nil {
		t.Errorf("no error for a missing process")
	}
}

// A QEMU killed by a signal (the OOM killer, kill -9) is a failure with
// status 128+signal and one sentence, never a silent success.
func TestKilledQEMUIsAFailure(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\nkill -KILL $$\n"
	if err := os.WriteFile(filepath.Join(bin, Binary), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	status, err := Run(context.Background(), &Config{Kernel: "Image", Timeout: 10 * time.Second})
	if status != 137 || err == nil || !strings.Contains(err.Error(), "QEMU was killed by signal 9 (killed)") {
		t.Errorf("status %d, err %v; want 137 and the signal named", status, err)
	}
}

// QEMU's raspi4b warnings about device-tree nodes it removes are dropped;
// every other line, and a last one without a newline, goes through.
func TestNoiseFilter(t *testing.T) {
	var out bytes.Buffer
	f := &noiseFilter{w: &out}
	f.Write([]byte("qemu-system-aarch64: warning: bcm2711 dtc: brcm,bcm2711-pcie has been disabled!\nqemu-system-aarch64: real "))
	f.Write([]byte("problem\npartial"))
	f.flush()
	if out.String() != "qemu-system-aarch64: real problem\npartial" {
		t.Errorf("%q", out.String())
	}
}

// Every boot states its network: none unless asked, and user networking
// only behind a virtio-net device on virt, restricted when isolated.
func TestNetArgs(t *testing.T) {
	for _, tc := range []struct {
		net     Net
		machine string
		want    []string
		not     []string
	}{
		{"", "", []string{"-nic none"}, []string{"-netdev"}},
		{NetNone, "virt", []string{"-nic none"}, []string{"-netdev"}},
		{NetUser, "virt", []string{"-netdev user,id=net0 ", "-device virtio-net-device,netdev=net0", "virtio-mmio.force-legacy=false"}, []string{"restrict", "-nic none"}},
		{NetIsolated, "virt", []string{"-netdev user,id=net0,restrict=on", "-device virtio-net-device,netdev=net0"}, []string{"-nic none"}},
		{NetIsolated, "raspi4b", []string{"-nic none"}, []string{"-netdev"}},
	} {
		got := strings.Join((&Config{Kernel: "Image", Net: tc.net, Machine: tc.machine}).Args(), " ") + " "
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("net %q on %q: args lack %q: %s", tc.net, tc.machine, w, got)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(got, n) {
				t.Errorf("net %q on %q: args have %q: %s", tc.net, tc.machine, n, got)
			}
		}
	}
	got := strings.Join((&Config{Kernel: "Image", Net: NetIsolated, Forwards: []Forward{{"tcp", 8080, 80}, {"udp", 5353, 53}}, HostPorts: []int{9000}, Relay: "/x,y/gometal"}).Args(), " ")
	if !strings.Contains(got, "-netdev user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:8080-:80,hostfwd=udp:127.0.0.1:5353-:53,guestfwd=tcp:10.0.2.100:9000-cmd:'/x,,y/gometal' relay 127.0.0.1:9000 ") {
		t.Errorf("forwards: %s", got)
	}
	for _, in := range []string{"0", "65536", "x", ""} {
		if _, err := ParseHostPort(in); err == nil {
			t.Errorf("ParseHostPort(%q) took it", in)
		}
	}
	for in, want := range map[string]Forward{"8080:80": {"tcp", 8080, 80}, "53:5353/udp": {"udp", 53, 5353}, "1:65535/tcp": {"tcp", 1, 65535}} {
		if f, err := ParseForward(in); err != nil || f != want {
			t.Errorf("ParseForward(%q) = %v, %v; want %v", in, f, err, want)
		}
	}
	for _, in := range []string{"80", "0:80", "80:65536", "a:b", "80:80/sctp", ":80", "80:"} {
		if _, err := ParseForward(in); err == nil {
			t.Errorf("ParseForward(%q) took it", in)
		}
	}
	if _, err := ParseNet("bridge"); err == nil || !strings.Contains(err.Error(), "want user, isolated or none") {
		t.Errorf("ParseNet(bridge) = %v", err)
	}
}

// When the kernel says the app listens on a port a -p forwards, the
// runner adds the host address that reaches it; other ports get nothing.
func TestStreamNotesForwardedListen(t *testing.T) {
	in := strings.NewReader("gometal: net: listening on port 8080\nnet: listening on port 9090\nhello\n")
	var out bytes.Buffer
	stream(in, &out, false, "", []Forward{{Proto: "tcp", Host: 18080, Guest: 8080}, {Proto: "udp", Host: 19090, Guest: 9090}})
	want := "gometal: net: listening on port 8080\ngometal: reach it from the host at 127.0.0.1:18080 (http://127.0.0.1:18080/ for a web server)\nnet: listening on port 9090\nhello\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}
