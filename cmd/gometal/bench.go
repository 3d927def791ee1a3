package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/gometal/gometal/linker"
	"github.com/gometal/gometal/qemu"
	"github.com/google/pprof/profile"
)

// gometal bench: the same Go benchmark program (tests/progs/bench) booted
// as /init on gometal and on Debian's arm64 Linux kernel under the same
// QEMU machine, alternating, and a table of medians and ratios.

const benchUsage = `usage: gometal bench [-board virt|rpi4] [-side both|gometal|linux] [-smp N] [-runs N] [-quick] [-idle S]
                     [-o FILE.md] [-json FILE.json] [-compare OLD.json] [-trace-cost]
                     [-profile FILE [-profile-hz N]] [FIGURE...]
  Boots tests/progs/bench on gometal and on Debian's arm64 Linux kernel
  (fetched with apt-get into the cache the first time) with
  -M virt -cpu cortex-a72 -smp 4 -m 1G (-smp N: N cores on both sides),
  alternating sides, N runs each.
  Linux boots twice per round: its default command line (KASLR, and so
  KPTI, on) and nokaslr (KPTI off: Linux at its best here). The table has
  medians (min–max), gometal over the faster Linux, the better side.
  -json keeps every sample; -compare prints what changed beyond the noise
  (min–max ranges that do not overlap) since an earlier -json file.
  -profile samples every core of every gometal run (as run -profile) and
  writes one pprof profile of them all; gometal's figures then include
  the sampling's cost.
  -board rpi4 boots gometal on QEMU's raspi4b instead (4 cores, 2G; the
  gometal side only).
  FIGURE names rows to run (default: all but gobuild_cold_s and
  gobuild_warm_s, which take minutes a boot and run only when named):
`

// The machine both sides boot on (bench -smp changes the cores).
const (
	benchSMP    = 4 // the default
	benchMemory = "1G"
	benchCPU    = "cortex-a72"
	benchStart  = "bench: start" // the guest's first line
)

// Figures the harness reads itself (the rest are the guest's BENCH
// lines): two measured by the host, one from the kernel's boot log.
const (
	figBoot  = "boot_to_first_line_ms"
	figReady = "kernel_ready_ms"
	figIdle  = "idle_cpu_pct"
)

// kernelReadyRE is gometal's boot-log line with its own boot time.
var kernelReadyRE = regexp.MustCompile(`(?m)^gometal: kernel ready in (\d+) us`)

type benchOptions struct {
	cmdline []string // the command, for the document
	board   linker.Board
	side    string
	smp     int // cores on both sides (the board's own on rpi4)
	runs    int
	quick   bool
	idle    int
	out     string
	json    string
	compare string
	timeout time.Duration
	figures []string
	// traceCost adds a gometal side with the kernel trace on, and a
	// table of what recording costs.
	traceCost bool
	// profile, if set, is where the gometal side's runs' merged
	// whole-system profile goes, sampled at profileHz per core.
	profile   string
	profileHz int
}

