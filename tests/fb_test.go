package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/image/font/basicfont"
)

// TestRPi4Framebuffer: the firmware's framebuffer is /dev/fb0, and a
// program draws on it with image/draw (tests/progs/pifb); what the
// display shows is QEMU's screendump (QMP), read as a PPM on the host:
// four quadrants red, green, blue and white, written with write(2) and
// read back through mmap, then, drawn through the mapping and shown by
// panning to the virtual screen's second half, yellow with a magenta
// square.
func TestRPi4Framebuffer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sock := filepath.Join(dir, "qmp.sock")
	// The screen's console on, so that what keeps it off the screen
	// while the program has it (an open description, a mapping) is
	// tried too.
	run := startInteractive(t, "run", "-board", "rpi4", "-timeout", "3m", "-bootarg", "gometal.fbcon=1",
		"-qemu-arg", "-qmp", "-qemu-arg", "unix:"+sock+",server=on,wait=off", "./tests/progs/pifb")
	con := run.con

	con.waitFor(t, "pifb: drawn")
	w, h := 640, 480
	img := screendump(t, sock, filepath.Join(dir, "quadrants.ppm"))
	for _, p := range []struct {
		x, y    int
		r, g, b byte
	}{
		{w / 4, h / 4, 255, 0, 0}, {3 * w / 4, h / 4, 0, 255, 0},
		{w / 4, 3 * h / 4, 0, 0, 255}, {3 * w / 4, 3 * h / 4, 255, 255, 255},
		{0, 0, 255, 0, 0}, {w - 1, h - 1, 255, 255, 255}, {w/2 - 1, h/2 - 1, 255, 0, 0}, {w / 2, h / 2, 255, 255, 255},
	} {
		if got := img.at(p.x, p.y); got != [3]byte{p.r, p.g, p.b} {
			t.Errorf("pixel (%d,%d) is %v, want %v", p.x, p.y, got, [3]byte{p.r, p.g, p.b})
		}
	}
	if img.w != w || img.h != h {
		t.Errorf("the display is %dx%d, want %dx%d", img.w, img.h, w, h)
	}
	io.WriteString(run.stdin, "\n")
	con.waitFor(t, "pifb: panned")
	img = screendump(t, sock, filepath.Join(dir, "panned.ppm"))
	const side = 100 // the magenta square's
	if n := img.count([3]byte{255, 255, 0}); n != w*h-side*side {
		t.Errorf("after the pan %d of %d pixels are yellow, want all but the square's %d", n, w*h, side*side)
	}
	if n := img.count([3]byte{255, 0, 255}); n != side*side || img.at(w/2-side/2, h/2-side/2) != [3]byte{255, 0, 255} {
		t.Errorf("after the pan %d pixels are magenta, want the %dx%d square at the centre", n, side, side)
	}
	io.WriteString(run.stdin, "\n")
	run.wait(t, time.Minute)
	out := con.text()
	for _, want := range []string{
		"gometal: fb: 640x480, 32 bpp, 2400 KiB at 0x",
		"pifb: var 640x480 virtual 640x960, 32 bpp, red 16 green 8 blue 0",
		`pifb: fix "BCM2708 FB" line length 2560, 2457600 bytes, visual 2, ypanstep 1`,
		"pifb: wrote 1228800 <nil>", "pifb: read back 1228800 <nil>, same true",
		"pifb: mapped: (0,0) 00ff0000, (639,479) 00ffffff",
		"pifb: private: read 00ff0000, written 00ff00ff, the screen 00ff0000",
		"pifb: mmap past the buffer: invalid argument", "pifb: mremap growing: bad address",
		"pifb: madvise: invalid argument", "pifb: maps: rw-s 00000000 /dev/fb0",
		"pifb: write at the end: write /dev/fb0: no space left on device",
		"pifb: first screen after the close: (0,0) 00ff0000",
		"pifb: pan <nil>", "pifb: pan past the end: invalid argument", "pifb: munmap: <nil>", "pifb: done",
		"gometal: app exited with status 0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the output:\n%s", want, out)
		}
	}
}

// running is a gometal run in progress: its input, its output as it
// comes, and its end.
type running struct {
	stdin io.WriteCloser
	con   *console
	done  chan int
	cmd   *exec.Cmd
}

