package qemu

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Binary is the QEMU system emulator gometal uses.
const Binary = "qemu-system-aarch64"

// Exit statuses the runner itself produces.
const (
	ExitTimeout     = 124 // like timeout(1)
	ExitKernelPanic = 125 // the kernel's own panic status
	ExitInterrupted = 130 // the user pressed Ctrl-A x
)

// Config is one boot.
type Config struct {
	Kernel    string // Image
	KernelELF string // for symbolizing panics (optional)
	Initrd    string
	Machine   string // -M value; "virt" by default
	CPU       string // -cpu; "cortex-a72" by default
	SMP       int
	Memory    string // -m, e.g. "512M"
	DTB       string // -dtb: the board's device tree ("": QEMU makes one)
	Append    []string
	// Net is the boot's network ("": none, as NetNone), and Forwards the
	// host ports forwarded into it.
	Net      Net
	Forwards []Forward
	// HostPorts are the host's loopback TCP ports the guest reaches at
	// HostAddr (-host-port).
	HostPorts []int
	// Relay is the gometal binary, which QEMU runs as "Relay relay
	// 127.0.0.1:PORT" for each connection to a HostPorts port.
	Relay string
	// Disks are raw image files attached in order as virtio-blk devices
	// (the guest's vda, vdb, ...); on raspi4b the first is the SD card.
	Disks []Disk
	// Shares are host directories served to the guest over virtio-9p.
	Shares []Share
	// Extra are more QEMU arguments. A -serial here is the machine's
	// second UART (on raspi4b, the mini UART).
	Extra   []string
	GDB     bool // -s -S: wait for gdb on :1234
	Timeout time.Duration

	Stdin  io.Reader // nil: the guest gets no input
	Stdout io.Writer
	Stderr io.Writer
	// Terminal says Stdout is a terminal: '\n' becomes "\r\n".
	Terminal bool
}

// SemihostingBootarg tells the kernel that semihosting calls reach a
// host (this QEMU, started with -semihosting-config).
const SemihostingBootarg = "gometal.semihosting=1"

// ErrNoQEMU says QEMU is not installed.
var ErrNoQEMU = errors.New(Binary + " not found in PATH; install it with: sudo apt-get install qemu-system-arm (or run: make deps)")

// Args returns the QEMU command line for c.
func (c *Config) Args() []string {
	machine := c.Machine
	if machine == "" {
		machine = "virt"
	}
	cpu := c.CPU
	if cpu == "" {
		cpu = "cortex-a72"
	}
	smp := c.SMP
	if smp <= 0 {
		smp = 1
	}
	mem := c.Memory
	if mem == "" {
		mem = "512M"
	}
	// signal=off: Ctrl-C is the guest's, not QEMU's. At a terminal the
	// chardev is QEMU's multiplexer, whose Ctrl-A escapes reach it
	// (forwardInput keeps Ctrl-A x for itself): Ctrl-A b sends the
	// UART a BREAK (the kernel's SysRq), Ctrl-A Ctrl-A a Ctrl-A. Piped
	// input stays plain bytes.
	chardev := "stdio,id=con,signal=off"
	if c.Terminal {
		chardev += ",mux=on"
	}
	args := []string{
		"-M", machine, "-cpu", cpu, "-smp", strconv.Itoa(smp), "-m", mem,
		"-display", "none", "-monitor", "none",
		"-chardev", chardev, "-serial", "chardev:con",
		"-semihosting-config", "enable=on,target=native",
		"-kernel", c.Kernel, "-no-reboot",
	}
	args = append(args, NetArgs(c.Net, machine, c.Forwards, c.HostPorts, c.Relay)...)
	args = append(args, ShareArgs(c.Shares)...)
	if c.DTB != "" {
		args = append(args, "-dtb", c.DTB)
	}
	if c.Initrd != "" {
		args = append(args, "-initrd", c.Initrd)
	}
	// The kernel uses semihosting (SYS_EXIT for the app's status) only
	// when told the host answers it: on a board its HLT would trap.
	words := append(append([]string{SemihostingBootarg}, c.Append...), ShareBootargs(c.Shares)...)
	args = append(args, "-append", strings.Join(append(words, DiskBootargs(c.Disks, machine)...), " "))
	if c.GDB {
		args = append(args, "-s", "-S")
	}
	args = append(args, DiskArgs(c.Disks, machine)...)
	return append(args, c.Extra...)
}