func benchCmd(args []string) int {
	o := benchOptions{cmdline: append([]string{"bench"}, args...)}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(os.Stderr, benchUsage)
		for _, f := range benchFigures {
			fmt.Fprintf(os.Stderr, "    %-24s %s (%s)\n", f.Name, f.About, f.Unit)
		}
		fs.PrintDefaults()
	}
	boardName := fs.String("board", "virt", "board gometal boots on: virt or rpi4")
	fs.StringVar(&o.side, "side", "both", "gometal, linux (both Linux command lines) or both")
	fs.IntVar(&o.smp, "smp", benchSMP, "cores of the QEMU machine, on both sides (-board rpi4 has its own 4)")
	fs.IntVar(&o.runs, "runs", 3, "runs per side")
	fs.BoolVar(&o.quick, "quick", false, "tiny iteration counts: checks the harness, measures nothing")
	fs.IntVar(&o.idle, "idle", 5, "seconds the guest sleeps for idle_cpu_pct")
	fs.StringVar(&o.out, "o", "", "also write the table with its settings to this Markdown file")
	fs.StringVar(&o.json, "json", "", "also write every sample to this JSON file")
	fs.StringVar(&o.compare, "compare", "", "compare with the samples in this earlier -json file")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "longest one boot may take")
	fs.BoolVar(&o.traceCost, "trace-cost", false, "also boot gometal with the kernel trace on (-trace), alternating, and tabulate its cost")
	fs.StringVar(&o.profile, "profile", "", "write a whole-system pprof profile of the gometal runs (all merged) to this file")
	fs.IntVar(&o.profileHz, "profile-hz", 1000, "samples per second per core for -profile (1 to 10000)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	o.figures = fs.Args()
	for _, name := range o.figures {
		if !knownFigure(name) {
			return fail("bench: unknown figure %q (gometal bench -h lists them)", name)
		}
	}
	if o.side != "both" && o.side != "gometal" && o.side != "linux" {
		return fail("bench: -side %q: want both, gometal or linux", o.side)
	}
	if o.runs < 1 {
		return fail("bench: -runs %d: want at least 1", o.runs)
	}
	if o.smp < 1 || o.smp > 8 {
		return fail("bench: -smp %d: want 1 to 8", o.smp)
	}
	if o.profile != "" {
		if o.side == "linux" {
			return fail("bench: -profile profiles the gometal side: drop -side linux")
		}
		if o.profileHz < 1 || o.profileHz > 10000 {
			return fail("bench: -profile-hz %d: want 1 to 10000", o.profileHz)
		}
		abs, err := hostPathArg(o.profile)
		if err != nil {
			return fail("bench: -profile: %v", err)
		}
		o.profile = abs
	}
	var old *benchResults
	if o.compare != "" {
		var err error
		if old, err = loadResults(o.compare); err != nil {
			return fail("bench: %v", err)
		}
	}
	var err error
	if o.board, err = linker.LookupBoard(*boardName); err != nil {
		return fail("bench: %v", err)
	}
	smpSet := false
	fs.Visit(func(f *flag.Flag) { smpSet = smpSet || f.Name == "smp" })
	if smpSet && o.board.FixedSMP != 0 && o.smp != o.board.FixedSMP {
		return fail("bench: -smp %d: the %s board always has %d cores", o.smp, o.board.Name, o.board.FixedSMP)
	}
	if o.board.Name != "virt" && o.side != "gometal" {
		return fail("bench: -board %s runs the gometal side only (the Linux guest boots on virt): add -side gometal", o.board.Name)
	}
	if err := checkQEMUHas(o.board); err != nil {
		return fail("bench: %v", err)
	}
	if err := runBench(&o, old); err != nil {
		fmt.Fprintf(os.Stderr, "gometal bench: %v\n", err)
		return 1
	}
	return 0
}

func knownFigure(name string) bool {
	for _, f := range benchFigures {
		if f.Name == name {
			return true
		}
	}
	return false
}

// wantsGoBuild reports whether a go build figure was asked for: the
// storage boots then get the bigger disk and the toolchain.
func (o *benchOptions) wantsGoBuild() bool {
	return o.wants("gobuild_cold_s") || o.wants("gobuild_warm_s")
}

func (o *benchOptions) wants(name string) bool {
	if len(o.figures) == 0 {
		return !isGoBuildFigure(name)
	}
	for _, f := range o.figures {
		if f == name {
			return true
		}
	}
	return false
}

// guestArgs are the benchmark program's arguments: the guest figures
// asked for (none: all), -quick first.
func (o *benchOptions) guestArgs() (args []string, any bool) {
	if o.quick {
		args = append(args, "-quick")
	}
	for _, f := range benchFigures {
		if f.Name == figBoot || f.Name == figReady || f.Name == figIdle || isNetFigure(f.Name) || isDiskFigure(f.Name) || !o.wants(f.Name) {
			continue
		}
		any = true
		if len(o.figures) > 0 {
			args = append(args, f.Name)
		}
	}
	return args, any
}

// benchSide knows how to boot the benchmark program on one kernel.
type benchSide struct {
	name string
	// klog: the program prints the kernel's KPTI/KASLR lines (Linux).
	klog bool
	// qemuArgs is the QEMU command line that runs the program with args.
	qemuArgs func(args []string) ([]string, error)
	// netQEMUArgs is the command line that runs examples/httpserver
	// with QEMU's isolated user networking and fwd forwarded in (the
	// network figures, benchnet.go).
	netQEMUArgs func(fwd []qemu.Forward) ([]string, error)
	// diskQEMUArgs is the command line that runs the program with args
	// and img attached as its disk (the storage figures, benchdisk.go).
	diskQEMUArgs func(args []string, img string) ([]string, error)
}