// startInteractive starts the CLI with args, its output streamed to a
// console; the test's end kills it if it still runs.
func startInteractive(t *testing.T, args ...string) *running {
	t.Helper()
	cmd := exec.Command(gometalBin, args...)
	cmd.Dir = repoRoot
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &running{stdin: stdin, con: &console{lines: make(chan string, 256)}, done: make(chan int, 1), cmd: cmd}
	go r.con.read(pr)
	go func() {
		cmd.Wait()
		pw.Close()
		r.done <- cmd.ProcessState.ExitCode()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	return r
}

// wait returns the run's exit status, failing the test if it has not
// ended within d.
func (r *running) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case s := <-r.done:
		return s
	case <-time.After(d):
		t.Fatalf("the run did not end in %v:\n%s", d, r.con.text())
	}
	return -1
}

// TestRPi4ScreenConsole: the kernel's console is drawn on the screen too
// (kernel/fbcon; gometal run turns it off unless asked, since QEMU shows
// no display): a line the program prints is on QEMU's screendump,
// rendered in basicfont's 7x13 glyphs (the table the kernel's font is
// generated from) in 8x16 cells, grey on black, at a cell boundary; the
// line before it in the colours its escape sequences asked for; the
// cursor under the next line's first cell.
func TestRPi4ScreenConsole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sock := filepath.Join(dir, "qmp.sock")
	run := startInteractive(t, "run", "-board", "rpi4", "-timeout", "3m", "-bootarg", "gometal.fbcon=1",
		"-qemu-arg", "-qmp", "-qemu-arg", "unix:"+sock+",server=on,wait=off", "./tests/progs/pifb", "--", "console")
	const line = "pifb: on the screen: Hello, Pi on a monitor!"
	run.con.waitFor(t, line)
	// The console draws a frame after the write (a 60th of a second of
	// the guest's time, fbconFlushNanos): screendumps until the line is
	// there, for up to 20 s of a busy host.
	want := renderLine(line)
	var img *ppm
	found := -1
	for start := time.Now(); found < 0 && time.Since(start) < 20*time.Second; {
		img = screendump(t, sock, filepath.Join(dir, "console.ppm"))
		for y := 0; y+16 <= img.h && found < 0; y += 16 {
			if img.matches(want, y) {
				found = y / 16
			}
		}
		if found < 0 {
			time.Sleep(100 * time.Millisecond)
		}
	}
	io.WriteString(run.stdin, "\n")
	if s := run.wait(t, time.Minute); s != 0 {
		t.Errorf("exit status %d", s)
	}
	if found < 0 {
		t.Errorf("the screen does not show %q (screendump %s)", line, filepath.Join(dir, "console.ppm"))
	} else {
		t.Logf("the line is on text row %d", found)
	}
	// The line before, in colours (SGR 31, then 1;32: bold green is
	// bright green), in the console's palette (Linux's VGA colours).
	if found > 0 {
		const plain = "pifb: in colour: red and bright green"
		if !img.matches(renderLine(plain), (found-1)*16) {
			t.Errorf("the row above does not show %q", plain)
		}
		for _, w := range []struct {
			word string
			rgb  [3]byte
		}{{"pifb:", [3]byte{0xaa, 0xaa, 0xaa}}, {"red", [3]byte{0xaa, 0, 0}}, {"bright", [3]byte{0x55, 0xff, 0x55}}} {
			k := strings.Index(plain, w.word)
			if got := img.litColour(8*k, (found-1)*16, 8*len(w.word)); got != w.rgb {
				t.Errorf("%q is drawn in %v, want %v", w.word, got, w.rgb)
			}
		}
		// The cursor: Linux's underline, the last two pixel lines of
		// the cell after the printed lines.
		for j := 14; j < 16; j++ {
			for x := 0; x < 8; x++ {
				if img.at(x, (found+1)*16+j) != [3]byte{0xaa, 0xaa, 0xaa} {
					t.Fatalf("no cursor under the cell at row %d: pixel (%d,%d) is %v", found+1, x, j, img.at(x, (found+1)*16+j))
				}
			}
		}
	}
	boot := renderLine("gometal: booting on Raspberry Pi 4 Model B, entered at EL2")
	if !img.matches(boot, 0) {
		t.Errorf("the screen's first row is not the boot log's first line (replayed from the kernel log)")
	}
}