// Disk is a raw image file the guest sees as a disk.
type Disk struct {
	Path     string
	ReadOnly bool
	// Guest is where the kernel mounts the disk's ext4 at boot
	// (gometal.mount=), "" for none.
	Guest string
}

// ParseDisk reads -disk's FILE[:GUEST][:ro] (GUEST an absolute path)
// and checks the file is there and readable (and writable unless :ro),
// so that a mistake is one line before QEMU starts rather than QEMU's
// own error after it.
func ParseDisk(v string) (Disk, error) {
	d := Disk{Path: v}
	if p, ok := strings.CutSuffix(d.Path, ":ro"); ok {
		d.Path, d.ReadOnly = p, true
	}
	if i := strings.LastIndex(d.Path, ":"); i >= 0 && strings.HasPrefix(d.Path[i+1:], "/") {
		d.Path, d.Guest = d.Path[:i], d.Path[i+1:]
		if strings.ContainsAny(d.Guest, " \t\n") {
			return d, fmt.Errorf("-disk %q: the guest path may not hold spaces (the kernel command line splits on them)", v)
		}
	}
	if d.Path == "" {
		return d, fmt.Errorf("-disk %q: want FILE, FILE:ro, FILE:GUEST or FILE:GUEST:ro", v)
	}
	mode := os.O_RDWR
	if d.ReadOnly {
		mode = os.O_RDONLY
	}
	f, err := os.OpenFile(d.Path, mode, 0)
	if err != nil {
		return d, fmt.Errorf("-disk %s: %v", v, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return d, fmt.Errorf("-disk %s: %v", v, err)
	}
	if !st.Mode().IsRegular() || st.Size() < 512 {
		return d, fmt.Errorf("-disk %s: not a disk image (a regular file of at least 512 bytes)", v)
	}
	return d, nil
}

// DiskArgs attach disks to machine: virtio-blk devices on virt, on the
// modern virtio-mmio transport the kernel needs (the global NetArgs
// sets too), the SD card (if=sd) on raspi4b, whose image QEMU wants a
// power of two in size.
func DiskArgs(disks []Disk, machine string) []string {
	var args []string
	// QEMU virt plugs each -device into the free virtio-mmio slot of the
	// highest address, and the kernel (as Linux since 70161ff336) names
	// disks from the highest address down: the devices go in backwards,
	// so that the first -disk is vda (hw/arm/virt.c,
	// create_virtio_devices, says the same of Linux).
	for k := range disks {
		i := k
		if machine != "raspi4b" {
			i = len(disks) - 1 - k
		}
		d := disks[i]
		ro := ""
		if d.ReadOnly {
			ro = ",readonly=on"
		}
		file := strings.ReplaceAll(d.Path, ",", ",,") // QEMU's option syntax
		if machine == "raspi4b" {
			args = append(args, "-drive", fmt.Sprintf("if=sd,index=%d,format=raw,file=%s%s", i, file, ro))
			continue
		}
		if k == 0 {
			args = append(args, "-global", "virtio-mmio.force-legacy=false")
		}
		args = append(args, "-drive", fmt.Sprintf("if=none,id=disk%d,format=raw,file=%s%s", i, file, ro),
			"-device", fmt.Sprintf("virtio-blk-device,drive=disk%d", i))
	}
	return args
}

// DiskBootargs are the kernel command-line words that mount disks at
// boot: gometal.mount=DEV:GUEST for each disk with a Guest, DEV the name
// the kernel gives it (vda, vdb... in -disk order on virt; mmcblk0, the
// SD card, on raspi4b).
func DiskBootargs(disks []Disk, machine string) []string {
	var words []string
	for i, d := range disks {
		if d.Guest == "" {
			continue
		}
		dev := "vd" + string(rune('a'+i))
		if machine == "raspi4b" {
			dev = "mmcblk" + strconv.Itoa(i)
		}
		words = append(words, "gometal.mount="+dev+":"+d.Guest)
	}
	return words
}

// Run boots c and returns the guest's exit status. The error is for the
// runner's own failures (no QEMU, QEMU dying without a status).
func Run(ctx context.Context, c *Config) (int, error) {
	bin, err := exec.LookPath(Binary)
	if err != nil {
		return 0, ErrNoQEMU
	}
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	fwd, err := startForwards(c.Forwards)
	if err != nil {
		return 0, err
	}
	defer fwd.close()
	qc := *c
	qc.Forwards = fwd.inner
	cmd := exec.Command(bin, qc.Args()...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	// QEMU's stderr carries its own errors and the kernel's semihosting
	// prints from before the console is found: pass it through.
	var qstderr strings.Builder
	cmd.Stderr = &qstderr
	var noise *noiseFilter
	if c.Stderr != nil {
		noise = &noiseFilter{w: c.Stderr}
		cmd.Stderr = io.MultiWriter(noise, &qstderr)
	}
	var stdinW io.WriteCloser
	if c.Stdin != nil {
		if stdinW, err = cmd.StdinPipe(); err != nil {
			return 0, err
		}
	}
	// QEMU in its own process group: a Ctrl-C on the host terminal (when
	// stdin is not raw) must not kill it behind our back; the runner
	// catches it (and SIGTERM, and SIGHUP when the terminal goes away)
	// and ends QEMU itself. Pdeathsig ends QEMU if the runner is killed
	// outright (SIGKILL), instead of leaving it running unwatched.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(stop)
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("starting %s: %v", Binary, err)
	}
	fwd.serve()
	interrupted := make(chan struct{})
	if c.Stdin != nil {
		go forwardInput(c.Stdin, stdinW, c.Terminal, interrupted)
	}
	out := c.Stdout
	if out == nil {
		out = io.Discard
	}
	panicked := make(chan bool, 1)
	go func() { panicked <- stream(stdout, out, c.Terminal, c.KernelELF, c.Forwards) }()

	waitErr := make(chan error, 1)
	go func() {
		sawPanic := <-panicked // all output copied before Wait closes the pipe
		err := cmd.Wait()
		noise.flush() // a last line without its newline
		if sawPanic && err == nil {
			err = errors.New("kernel panic")
		}
		waitErr <- err
	}()
	select {
	case err = <-waitErr:
	case <-ctx.Done():
		cmd.Process.Kill()
		<-waitErr
		return ExitTimeout, fmt.Errorf("timeout after %v; QEMU killed", c.Timeout)
	case <-interrupted:
		cmd.Process.Kill()
		<-waitErr
		return ExitInterrupted, nil
	case sig := <-stop:
		cmd.Process.Kill()
		<-waitErr
		n := int(sig.(syscall.Signal))
		return 128 + n, fmt.Errorf("%v: QEMU killed; the guest's run did not finish", sig)
	}
	if err == nil {
		return 0, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		// Semihosting SYS_EXIT: QEMU's status is the guest's.
		return ee.ExitCode(), nil
	}
	if ws, ok := exitSignal(ee); ok {
		// Killed from outside (the OOM killer, a kill -9): no status
		// came from the guest, and a wrapper must not see success.
		// 128+signal, as a shell reports a killed child.
		return 128 + int(ws), fmt.Errorf("QEMU was killed by signal %d (%v); the guest's run did not finish", int(ws), ws)
	}
	if err.Error() == "kernel panic" {
		return ExitKernelPanic, nil
	}
	msg := strings.TrimSpace(qstderr.String())
	if msg != "" && c.Stderr == nil {
		return 0, fmt.Errorf("QEMU failed: %v: %s", err, msg)
	}
	return 0, fmt.Errorf("QEMU failed: %v", err)
}

// exitSignal returns the signal that killed QEMU, if one did.
func exitSignal(ee *exec.ExitError) (syscall.Signal, bool) {
	if ee == nil {
		return 0, false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, false
	}
	return ws.Signal(), true
}

// stream copies guest output as it arrives and symbolizes panic reports.
// It reports whether a kernel panic was seen.
func stream(r io.Reader, w io.Writer, terminal bool, kernelELF string, fwd []Forward) bool {
	var sym *Symbolizer
	return streamAnnotated(r, w, terminal, listenNote(fwd), func(s string) []string {
		if sym == nil && kernelELF != "" {
			sym, _ = NewSymbolizer(kernelELF)
		}
		if sym == nil {
			return nil
		}
		return sym.Annotate(s)
	})
}

// streamAnnotated copies r to w, and after each line of a panic report
// writes the lines annotate returns for it; after any other line, the
// line note returns, if any. Output goes out line by line:
// a chunk that ends mid-line is written at once (a prompt must show), and
// an annotation is written only after the newline of the line it explains,
// never into the middle of the next line.
func streamAnnotated(r io.Reader, w io.Writer, terminal bool, note func(string) string, annotate func(string) []string) bool {
	br := bufio.NewReader(r)
	var line []byte
	inPanic, sawPanic := false, false
	var buf [4096]byte
	var crlf crlfWriter
	put := func(b []byte) {
		if terminal {
			crlf.write(w, b)
		} else {
			w.Write(b)
		}
	}
	for {
		n, err := br.Read(buf[:])
		chunk := buf[:n]
		start := 0
		for i, b := range chunk {
			if b != '\n' {
				line = append(line, b)
				continue
			}
			put(chunk[start : i+1])
			start = i + 1
			s := string(line)
			line = line[:0]
			if strings.Contains(s, "gometal: kernel panic") {
				inPanic, sawPanic = true, true
				continue
			}
			if inPanic {
				if strings.TrimSpace(s) == "" {
					inPanic = false
					continue
				}
				for _, a := range annotate(s) {
					fmt.Fprintf(w, "      %s%s", a, nl(terminal))
				}
			} else if n := note(s); n != "" {
				fmt.Fprintf(w, "%s%s", n, nl(terminal))
			}
		}
		put(chunk[start:])
		if err != nil {
			return sawPanic
		}
	}
}

func nl(terminal bool) string {
	if terminal {
		return "\r\n"
	}
	return "\n"
}

// crlfWriter writes a guest's output to a terminal in raw mode: a lone
// '\n' (the kernel's own messages) becomes "\r\n"; a "\r\n" the
// guest's terminal already made (termios ONLCR) passes as it is.
type crlfWriter struct{ lastCR bool }

func (c *crlfWriter) write(w io.Writer, b []byte) {
	start := 0
	for i, ch := range b {
		prevCR := c.lastCR
		if i > 0 {
			prevCR = b[i-1] == '\r'
		}
		if ch == '\n' && !prevCR {
			w.Write(b[start:i])
			w.Write([]byte("\r\n"))
			start = i + 1
		}
	}
	w.Write(b[start:])
	if len(b) > 0 {
		c.lastCR = b[len(b)-1] == '\r'
	}
}

// Escape sequence to leave an interactive session: Ctrl-A then x.
const (
	ctrlA = 0x01
)

// forwardInput copies the host's input to QEMU's stdin until in ends; at
// a terminal, Ctrl-A x closes interrupted instead (the rest of QEMU's
// Ctrl-A escapes pass on to its multiplexer).
func forwardInput(in io.Reader, w io.WriteCloser, terminal bool, interrupted chan<- struct{}) {
	var buf [256]byte
	// out is what one read forwards, written at once: a key's escape
	// sequence (ESC [ A) written a byte at a time could reach the guest
	// in pieces, and a line editor there would take ESC alone for Esc.
	out := make([]byte, 0, 2*len(buf))
	escape := false
	for {
		n, err := in.Read(buf[:])
		out = out[:0]
		for _, b := range buf[:n] {
			if terminal {
				if escape {
					// QEMU's multiplexer reads the rest of the escape
					// (b: a BREAK, Ctrl-A: a Ctrl-A, h: its help).
					escape = false
					if b == 'x' || b == 'X' {
						w.Write(out)
						close(interrupted)
						return
					}
					out = append(out, ctrlA)
				} else if b == ctrlA {
					escape = true
					continue
				}
			}
			out = append(out, b)
		}
		if len(out) > 0 {
			if _, werr := w.Write(out); werr != nil {
				return
			}
		}
		if err != nil {
			// Keep the pipe open: closing it makes QEMU's stdio chardev
			// see EOF, which changes nothing for the guest; but don't
			// spin.
			return
		}
	}
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// qemuNoise are QEMU's warnings that say nothing to a gometal user:
// raspi4b removes the device-tree nodes of the devices it does not model
// (PCIe, GENET, RNG, thermal) and says so on every boot.
var qemuNoise = regexp.MustCompile(`^qemu-system-aarch64: warning: bcm2711 dtc: \S+ has been disabled!$`)

// noiseFilter passes QEMU's stderr on line by line, without qemuNoise.
type noiseFilter struct {
	w    io.Writer
	line []byte
}

// flush passes on what is left of an unfinished line (nil: nothing to do).
func (f *noiseFilter) flush() {
	if f != nil && len(f.line) > 0 {
		f.w.Write(f.line)
		f.line = f.line[:0]
	}
}

func (f *noiseFilter) Write(b []byte) (int, error) {
	for _, c := range b {
		f.line = append(f.line, c)
		if c == '\n' {
			if !qemuNoise.Match(bytes.TrimRight(f.line, "\r\n")) {
				f.w.Write(f.line)
			}
			f.line = f.line[:0]
		}
	}
	return len(b), nil
}