func runBench(o *benchOptions, old *benchResults) error {
	if _, err := exec.LookPath(qemu.Binary); err != nil {
		return qemu.ErrNoQEMU
	}
	root, err := linker.FindRoot(srcRoot)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "gometal-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	commit := sourceCommit() // what is about to be built
	app := filepath.Join(tmp, "bench")
	fmt.Fprintln(os.Stderr, "gometal bench: building tests/progs/bench")
	if err := linker.BuildApp(filepath.Join(root, "tests", "progs", "bench"), app, os.Stderr); err != nil {
		return err
	}

	netApp, err := o.buildNetApp(root, tmp)
	if err != nil {
		return err
	}
	var sides []benchSide
	var linuxInfo linuxKernel
	ran := map[string]bool{}
	if o.side != "linux" {
		profileHz := 0
		if o.profile != "" {
			profileHz = o.profileHz
		}
		s, err := gometalSide(root, tmp, app, netApp, o.board, o.smp, false, profileHz)
		if err != nil {
			return err
		}
		sides = append(sides, s)
		if o.traceCost {
			s, err := gometalSide(root, tmp, app, netApp, o.board, o.smp, true, 0)
			if err != nil {
				return err
			}
			sides = append(sides, s)
		}
	}
	if o.side != "gometal" {
		k, initrd, netInitrd, diskInitrd, err := linuxGuest(root, tmp, app, netApp, len(o.diskArgs()) > 0)
		if err != nil {
			return err
		}
		sides = append(sides, linuxSide(sideLinux, k, initrd, netInitrd, diskInitrd, o.smp), linuxSide(sideLinuxNoKASLR, k, initrd, netInitrd, diskInitrd, o.smp, "nokaslr"))
		linuxInfo = k
	}
	smp, _ := o.board.QEMUSize(o.smp, benchMemory)
	res := &benchResults{Commit: commit, Board: o.board.Name, SMP: smp, Runs: o.runs, Samples: map[string]samples{}, KernelLog: map[string][]string{}}
	got := res.Samples
	for _, s := range sides {
		ran[s.name] = true
		got[s.name] = samples{}
	}
	args, anyGuest := o.guestArgs()
	if anyGuest || o.wants(figBoot) || o.wants(figReady) {
		for i := 1; i <= o.runs; i++ {
			for _, s := range sides {
				fmt.Fprintf(os.Stderr, "gometal bench: run %d/%d on %s ... ", i, o.runs, s.name)
				sargs := args
				if s.klog {
					sargs = append([]string{"-klog"}, args...)
				}
				figs, klog, err := benchBoot(s, sargs, o.timeout)
				if err != nil {
					fmt.Fprintln(os.Stderr, "failed")
					return fmt.Errorf("%s: %v", s.name, err)
				}
				fmt.Fprintf(os.Stderr, "%d figures, first line after %.0f ms\n", len(figs), figs[figBoot])
				for _, f := range []string{figBoot, figReady} {
					if !o.wants(f) {
						delete(figs, f)
					}
				}
				got[s.name].add(figs)
				if len(res.KernelLog[s.name]) == 0 {
					res.KernelLog[s.name] = klog
				}
			}
		}
	}
	if o.wants(figIdle) && o.idle > 0 {
		for i := 1; i <= o.runs; i++ {
			for _, s := range sides {
				fmt.Fprintf(os.Stderr, "gometal bench: idle run %d/%d on %s (%d s) ... ", i, o.runs, s.name, o.idle)
				pct, err := benchIdle(s, o.idle, o.timeout)
				if err != nil {
					fmt.Fprintln(os.Stderr, "failed")
					return fmt.Errorf("%s: %v", s.name, err)
				}
				fmt.Fprintf(os.Stderr, "%.1f%%\n", pct)
				got[s.name].add(map[string]float64{figIdle: pct})
			}
		}
	}

	if dargs := o.diskArgs(); len(dargs) > 0 {
		n := 0
		size, goroot := int64(benchDiskBytes), ""
		if o.wantsGoBuild() {
			if goroot, err = benchToolchain(tmp); err != nil {
				return fmt.Errorf("the go build figures' toolchain: %v", err)
			}
			size = benchGoBuildDiskBytes
		}
		for i := 1; i <= o.runs; i++ {
			for _, s := range sides {
				fmt.Fprintf(os.Stderr, "gometal bench: storage run %d/%d on %s ... ", i, o.runs, s.name)
				n++
				img, err := benchDiskImage(tmp, n, size, goroot)
				if err != nil {
					fmt.Fprintln(os.Stderr, "failed")
					return err
				}
				figs, why, err := benchDiskBoot(s, dargs, img, o.timeout)
				os.Remove(img)
				os.RemoveAll(benchShareDir(img))
				if err != nil {
					fmt.Fprintln(os.Stderr, "failed")
					return fmt.Errorf("%s: %v", s.name, err)
				}
				switch {
				case why != "" && len(figs) > 0:
					fmt.Fprintf(os.Stderr, "%d figures; the others do not run: %s\n", len(figs), why)
				case why != "":
					fmt.Fprintf(os.Stderr, "does not run: %s\n", why)
				default:
					fmt.Fprintf(os.Stderr, "%d figures\n", len(figs))
				}
				for name := range figs {
					if !o.wants(name) {
						delete(figs, name)
					}
				}
				got[s.name].add(figs)
			}
		}
	}

	if netApp != "" {
		for i := 1; i <= o.runs; i++ {
			for _, s := range sides {
				fmt.Fprintf(os.Stderr, "gometal bench: network run %d/%d on %s ... ", i, o.runs, s.name)
				figs, err := benchNet(s, o)
				if err != nil {
					fmt.Fprintln(os.Stderr, "failed")
					return fmt.Errorf("%s: %v", s.name, err)
				}
				fmt.Fprintf(os.Stderr, "%.0f requests/s, in %.1f MiB/s, out %.1f MiB/s, %.0f connections/s\n",
					figs[figHTTPRate], figs[figTCPIn], figs[figTCPOut], figs[figConnect])
				for name := range figs {
					if !o.wants(name) {
						delete(figs, name)
					}
				}
				got[s.name].add(figs)
			}
		}
	}

	if o.profile != "" {
		if err := benchProfile(tmp, app, o.profile); err != nil {
			return err
		}
	}

	rows := summarize(got, ran)
	table := markdownTable(filterRows(rows, o))
	if o.traceCost {
		table += "\n" + traceCostTable(got, o)
	}
	fmt.Print(table)
	res.fillIn(linuxInfo)
	if old != nil {
		fmt.Print(compareResults(old, res))
	}
	if o.json != "" {
		if err := res.save(o.json); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "gometal bench: wrote %s\n", o.json)
	}
	if o.out != "" {
		doc := benchDoc(o, table, res)
		if err := os.WriteFile(o.out, []byte(doc), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "gometal bench: wrote %s\n", o.out)
	}
	return nil
}