// renderLine draws s as the screen's console does: a cell of 8x16 a
// byte, the glyph one pixel in from the left and top; 1 lit.
func renderLine(s string) [][]byte {
	f := basicfont.Face7x13
	m := f.Mask.(*image.Alpha)
	h := f.Ascent + f.Descent
	rows := make([][]byte, 16)
	for y := range rows {
		rows[y] = make([]byte, 8*len(s))
	}
	for k := 0; k < len(s); k++ {
		g := int(s[k] - ' ')
		for y := 0; y < h; y++ {
			for x := 0; x < f.Width; x++ {
				if m.AlphaAt(x, g*h+y).A >= 0x80 {
					rows[1+y][8*k+1+x] = 1
				}
			}
		}
	}
	return rows
}

// matches says whether the picture shows rows (lit: not black) at its
// left edge from line y.
func (p *ppm) matches(rows [][]byte, y int) bool {
	for j, r := range rows {
		for x, lit := range r {
			if x >= p.w || (p.at(x, y+j) != [3]byte{}) != (lit == 1) {
				return false
			}
		}
	}
	return true
}

// litColour is the colour of the first pixel not black in the w
// pixels wide, 16 lines tall strip at (x, y).
func (p *ppm) litColour(x, y, w int) [3]byte {
	for j := 0; j < 16; j++ {
		for i := 0; i < w; i++ {
			if c := p.at(x+i, y+j); c != [3]byte{} {
				return c
			}
		}
	}
	return [3]byte{}
}

// console collects a running gometal's output lines.
type console struct {
	mu    sync.Mutex
	all   strings.Builder
	lines chan string
}

func (c *console) read(r io.Reader) {
	s := bufio.NewScanner(r)
	for s.Scan() {
		c.mu.Lock()
		c.all.WriteString(s.Text() + "\n")
		c.mu.Unlock()
		select {
		case c.lines <- s.Text():
		default:
		}
	}
	close(c.lines)
}

func (c *console) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.all.String()
}

// waitFor reads lines until one contains want.
func (c *console) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				t.Fatalf("the run ended before %q:\n%s", want, c.text())
			}
			if strings.Contains(l, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no %q in two minutes:\n%s", want, c.text())
		}
	}
}

// ppm is a screendump: P6, 8 bits a channel.
type ppm struct {
	w, h int
	rgb  []byte
}

func (p *ppm) at(x, y int) [3]byte {
	o := 3 * (y*p.w + x)
	return [3]byte(p.rgb[o : o+3])
}

func (p *ppm) count(c [3]byte) int {
	n := 0
	for o := 0; o+3 <= len(p.rgb); o += 3 {
		if [3]byte(p.rgb[o:o+3]) == c {
			n++
		}
	}
	return n
}

// screendump asks QEMU (QMP on sock) for the display's picture in file
// and reads it.
func screendump(t *testing.T, sock, file string) *ppm {
	t.Helper()
	qmp(t, sock, `{"execute":"screendump","arguments":{"filename":`+fmt.Sprintf("%q", file)+`}}`)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var p ppm
	var maxv int
	r := bytes.NewReader(b)
	if _, err := fmt.Fscanf(r, "P6\n%d %d\n%d\n", &p.w, &p.h, &maxv); err != nil || maxv != 255 {
		t.Fatalf("%s is not an 8-bit PPM: %v", file, err)
	}
	p.rgb, _ = io.ReadAll(r)
	if len(p.rgb) != 3*p.w*p.h {
		t.Fatalf("%s has %d bytes of pixels, want %d", file, len(p.rgb), 3*p.w*p.h)
	}
	return &p
}

// qmp runs one QMP command on a new connection to sock (the greeting,
// qmp_capabilities, then the command), failing the test on an error
// answer.
func qmp(t *testing.T, sock, command string) {
	t.Helper()
	c, err := net.DialTimeout("unix", sock, 10*time.Second)
	if err != nil {
		t.Fatalf("QMP: %v", err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	dec := json.NewDecoder(c)
	answer := func() {
		for {
			var m map[string]any
			if err := dec.Decode(&m); err != nil {
				t.Fatalf("QMP: %v", err)
			}
			if e, ok := m["error"]; ok {
				t.Fatalf("QMP %s: %v", command, e)
			}
			if _, ok := m["return"]; ok {
				return
			}
			// the greeting and events: read on
		}
	}
	var greeting map[string]any
	if err := dec.Decode(&greeting); err != nil {
		t.Fatalf("QMP greeting: %v", err)
	}
	for _, cmd := range []string{`{"execute":"qmp_capabilities"}`, command} {
		if _, err := io.WriteString(c, cmd+"\n"); err != nil {
			t.Fatalf("QMP: %v", err)
		}
		answer()
	}
}
