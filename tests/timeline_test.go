package tests

import (
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	xtrace "golang.org/x/exp/trace"
)

// TestGMPDemoTimeline runs make run's demo (examples/gmp) as make run
// does, with the kernel trace and the app's own Go execution trace
// carried out (-copyout), checks that each scheduler behaviour it shows
// happened, draws both traces with gometal trace -o, and loads the page
// in headless Chromium: the page's own state must say it drew the core
// lanes and a lane per P, and its screenshot must show them.
func TestGMPDemoTimeline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ktrace, gotrace := filepath.Join(dir, "gmp.ktrace"), filepath.Join(dir, "gmp.gotrace")
	r := gometal(t, "run", "-trace", ktrace, "-copyout", "/tmp/go.trace:"+gotrace, "-env", "GOMETAL_STATS=1",
		"./examples/gmp", "--", "-gotrace", "/tmp/go.trace")
	r.expect(t, 0, "1. spread", "2. hand-off", "3. preemption", "main woke", "4. poller",
		"timer (20 ms) fired", `pipe read "wake"`, "gmp: done", "Go execution trace: /tmp/go.trace")
	// Hand-off: every busy goroutine made progress while one was blocked
	// in read(2), so the blocked M's P went to another M.
	m := regexp.MustCompile(`did \[([0-9 ]+)\] rounds`).FindStringSubmatch(r.out)
	if m == nil {
		t.Fatalf("no hand-off figures in:\n%s", r.out)
	}
	for _, w := range strings.Fields(m[1]) {
		if n, _ := strconv.Atoi(w); n == 0 {
			t.Errorf("a busy goroutine made no progress while another was blocked in read(2): %s", m[0])
		}
	}
	// Preemption: main woke at all while call-free loops held every P
	// (it sets their stop flag), and SIGURG frames were built for it.
	if !regexp.MustCompile(`signals: 23=[1-9]`).MatchString(r.out) {
		t.Errorf("no SIGURG delivered (kernel counters):\n%s", r.out)
	}

	html, js := filepath.Join(dir, "gmp.html"), filepath.Join(dir, "gmp.json")
	out, err := exec.Command(gometalBin, "trace", "-go", gotrace, "-o", html, "-json", js, ktrace).CombinedOutput()
	if err != nil {
		t.Fatalf("gometal trace: %v\n%s", err, out)
	}
	var doc struct {
		TraceEvents []struct {
			Cat string
			Pid int
		}
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the JSON export does not parse: %v", err)
	}
	goSpans, pauses := 0, 0
	for _, e := range doc.TraceEvents {
		if e.Cat == "go" && e.Pid >= 1000 {
			goSpans++
		}
		if e.Cat == "go-stw" {
			pauses++
		}
	}
	if goSpans < 8 {
		t.Errorf("%d goroutine spans in the JSON export, want the demo's goroutines on 4 Ps", goSpans)
	}
	// runtime/trace.Start itself stops the world once.
	if pauses < 1 || !strings.Contains(string(out), "stop-the-world pauses") {
		t.Errorf("%d stop-the-world pauses in the JSON export, want the trace's start at least; gometal trace printed:\n%s", pauses, out)
	}

	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium not found: make deps installs it (Debian's chromium package)")
	}
	browser := func(args ...string) string {
		t.Helper()
		// Flags that keep Chromium off the network and off any profile
		// (this machine has no network; each run gets its own profile).
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir=" + t.TempDir(), "--window-size=1400,700"}
		cmd := exec.Command(chromium, append(append(base, args...), "file://"+html)...)
		var stdout strings.Builder
		cmd.Stdout = &stdout
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v", args, err)
		}
		return stdout.String()
	}
	dom := browser("--dump-dom")
	body := regexp.MustCompile(`<body([^>]*)>`).FindStringSubmatch(dom)
	if body == nil {
		t.Fatalf("no body in the page Chromium rendered:\n%.500s", dom)
	}
	attr := func(name string) int {
		m := regexp.MustCompile(name + `="([0-9]+)"`).FindStringSubmatch(body[1])
		if m == nil {
			t.Fatalf("the page has no %s: <body%s>", name, body[1])
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	if attr("data-ready") != 1 {
		t.Fatal("the page's script did not finish")
	}
	if rows, goRows := attr("data-rows"), attr("data-go-rows"); rows != 2*4+4+1 || goRows != 4+1 {
		t.Errorf("the page drew %d lanes, %d of them Go's; want 4 cores x 2, 4 Ps and the GC lane", rows, goRows)
	}
	if items, drawn := attr("data-items"), attr("data-drawn"); items < 500 || drawn < 100 {
		t.Errorf("the page has %d items and drew %d", items, drawn)
	}

	shot := filepath.Join(dir, "gmp.png")
	browser("--screenshot=" + shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	// The lanes, not a blank page: many colours (one per thread and per
	// goroutine) over much of the picture.
	colors, inked := map[uint32]bool{}, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colors[(r>>11)<<10|(g>>11)<<5|bl>>11] = true
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				inked++
			}
		}
	}
	if len(colors) < 20 || inked < b.Dx()*b.Dy()/4/20 {
		t.Errorf("the screenshot looks blank: %d colours, %d inked pixels of %d", len(colors), inked, b.Dx()*b.Dy()/4)
	}
}

// go test -trace through gometal exec: the test binary writes its Go
// execution trace in the guest and the kernel copies it out to where go
// test asked, a trace golang.org/x/exp/trace reads.
func TestGoTestTraceThroughExec(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod":    "module spin\n\ngo 1.26\n",
		"x_test.go": "package spin\n\nimport \"testing\"\n\nfunc TestSpin(t *testing.T) {\n\ts := 0\n\tfor i := 0; i < 1e7; i++ {\n\t\ts += i\n\t}\n\tif s == 0 {\n\t\tt.Fatal(s)\n\t}\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "test", "-count=1", "-exec", gometalBin+" exec", "-trace", "trace.out", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test -trace: %v\n%s", err, out)
	}
	f, err := os.Open(filepath.Join(dir, "trace.out"))
	if err != nil {
		t.Fatalf("no trace came back: %v", err)
	}
	defer f.Close()
	r, err := xtrace.NewReader(f)
	if err != nil {
		t.Fatalf("not a Go trace: %v", err)
	}
	n := 0
	for {
		if _, err := r.ReadEvent(); err != nil {
			break
		}
		n++
	}
	if n < 20 {
		t.Errorf("the trace has %d events", n)
	}
}