// filterRows keeps the rows asked for.
func filterRows(rows []benchRow, o *benchOptions) []benchRow {
	var out []benchRow
	for _, r := range rows {
		if o.wants(r.Fig.Name) {
			out = append(out, r)
		}
	}
	return out
}

// gometalSide boots the program with the board's kernel and the usual
// initramfs (argv in /.gometal/argv). The kernel's info log stays on
// (no "quiet"): it carries the kernel-ready time.
// With traced, the kernel records its trace (gometal.trace=, the
// rings written to a file in tmp at exit): the side that measures what
// recording costs.
// gometalSide is gometal booting the program on smp cores (unless the
// board fixes them); traced records the kernel trace, profileHz (if not
// 0) samples each figures run (not the idle ones).
// netApp, if not "", is examples/httpserver, built, for the network
// figures.
func gometalSide(root, tmp, app, netApp string, board linker.Board, smpWanted int, traced bool, profileHz int) (benchSide, error) {
	k, err := linker.BuildKernel(root, board, os.Stderr)
	if err != nil {
		return benchSide{}, err
	}
	dtb, err := writeDTB(board, tmp)
	if err != nil {
		return benchSide{}, err
	}
	smp, mem := board.QEMUSize(smpWanted, benchMemory)
	n := 0
	name := sideGometal
	if traced {
		name = sideGometalTraced
	}
	// config is the boot of prog with args.
	config := func(prog string, args []string) (qemu.Config, error) {
		rd := &linker.Initramfs{App: prog, Argv: append([]string{"/init"}, args...), Env: defaultEnv}
		b, err := rd.Bytes()
		if err != nil {
			return qemu.Config{}, err
		}
		n++
		path := filepath.Join(tmp, fmt.Sprintf("gometal-%d.cpio", n))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return qemu.Config{}, err
		}
		c := qemu.Config{Kernel: k.Image, Initrd: path, DTB: dtb, Machine: board.QEMUMachine, CPU: benchCPU, SMP: smp, Memory: mem}
		if traced {
			c.Append = append(c.Append, "gometal.trace="+filepath.Join(tmp, fmt.Sprintf("trace-%d", n)))
		}
		return c, nil
	}
	s := benchSide{name: name, qemuArgs: func(args []string) ([]string, error) {
		c, err := config(app, args)
		if err != nil {
			return nil, err
		}
		if profileHz != 0 && (len(args) == 0 || args[0] != "idle") {
			c.Append = append(c.Append, "gometal.profile="+filepath.Join(tmp, fmt.Sprintf("%s%d", benchProfPrefix, n)), fmt.Sprintf("gometal.profile_hz=%d", profileHz))
		}
		return c.Args(), nil
	}}
	s.diskQEMUArgs = func(args []string, img string) ([]string, error) {
		c, err := config(app, args)
		if err != nil {
			return nil, err
		}
		return append(c.Args(), diskQEMUArgs(img)...), nil
	}
	if netApp != "" {
		s.netQEMUArgs = func(fwd []qemu.Forward) ([]string, error) {
			c, err := config(netApp, nil)
			if err != nil {
				return nil, err
			}
			c.Net, c.Forwards = qemu.NetIsolated, fwd
			return c.Args(), nil
		}
	}
	return s, nil
}

// linuxGuest fetches Debian's kernel and packs the program as its /init;
// with netApp (not ""), also an initramfs that runs netApp networked
// (netInitrd).
func linuxGuest(root, tmp, app, netApp string, disk bool) (k linuxKernel, initrd, netInitrd, diskInitrd string, err error) {
	if k, err = fetchLinuxKernel(os.Stderr); err != nil {
		return k, "", "", "", err
	}
	rd, err := linker.LinuxInitramfs(app)
	if err != nil {
		return k, "", "", "", err
	}
	initrd = filepath.Join(tmp, "linux.cpio")
	if err := os.WriteFile(initrd, rd, 0o644); err != nil {
		return k, "", "", "", err
	}
	if disk {
		mods, err := k.modules(storageModulePaths)
		if err != nil {
			return k, "", "", "", err
		}
		if rd, err = linker.LinuxInitramfs(app, mods...); err != nil {
			return k, "", "", "", err
		}
		diskInitrd = filepath.Join(tmp, "linux-disk.cpio")
		if err := os.WriteFile(diskInitrd, rd, 0o644); err != nil {
			return k, "", "", "", err
		}
	}
	if netApp == "" {
		return k, initrd, "", diskInitrd, nil
	}
	mods, err := k.netModules()
	if err != nil {
		return k, "", "", "", err
	}
	netinit := filepath.Join(tmp, "netinit")
	fmt.Fprintln(os.Stderr, "gometal bench: building tests/progs/netinit")
	if err := linker.BuildApp(filepath.Join(root, "tests", "progs", "netinit"), netinit, os.Stderr); err != nil {
		return k, "", "", "", err
	}
	if rd, err = linker.LinuxNetInitramfs(netinit, netApp, mods); err != nil {
		return k, "", "", "", err
	}
	netInitrd = filepath.Join(tmp, "linux-net.cpio")
	return k, initrd, netInitrd, diskInitrd, os.WriteFile(netInitrd, rd, 0o644)
}

// linuxCmdline is the Linux guest's command line before its own words:
// the console, no chatter, reboot at once on a panic.
var linuxCmdline = []string{"console=ttyAMA0", "quiet", "loglevel=1", "panic=-1"}

// linuxSide boots the program as /init on Debian's kernel on smp cores
// with extra command-line words; the program's arguments follow "--".
// netInitrd, if not "", boots examples/httpserver under
// tests/progs/netinit for the network figures.
func linuxSide(name string, k linuxKernel, initrd, netInitrd, diskInitrd string, smp int, extra ...string) benchSide {
	boot := func(initrd string, args []string) []string {
		// Linux gives init the words it does not know (nokaslr among
		// them) before those after "--": the program's own start after
		// its mark (tests/progs/bench argsMark).
		cmdline := append(append(append([]string{}, linuxCmdline...), extra...), "--", "--args")
		cmdline = append(cmdline, args...)
		return []string{
			"-M", "virt", "-cpu", benchCPU, "-smp", fmt.Sprint(smp), "-m", benchMemory,
			"-display", "none", "-monitor", "none",
			"-chardev", "stdio,id=con,signal=off", "-serial", "chardev:con",
			"-kernel", k.Image, "-initrd", initrd, "-append", strings.Join(cmdline, " "), "-no-reboot",
		}
	}
	s := benchSide{name: name, klog: true, qemuArgs: func(args []string) ([]string, error) {
		return append(boot(initrd, args), "-nic", "none"), nil
	}}
	if diskInitrd != "" {
		s.diskQEMUArgs = func(args []string, img string) ([]string, error) {
			return append(append(boot(diskInitrd, args), "-nic", "none"), diskQEMUArgs(img)...), nil
		}
	}
	if netInitrd != "" {
		s.netQEMUArgs = func(fwd []qemu.Forward) ([]string, error) {
			// The same device and network as gometal's side.
			return append(boot(netInitrd, nil), qemu.NetArgs(qemu.NetIsolated, "virt", fwd, nil, "")...), nil
		}
	}
	return s
}

// guestRun is one boot: QEMU's output as it comes, with hooks on lines.
func guestRun(s benchSide, args []string, timeout time.Duration, onLine func(line string, qemuPID int)) (string, error) {
	qargs, err := s.qemuArgs(args)
	if err != nil {
		return "", err
	}
	return runQEMU(qargs, timeout, onLine)
}

// runQEMU runs QEMU with qargs, killed after timeout, and returns its
// output; onLine sees each line as it comes.
func runQEMU(qargs []string, timeout time.Duration, onLine func(line string, qemuPID int)) (string, error) {
	cmd := exec.Command(qemu.Binary, qargs...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return "", err
	}
	timer := time.AfterFunc(timeout, func() { cmd.Process.Kill() })
	defer timer.Stop()
	var out strings.Builder
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		out.WriteString(line + "\n")
		onLine(line, cmd.Process.Pid)
	}
	err = cmd.Wait()
	if err != nil {
		return out.String(), fmt.Errorf("QEMU: %v; output:\n%s", err, out.String())
	}
	return out.String(), nil
}

// benchBoot runs the program once and returns its figures, with the time
// from QEMU's start to the program's first line, and its KLOG lines.
func benchBoot(s benchSide, args []string, timeout time.Duration) (map[string]float64, []string, error) {
	start := time.Now()
	var first time.Duration
	out, err := guestRun(s, args, timeout, func(line string, _ int) {
		if first == 0 && line == benchStart {
			first = time.Since(start)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	if first == 0 || !strings.Contains(out, "bench: done") {
		return nil, nil, fmt.Errorf("the program did not start and finish; output:\n%s", out)
	}
	figs, err := parseBench(out)
	if err != nil {
		return nil, nil, err
	}
	var klog []string
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "KLOG "); ok {
			klog = append(klog, rest)
		}
	}
	figs[figBoot] = float64(first.Microseconds()) / 1000
	if m := kernelReadyRE.FindStringSubmatch(out); m != nil {
		us, _ := strconv.ParseFloat(m[1], 64)
		figs[figReady] = us / 1000
	}
	return figs, klog, nil
}

// benchIdle boots the program's idle mode and returns QEMU's CPU use, in
// percent of one host core, while the guest sleeps.
func benchIdle(s benchSide, seconds int, timeout time.Duration) (float64, error) {
	var cpu0, cpu1 time.Duration
	var t0, t1 time.Time
	var sampleErr error
	sample := func(pid int) (time.Duration, time.Time) {
		d, err := qemu.CPUTime(pid)
		if err != nil {
			sampleErr = err
		}
		return d, time.Now()
	}
	out, err := guestRun(s, []string{"idle", fmt.Sprint(seconds)}, timeout, func(line string, pid int) {
		switch line {
		case "idle: sleeping":
			cpu0, t0 = sample(pid)
		case "idle: awake":
			cpu1, t1 = sample(pid)
		}
	})
	if err != nil {
		return 0, err
	}
	if sampleErr != nil {
		return 0, sampleErr
	}
	if t0.IsZero() || t1.IsZero() {
		return 0, fmt.Errorf("the program did not sleep and wake; output:\n%s", out)
	}
	return 100 * float64(cpu1-cpu0) / float64(t1.Sub(t0)), nil
}

// benchDoc is docs/BENCHMARKS.md: the table with everything needed to
// rerun it, and the Linux guest's own words on KPTI and KASLR.
func benchDoc(o *benchOptions, table string, res *benchResults) string {
	var b strings.Builder
	if o.board.Name == "virt" {
		fmt.Fprintf(&b, "# gometal vs Linux: benchmarks\n\n")
	} else {
		fmt.Fprintf(&b, "# gometal on QEMU %s (board %s): benchmarks\n\n", o.board.QEMUMachine, o.board.Name)
	}
	_, guestFigures := o.guestArgs()
	fmt.Fprintf(&b, "Measured %s with `gometal %s` (`make bench` runs it with every figure).\n\n", res.Date, strings.Join(o.cmdline, " "))
	if guestFigures {
		fmt.Fprintf(&b, "- The same static Go program, [`tests/progs/bench`](../tests/progs/bench/main.go), is `/init` on every side.\n")
	}
	if o.wantsNet() && o.board.Name == "virt" {
		fmt.Fprintf(&b, "- The network figures boot [`examples/httpserver`](../examples/httpserver/main.go), unchanged: as `/init` on gometal, and on Linux as `/app` under [`tests/progs/netinit`](../tests/progs/netinit/main.go), which loads Debian's virtio-mmio and virtio-net modules and addresses eth0 first. Both sides get the same `virtio-net-device` on QEMU's user networking with `restrict=on`, the guest's port 8080 forwarded from a host loopback port; the load comes from the harness on the host ([`cmd/gometal/benchnet.go`](../cmd/gometal/benchnet.go)).\n")
	}
	if len(o.diskArgs()) > 0 {
		size := "256 MiB"
		if o.wantsGoBuild() {
			size = "1 GiB"
		}
		fmt.Fprintf(&b, "- The storage figures (`ext4_*`, `p9_*`, `gobuild_*`) run in boots of their own, each with a fresh %s image made by e2fsprogs' `mke2fs -t ext4` (Debian's defaults: extents, 64bit, metadata_csum, the journal) holding a 64 MiB `read.dat` (`mke2fs -d`), attached as the same `virtio-blk-device` (QEMU's default cache, writeback on the host), mounted at `/mnt/disk` by the program; on Linux it first loads Debian's modules for it (virtio-mmio, virtio-blk, ext4 and what ext4 needs) ([`cmd/gometal/benchdisk.go`](../cmd/gometal/benchdisk.go), [`tests/progs/bench/storage.go`](../tests/progs/bench/storage.go)). A side that cannot mount it prints why, and its cells say \"does not run\"; a side that can mount it read-only only runs the read figure alone. Beside it a host directory is shared over virtio-9p (QEMU's local fsdev), mounted at `/mnt/share`; for the go build figures it holds the linux/arm64 Go toolchain of the host's Go version (the module proxy's `golang.org/toolchain`), which both sides run from there ([`tests/progs/bench/gobuild.go`](../tests/progs/bench/gobuild.go)).\n", size)
	}
	if o.board.Name == "virt" {
		fmt.Fprintf(&b, "- All boot under `qemu-system-aarch64 -M virt -cpu %s -smp %d -m %s`, TCG (software emulation) on a %d-CPU %s/%s host.\n", benchCPU, o.smp, benchMemory, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	} else {
		fmt.Fprintf(&b, "- gometal boots under `qemu-system-aarch64 -M %s -smp %d -m %s -dtb %s`, TCG (software emulation) on a %d-CPU %s/%s host.\n", o.board.QEMUMachine, o.board.FixedSMP, o.board.FixedMemory, o.board.DTB, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	}
	fmt.Fprintf(&b, "- QEMU: %s\n", res.QEMU)
	if res.Linux != "" {
		fmt.Fprintf(&b, "- Linux: %s, booted twice per round: with the command line `%s` (its default: KASLR on, and with it kernel page-table isolation, KPTI, so every system call switches page tables), and with `nokaslr` added (no KASLR, no KPTI: Linux at its best on a Cortex-A72, which Meltdown does not affect). Each figure's ratio is against the faster of the two.\n", res.Linux, strings.Join(linuxCmdline, " "))
		for _, sd := range []string{sideLinux, sideLinuxNoKASLR} {
			if !guestFigures {
				break // only the benchmark program reads the kernel's log
			}
			lines := res.KernelLog[sd]
			fmt.Fprintf(&b, "  - %s, its own boot log:", linuxLabel(sd))
			if len(lines) == 0 {
				b.WriteString(" no line about KPTI or KASLR (it reports page-table isolation only when it turns it on, and on this CPU only KASLR does)")
			}
			for _, l := range lines {
				fmt.Fprintf(&b, " `%s`", l)
			}
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "- gometal: commit %s, board `%s`.\n", res.Commit, o.board.Name)
	if res.Linux != "" {
		fmt.Fprintf(&b, "- Runs alternate (gometal, Linux, Linux nokaslr, gometal, ...), %d per side; cells are median (min–max). \"better\" marks the better of gometal and the faster Linux (within 2%%: tie).\n\n", o.runs)
	} else {
		fmt.Fprintf(&b, "- %d runs; cells are median (min–max). The Linux guest boots on `virt` only: compare with the gometal column of [BENCHMARKS.md](BENCHMARKS.md).\n\n", o.runs)
	}
	b.WriteString(table)
	b.WriteString("\nA cell that says \"does not run\" is a figure that side could not produce.\n")
	for _, f := range benchFigures {
		if strings.HasPrefix(f.Name, "scale") && o.wants(f.Name) {
			b.WriteString(scalingNote) // the scale* figures ran
			break
		}
	}
	b.WriteString("Rerun one side or one figure while developing: `make build && bin/gometal bench -side gometal -runs 1 getpid_ns`.\n")
	return b.String()
}

// scalingNote says what bounds the scale* figures under TCG, for the
// document.
const scalingNote = `
The scale* figures (the same independent work on 1, 2 and 4 cores at once) are bounded by QEMU as well as by
the kernel under test: TCG delivers every exception, each system call's included, holding QEMU's big lock
(the BQL: ` + "`cpu_handle_exception`" + ` in accel/tcg/cpu-exec.c), so system calls on different vCPUs
take turns in QEMU whatever the guest kernel does, and 4 vCPUs on a 2-CPU host cannot all run at once.
The shorter a guest's system call, the larger the share of it spent waiting for that lock; in our runs
Linux with KPTI, whose every call is long, shows the best figure. Compare gometal's with Linux nokaslr's.
`

// benchProfPrefix names the raw profiles of the gometal runs in the
// bench's temporary directory.
const benchProfPrefix = "profile-"

// benchProfile merges the raw profiles of the gometal runs into one pprof
// file at out and says what it holds.
func benchProfile(tmp, app, out string) error {
	raws, err := filepath.Glob(filepath.Join(tmp, benchProfPrefix+"*"))
	if err != nil {
		return err
	}
	if len(raws) == 0 {
		return fmt.Errorf("-profile: %v", errNoProfile)
	}
	var pps []*profile.Profile
	var summaries []string
	for _, raw := range raws {
		p, pp, err := buildPprof(raw, app)
		if err != nil {
			return err
		}
		pps = append(pps, pp)
		summaries = append(summaries, p.summary())
	}
	merged, err := profile.Merge(pps)
	if err != nil {
		return fmt.Errorf("-profile: merging %d runs' profiles: %v", len(pps), err)
	}
	if err := savePprof(merged, out); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gometal bench: profile of %d gometal runs in %s (first run: %s)\n", len(pps), out, summaries[0])
	fmt.Fprintf(os.Stderr, "gometal bench: top: %s; see it all: go tool pprof -http=: %s\n", strings.Join(topFunctions(merged, 3), ", "), out)
	return nil
}
