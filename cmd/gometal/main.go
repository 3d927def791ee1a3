// Command gometal boots Go programs on the gometal kernel under QEMU.
//
//	gometal run   [flags] <pkg-dir | app.elf> [-- args...]
//	gometal run   -uroot [-uroot-cmds LIST] [flags] [<pkg-dir | app.elf>]
//	gometal exec  [flags] <app.elf> [args...]     (for go test -exec)
//	gometal build [-board virt|rpi4] [-o dir] [<pkg-dir | app.elf>]
//	gometal flash -board rpi4 -device /dev/sdX <pkg-dir | app.elf>
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/gometal/gometal/linker"
	"github.com/gometal/gometal/qemu"
	"github.com/u-root/u-root/pkg/cpio"
)

// srcRoot is set by `make build` (-ldflags -X main.srcRoot=...).
var srcRoot string

// The stats switch: the kernel prints its counters at exit (syscalls,
// IRQs, signals, per-core scheduling) when booted with statsBootarg.
const (
	statsEnv     = "GOMETAL_STATS=1"
	statsBootarg = "gometal.stats=1"
	// lockcheckBootarg turns on the kernel's lock-order checker
	// (drivers/cpu/lockorder.go).
	lockcheckBootarg = "gometal.lockcheck=1"
)

// exitUsage is the status for bad flags or input.
const exitUsage = 2

const usage = `usage:
  gometal run   [flags] <pkg-dir | app.elf> [-- args...]   boot a Go program
  gometal run   -uroot [-uroot-cmds LIST] [flags] [<pkg-dir | app.elf>]
                                                           boot u-root's init and shell (gosh), the
                                                           program (if given) in /bin
  gometal exec  [flags] <app.elf> [args...]                for go test -exec "gometal exec"
  gometal exec  -uroot [flags] <app.elf> [args...]         the same, u-root's commands in $PATH
                                                           (/bbin, /usr/bin, /bin/sh)
  gometal build [-board virt|rpi4] [-o dir] [-bootarg W]... [-uroot [-uroot-cmds LIST]] [<pkg-dir | app.elf>]
                                                           virt: kernel.elf, Image (and initramfs.cpio);
                                                           rpi4: kernel.elf, boot/ and sdcard.img
  gometal flash -board rpi4 -device /dev/sdX|FILE.img [-yes] [-force] <pkg-dir | app.elf>
                                                           write the SD card image to a card
  gometal disk create -size N [-from DIR] [-label L] [-force] FILE
                                                           an ext4 disk image (e2fsprogs' mke2fs), of
                                                           DIR's tree if given
  gometal disk check FILE                                  e2fsck -fn: exit 0 if the ext4 image is clean
  gometal bench-uroot [-runs N] [-smp N] [-o FILE]         u-root's shell on gometal and on Linux:
                                                           prompt, 200 commands, ls -R, ps
  gometal bench [-side both|gometal|linux] [-runs N] [-quick] [-o FILE] [FIGURE...]
                                                           the benchmark program on gometal and on
                                                           Debian's arm64 Linux, alternating; a table
  gometal linux [-disk FILE[:ro]]... <pkg-dir | app.elf> [-- args...]
                                                           the same program as /init on the benchmark's
                                                           Debian arm64 Linux (nokaslr): the reference
  gometal trace [-o OUT.html] [-json OUT.json] [-go GOTRACE] FILE
                                                           a kernel trace (run -trace): per-core table;
                                                           -o: an HTML timeline (offline; zoom, pan, hover);
                                                           -json: Chrome/Perfetto trace events;
                                                           -go: the run's Go execution trace, drawn per P,
                                                           with its GC phases and stop-the-world pauses
  gometal lab [start NAME [DIR] | grade NAME]              the labs (docs/LABS.md): list them, make a working
                                                           copy with a lab's code removed, grade a tree
flags for run and exec:
  -smp N          cores, 1 to 8 (default 4): GOMAXPROCS and NumCPU follow
  -m SIZE         guest memory (default 512M for run, 1G for exec)
  -timeout D      kill QEMU after D (default 60s for run; exec: -test.timeout + 30s, else 10m)
  -env K=V        environment entry for the app (repeatable); GOMETAL_STATS=1
                  (here or in the host environment) prints kernel counters at exit
  -board NAME     virt (default) or rpi4 (QEMU raspi4b: 4 cores, 2G, fixed)
  -net MODE       user (default; GOMETAL_NET in the host environment sets
                  another): QEMU user networking behind a virtio-net device,
                  the guest at 10.0.2.15 by DHCP, the host's router at 10.0.2.2;
                  isolated: the same with nothing leaving the host
                  (restrict=on); none: no network device (rpi4: always)
  -p HOST:GUEST[/tcp|/udp]  forward the host's 127.0.0.1:HOST to the guest's
                  port GUEST (repeatable; as docker run -p, tcp by default)
  -disk FILE[:GUEST][:ro]  attach a raw disk image (repeatable): the guest's
                  /dev/vda, /dev/vdb, ... with its MBR or GPT partitions
                  (/dev/vda1); on rpi4 the SD card, /dev/mmcblk0 (a power of
                  two in size). With GUEST (an absolute path) the kernel
                  mounts the disk's ext4 there at boot, read-write (read-
                  only with :ro); gometal disk create makes ext4
                  images (docs/STORAGE.md)
  -bootarg W      extra kernel command-line word (repeatable; e.g. gometal.stats=1;
                  gometal.lockcheck=1, or GOMETAL_LOCKCHECK=1 in the host environment,
                  checks every kernel lock taken against the lock order)
  -qemu-arg A     extra QEMU argument (repeatable)
  -machine M      QEMU -M value (default virt)
  -gdb            start QEMU halted, waiting for gdb-multiarch on :1234
  -trace FILE     record the kernel trace (per core: threads run and why they
                  stopped, idle, interrupts, SGIs, syscalls, signal frames)
                  and write it to FILE at exit; read it with gometal trace
  -profile FILE   sample every core (app PCs with their Go call chains, the
                  kernel by activity, idle) and write a pprof profile to FILE
                  at exit: go tool pprof -http=: FILE
  -profile-hz N   samples per second per core for -profile (default 1000)
  -copyout GUEST:HOST  at exit, copy the file the app left at GUEST (absolute,
                  in the guest) to HOST, e.g. a Go execution trace for
                  gometal trace -go HOST (repeatable, up to 4)
  -v HOST:GUEST[:ro]  share the host directory HOST with the guest over
                  virtio-9p (QEMU -fsdev local + virtio-9p-device; the
                  kernel learns GUEST from gometal.9p=TAG:GUEST) and mount
                  it at GUEST at boot, read-write (each write reaches the
                  host before the call returns); :ro mounts it read-only
                  and makes QEMU refuse writes too
                  (repeatable; docs/STORAGE.md). gometal exec shares
                  $GOROOT/src read-only at its own path
  -verbose        print the QEMU command line
flags for run, build and exec:
  -uroot          u-root's userland instead of the program as /init: its
                  cmds/core commands as one busybox (/bbin), u-root's init
                  as /init, gosh as /bin/sh; the program, if given, goes
                  in /bin (built once, about 3 minutes, then cached).
                  With exec the test binary stays /init and the commands
                  are in $PATH (/bin:/usr/bin:/bbin), linked in /usr/bin
  -uroot-cmds L   with -uroot: the commands, "core" (default: all of
                  cmds/core) or names separated by commas (init and gosh
                  are always in)
  -uroot-gosh B   with -uroot: gosh's build, "small" (default: reads
                  whole lines, which the console edits) or "full" (its
                  line editor: history, Tab completion; at a terminal
                  only, and its input may stall: docs/UROOT.md); each
                  is built once
Interactive runs: Ctrl-A x ends QEMU; Ctrl-A b then t prints the kernel's
state dump (SysRq: a BREAK, then the key).
`

func main() {
	os.Exit(run(os.Args[1:]))
}

func fail(format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "gometal: "+format+"\n", a...)
	return exitUsage
}

func run(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "run":
		return boot(args[1:], false)
	case "exec":
		return boot(args[1:], true)
	case "build":
		return build(args[1:])
	case "bench":
		return benchCmd(args[1:])
	case "bench-uroot":
		return benchURootCmd(args[1:])
	case "flash":
		return flashCmd(args[1:])
	case "trace":
		return traceCmd(args[1:])
	case "lab":
		return labCmd(args[1:])
	case "relay":
		return relayCmd(args[1:])
	case "disk":
		return diskCmd(args[1:])
	case "linux":
		return linuxCmd(args[1:])
	case "help", "-h", "-help", "--help":
		fmt.Print(usage)
		return 0
	}
	fmt.Fprintf(os.Stderr, "gometal: unknown command %q\n%s", args[0], usage)
	return exitUsage
}

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// options are the flags of run and exec.
type options struct {
	smp      int
	mem      string
	timeout  time.Duration
	env      listFlag
	board    string
	bootargs listFlag
	qemuArgs listFlag
	machine  string
	gdb      bool
	verbose  bool
	shares   listFlag
	trace    string
	copyout  listFlag
	profile  string
	profHz   int
	net      string
	ports    listFlag
	hostPort listFlag
	disks    listFlag
	uroot    urootFlags
	set      map[string]bool // flags given on the command line
}

// urootFlags are -uroot, -uroot-cmds and -uroot-gosh, of run, build
// and exec.
type urootFlags struct {
	on   bool
	cmds string
	gosh string // linker.GoshSmall or linker.GoshFull
}

func (u *urootFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&u.on, "uroot", false, "boot u-root's init and shell, the program (if any) in /bin")
	fs.StringVar(&u.cmds, "uroot-cmds", "core", "with -uroot: core, or cmds/core command names separated by commas")
	fs.StringVar(&u.gosh, "uroot-gosh", linker.GoshSmall, "with -uroot: gosh's build, small (reads lines) or full (its line editor; input may stall: docs/UROOT.md)")
}

// check refuses -uroot-cmds or -uroot-gosh without -uroot, and a gosh
// build that does not exist.
func (u *urootFlags) check(set func(string) bool) error {
	for _, f := range []string{"uroot-cmds", "uroot-gosh"} {
		if set(f) && !u.on {
			return fmt.Errorf("-%s needs -uroot", f)
		}
	}
	if u.gosh != linker.GoshFull && u.gosh != linker.GoshSmall {
		return fmt.Errorf("-uroot-gosh %q: want small or full", u.gosh)
	}
	return nil
}

// urootInitramfs is u-root's initramfs (built or from the cache) with
// the program app (a host path, "" for none) as /bin/NAME, NAME from
// target; init gets no arguments, as a kernel starts it.
func urootInitramfs(u urootFlags, app, target string) (*linker.Initramfs, error) {
	path, err := linker.BuildURoot(u.cmds, u.gosh, os.Stderr)
	if err != nil {
		return nil, err
	}
	base, err := linker.ReadArchive(path)
	if err != nil {
		return nil, err
	}
	rd := &linker.Initramfs{Base: base, Argv: []string{"/init"}, Env: append([]string(nil), defaultEnv...)}
	if app != "" {
		rd.App, rd.AppPath = app, "/bin/"+appName(target)
	}
	return rd, nil
}

// urootUserland lays u-root's commands under rd for exec -uroot: the
// test binary stays /init, and the commands are in $PATH as /bbin/NAME,
// with links in /usr/bin as well (Go's os tests list /usr/bin) and
// /bin/sh the shell, so tests that run sh, cat, echo or true find them.
func urootUserland(rd *linker.Initramfs, u urootFlags) error {
	path, err := linker.BuildURoot(u.cmds, u.gosh, os.Stderr)
	if err != nil {
		return err
	}
	base, err := linker.ReadArchive(path)
	if err != nil {
		return err
	}
	// The test binary is /init: u-root's link of that name goes.
	base = slices.DeleteFunc(base, func(r cpio.Record) bool { return r.Name == "init" })
	rd.Base, rd.AppPath = linker.WithUsrBin(base), "/init"
	for i, e := range rd.Env {
		if strings.HasPrefix(e, "PATH=") {
			rd.Env[i] = "PATH=/bin:/usr/bin:/bbin"
		}
	}
	return nil
}

// appName is the name a program goes by in /bin: its package
// directory's or its file's.
func appName(target string) string {
	if abs, err := filepath.Abs(target); err == nil {
		target = abs
	}
	return strings.TrimSuffix(filepath.Base(target), ".elf")
}

func parseFlags(name string, args []string, exec bool) (*options, []string, error) {
	o := &options{}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() { fmt.Fprint(os.Stderr, usage) }
	defMem := "512M"
	if exec {
		defMem = "1G"
	}
	fs.IntVar(&o.smp, "smp", 4, "cores")
	fs.StringVar(&o.mem, "m", defMem, "guest memory")
	fs.DurationVar(&o.timeout, "timeout", 0, "kill QEMU after this long")
	fs.Var(&o.env, "env", "K=V for the app")
	fs.StringVar(&o.board, "board", "virt", "board")
	fs.Var(&o.bootargs, "bootarg", "kernel command-line word")
	fs.Var(&o.qemuArgs, "qemu-arg", "extra QEMU argument")
	fs.StringVar(&o.machine, "machine", "", "QEMU -M value")
	fs.BoolVar(&o.gdb, "gdb", false, "wait for gdb")
	fs.BoolVar(&o.verbose, "verbose", false, "print the QEMU command")
	fs.Var(&o.shares, "v", "HOST:GUEST[:ro]: a host directory shared over virtio-9p")
	fs.StringVar(&o.trace, "trace", "", "write the kernel trace to this file")
	fs.Var(&o.copyout, "copyout", "GUEST:HOST: copy a file the app leaves to the host at exit")
	fs.StringVar(&o.profile, "profile", "", "write a whole-system pprof profile (app, kernel, idle) to this file")
	fs.IntVar(&o.profHz, "profile-hz", 1000, "samples per second per core for -profile (1 to 10000)")
	// GOMETAL_NET in the host environment is the default (the system
	// tests set isolated, so that no test reaches past the host).
	defNet := string(qemu.NetUser)
	if v := os.Getenv("GOMETAL_NET"); v != "" {
		defNet = v
	}
	fs.StringVar(&o.net, "net", defNet, "network: user, isolated or none")
	fs.Var(&o.ports, "p", "HOST:GUEST[/tcp|/udp]: forward a host port into the guest")
	fs.Var(&o.hostPort, "host-port", "PORT: let the guest reach the host's 127.0.0.1:PORT at "+qemu.HostAddr+":PORT (TCP)")
	fs.Var(&o.disks, "disk", "FILE[:ro]: attach a raw disk image (repeatable: vda, vdb, ...)")
	o.uroot.register(fs)
	if err := fs.Parse(args); err != nil {
		return nil, nil, err
	}
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	if err := o.uroot.check(func(n string) bool { return o.set[n] }); err != nil {
		return nil, nil, err
	}
	for _, e := range o.env {
		if !strings.Contains(e, "=") {
			return nil, nil, fmt.Errorf("-env %q: want K=V", e)
		}
		if e == statsEnv {
			o.bootargs = append(o.bootargs, statsBootarg)
		}
	}
	// The host's own GOMETAL_STATS=1 counts too, so that
	// GOMETAL_STATS=1 go test -exec "gometal exec" reports every boot.
	if os.Getenv("GOMETAL_STATS") == "1" {
		o.bootargs = append(o.bootargs, statsBootarg)
	}
	// GOMETAL_LOCKCHECK=1 boots the kernel with its lock-order checker on
	// (the system tests set it for every boot), unless a -bootarg says
	// otherwise.
	if os.Getenv("GOMETAL_LOCKCHECK") == "1" && !slices.ContainsFunc(o.bootargs, func(a string) bool { return strings.HasPrefix(a, "gometal.lockcheck=") }) {
		o.bootargs = append(o.bootargs, lockcheckBootarg)
	}
	if o.smp < 1 || o.smp > 8 {
		return nil, nil, fmt.Errorf("-smp %d: want 1 to 8", o.smp)
	}
	return o, fs.Args(), nil
}

// fbconBootarg turns the Pi's screen console on (1) or off (0).
const fbconBootarg = "gometal.fbcon="

// splitArgs separates the target from the app's arguments. For run the
// app's arguments follow "--"; for exec everything after the binary is
// the test binary's.
func splitArgs(rest []string, exec bool) (string, []string, error) {
	if len(rest) == 0 {
		return "", nil, errors.New("no program given")
	}
	target, appArgs := rest[0], rest[1:]
	if !exec && len(appArgs) > 0 {
		if appArgs[0] != "--" {
			return "", nil, fmt.Errorf("unexpected %q: put the program's arguments after --", appArgs[0])
		}
		appArgs = appArgs[1:]
	}
	return target, appArgs, nil
}

// passEnv are the host variables exec passes through to test binaries.
var passEnv = []string{"GODEBUG", "GOTRACEBACK", "GOGC", "GOMAXPROCS", "GOMEMLIMIT"}

// defaultEnv is every app's base environment.
var defaultEnv = []string{"HOME=/", "PATH=/bin", "TERM=dumb"}

// dumpMargin is how long before the run's timeout the kernel prints its
// state dump (every process and thread, and what each waits for), so
// that a run killed for taking too long says where it was: enough for
// QEMU's boot, the dump and the console to drain.
const dumpMargin = 3 * time.Second

// dumpAfter is when after the kernel's start the dump is due for a run
// of timeout (0: none, for a timeout too short to leave the margin).
func dumpAfter(timeout time.Duration) time.Duration {
	if timeout <= 2*dumpMargin {
		return 0
	}
	return timeout - dumpMargin
}

var testTimeoutRE = regexp.MustCompile(`^-?-test\.timeout=(.+)$`)

const (
	execTimeoutMargin  = 30 * time.Second
	execDefaultTimeout = 10 * time.Minute
	runDefaultTimeout  = 60 * time.Second
)

func boot(args []string, exec bool) int {
	name := "run"
	if exec {
		name = "exec"
	}
	o, rest, err := parseFlags(name, args, exec)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return fail("%v", err)
	}
	var target string
	var appArgs []string
	if o.uroot.on && !exec {
		if len(rest) > 1 {
			return fail("-uroot takes at most one program (it goes in /bin; run it from the shell with its arguments), got %q", rest)
		}
		if len(rest) == 1 {
			target = rest[0]
		}
		if o.profile != "" {
			return fail("-profile with -uroot: not yet (the profile's symbols come from one program)")
		}
	} else if target, appArgs, err = splitArgs(rest, exec); err != nil {
		return fail("%v\n%s", err, usage)
	}
	board, err := linker.LookupBoard(o.board)
	if err != nil {
		return fail("%v", err)
	}
	if err := o.fitBoard(board); err != nil {
		return fail("%v", err)
	}
	tmp, err := os.MkdirTemp("", "gometal-")
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(tmp)

	var app string
	if target != "" {
		if app, err = resolveApp(target, tmp); err != nil {
			return fail("%v", err)
		}
	}
	root, err := linker.FindRoot(srcRoot)
	if err != nil {
		return fail("%v", err)
	}
	var progress *os.File
	if !exec {
		progress = os.Stderr
	}
	k, err := linker.BuildKernel(root, board, progressWriter(progress))
	if err != nil {
		return fail("%v", err)
	}

	rd := &linker.Initramfs{App: app, Argv: append([]string{"/init"}, appArgs...)}
	rd.Env = append(rd.Env, defaultEnv...)
	switch {
	case o.uroot.on && exec:
		if err := urootUserland(rd, o.uroot); err != nil {
			return fail("%v", err)
		}
	case o.uroot.on:
		if rd, err = urootInitramfs(o.uroot, app, target); err != nil {
			return fail("%v", err)
		}
	}
	timeout := o.timeout
	if exec {
		for _, v := range passEnv {
			if val, ok := os.LookupEnv(v); ok {
				rd.Env = append(rd.Env, v+"="+val)
			}
		}
		wd, err := os.Getwd()
		if err != nil {
			return fail("%v", err)
		}
		rd.Cwd = wd
		// $GOROOT/src is shared read-only at its own path, so a
		// test finds what it reads there (../../testdata, testenv.GOROOT's
		// tree) as on a builder whose GOROOT is read-only; a package
		// inside it is read from the share rather than carried.
		src := ""
		if board.QEMUMachine == "virt" { // virtio-9p needs virt's virtio-mmio slots
			src = goSrcShare()
		}
		if src != "" {
			o.shares = append(o.shares, src+":"+src+":ro")
		}
		rd.Trees, rd.Files = testFiles(wd, src != "" && within(wd, src))
		var outs []string
		rd.Argv, outs = testOutputs(rd.Argv, wd)
		o.copyout = append(o.copyout, outs...)
		if timeout == 0 {
			timeout = execDefaultTimeout
			for _, a := range appArgs {
				if m := testTimeoutRE.FindStringSubmatch(a); m != nil {
					if d, err := time.ParseDuration(m[1]); err == nil && d > 0 {
						timeout = d + execTimeoutMargin
					}
				}
			}
		}
	} else if timeout == 0 {
		timeout = runDefaultTimeout
	}
	rd.Env = append(rd.Env, o.env...)
	cpioBytes, err := rd.Bytes()
	if err != nil {
		return fail("packing the initramfs: %v", err)
	}
	initrd := filepath.Join(tmp, "initramfs.cpio")
	if err := os.WriteFile(initrd, cpioBytes, 0o644); err != nil {
		return fail("%v", err)
	}

	cfg := &qemu.Config{
		Kernel: k.Image, KernelELF: k.ELF, Initrd: initrd,
		Machine: board.QEMUMachine, SMP: o.smp, Memory: o.mem,
		Extra: o.qemuArgs, GDB: o.gdb, Timeout: timeout, Net: qemu.Net(o.net),
		Stdout: os.Stdout, Stderr: os.Stderr,
	}
	for _, v := range o.disks {
		d, err := qemu.ParseDisk(v)
		if err != nil {
			return fail("%v", err)
		}
		cfg.Disks = append(cfg.Disks, d)
	}
	for _, v := range o.shares {
		sh, err := qemu.ParseShare(v)
		if err != nil {
			return fail("%v", err)
		}
		cfg.Shares = append(cfg.Shares, sh)
	}
	for _, p := range o.ports {
		f, err := qemu.ParseForward(p)
		if err != nil {
			return fail("%v", err)
		}
		if f.Proto == "udp" && cfg.Net == qemu.NetIsolated {
			// libslirp's udp_input drops every datagram from the guest
			// under restrict=on, replies to a forward included.
			fmt.Fprintf(os.Stderr, "gometal: -p %s: with -net isolated, datagrams reach the guest but QEMU drops its replies (use -net user for both ways)\n", p)
		}
		cfg.Forwards = append(cfg.Forwards, f)
	}
	for _, p := range o.hostPort {
		port, err := qemu.ParseHostPort(p)
		if err != nil {
			return fail("%v", err)
		}
		cfg.HostPorts = append(cfg.HostPorts, port)
	}
	if len(cfg.HostPorts) > 0 {
		if cfg.Relay, err = os.Executable(); err != nil {
			return fail("-host-port: %v", err)
		}
	}
	if cfg.DTB, err = writeDTB(board, tmp); err != nil {
		return fail("%v", err)
	}
	if o.machine != "" {
		cfg.Machine = o.machine
	}
	if exec {
		cfg.Append = append(cfg.Append, "quiet")
	}
	if board.QEMUMachine == "raspi4b" && !slices.ContainsFunc(o.bootargs, func(a string) bool { return strings.HasPrefix(a, fbconBootarg) }) {
		// QEMU runs with -display none: nobody sees the screen, and
		// drawing the console there costs TCG a few milliseconds a
		// line (QEMU tracks the framebuffer's pages for its display,
		// so every store takes its slow path). -bootarg
		// gometal.fbcon=1 draws it (TestRPi4ScreenConsole); a card
		// gometal build or flash makes draws it by default.
		cfg.Append = append(cfg.Append, fbconBootarg+"0")
	}
	cfg.Append = append(cfg.Append, o.bootargs...)
	qemu.RPi4RTC(cfg) // the Pi's wall clock, from an RTC on its I2C bus
	if d := dumpAfter(timeout); d > 0 {
		cfg.Append = append(cfg.Append, fmt.Sprintf("gometal.dumpafter=%d", d.Milliseconds()))
	}
	if o.trace != "" {
		arg, err := traceBootarg(o.trace)
		if err != nil {
			return fail("-trace: %v", err)
		}
		cfg.Append = append(cfg.Append, arg)
	}
	var profRaw string
	if o.profile != "" {
		if o.profHz < 1 || o.profHz > 10000 {
			return fail("-profile-hz %d: want 1 to 10000", o.profHz)
		}
		if _, err := hostPathArg(o.profile); err != nil {
			return fail("-profile: %v", err)
		}
		profRaw = filepath.Join(tmp, "profile.raw")
		cfg.Append = append(cfg.Append, "gometal.profile="+profRaw, fmt.Sprintf("gometal.profile_hz=%d", o.profHz))
	}
	if len(o.copyout) > maxCopyouts {
		return fail("-copyout: at most %d files (the kernel keeps that many)", maxCopyouts)
	}
	for _, c := range o.copyout {
		arg, err := copyoutBootarg(c)
		if err != nil {
			return fail("-copyout: %v", err)
		}
		cfg.Append = append(cfg.Append, arg)
	}
	if o.gdb {
		cfg.Timeout = 0
		fmt.Fprintf(os.Stderr, "gometal: QEMU waits for gdb: gdb-multiarch %s -ex 'target remote :1234'\n", k.ELF)
	}
	restore := setupTerminal(cfg)
	if o.verbose {
		fmt.Fprintf(os.Stderr, "gometal: %s %s\n", qemu.Binary, strings.Join(cfg.Args(), " "))
	}
	status, err := qemu.Run(context.Background(), cfg)
	restore()
	if err != nil {
		fmt.Fprintf(os.Stderr, "gometal: %v\n", err)
		if status == 0 {
			return 1
		}
	}
	if o.trace != "" {
		reportTrace(o.trace)
	}
	if o.profile != "" {
		reportProfile(profRaw, app, o.profile)
	}
	for _, c := range o.copyout {
		host := c[strings.Index(c, ":")+1:]
		if _, err := os.Stat(host); err != nil {
			fmt.Fprintf(os.Stderr, "gometal: -copyout %s: nothing was copied (the kernel says why above, or the run ended before the app did)\n", c)
		}
	}
	return status
}

// traceBootarg checks the trace file's path and makes the boot argument
// that carries it.
func traceBootarg(path string) (string, error) {
	abs, err := hostPathArg(path)
	if err != nil {
		return "", err
	}
	return "gometal.trace=" + abs, nil
}

// testOutputFlags are the go test flags that make the test binary write
// a file (go test -trace, -cpuprofile, ...): under gometal exec the
// binary writes it in the guest, and the kernel copies it to the host
// path at exit (-copyout), so go test finds it where it asked.
// Coverage is not among them: it writes a directory (-test.gocoverdir),
// which -copyout cannot carry yet.
var testOutputFlags = []string{"trace", "cpuprofile", "memprofile", "blockprofile", "mutexprofile"}

// testOutputs rewrites the test binary's output-file flags to guest
// paths and returns the -copyout entries that bring them back. A
// relative path is in -test.outputdir (which go test sets), else in wd.
func testOutputs(argv []string, wd string) ([]string, []string) {
	outDir := wd
	for _, a := range argv {
		if v, ok := strings.CutPrefix(a, "-test.outputdir="); ok && v != "" {
			outDir = v
		}
	}
	var outs []string
	args := append([]string(nil), argv...)
	for i, a := range args {
		for _, f := range testOutputFlags {
			v, ok := strings.CutPrefix(a, "-test."+f+"=")
			if !ok || v == "" {
				continue
			}
			host := v
			if !filepath.IsAbs(host) {
				host = filepath.Join(outDir, host)
			}
			guest := "/tmp/gometal-test-" + f + ".out"
			args[i] = "-test." + f + "=" + guest
			outs = append(outs, guest+":"+host)
		}
	}
	return args, outs
}

// maxCopyouts is how many -copyout files the kernel takes
// (kernel.CopyoutArgs).
const maxCopyouts = 4

// copyoutBootarg checks -copyout GUEST:HOST and makes the boot argument
// gometal.copyout=GUEST:HOST with HOST absolute.
func copyoutBootarg(c string) (string, error) {
	guest, host, ok := strings.Cut(c, ":")
	if !ok || !strings.HasPrefix(guest, "/") || host == "" {
		return "", fmt.Errorf("%q: want GUEST:HOST, GUEST an absolute path in the guest (e.g. /tmp/go.trace:go.trace)", c)
	}
	if strings.ContainsAny(guest, " \t\n\"") {
		return "", fmt.Errorf("%q: the guest path must have no spaces or quotes (it travels as a kernel boot argument)", guest)
	}
	abs, err := hostPathArg(host)
	if err != nil {
		return "", err
	}
	return "gometal.copyout=" + guest + ":" + abs, nil
}

// hostPathArg makes path absolute and checks that it can travel as a
// boot argument to a file the kernel creates through semihosting, which
// QEMU answers relative to its own directory; a file left from an
// earlier run is removed, so it cannot pass for this run's.
func hostPathArg(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if strings.ContainsAny(abs, " \t\n\"") {
		return "", fmt.Errorf("%q: the path must have no spaces or quotes (it travels as a kernel boot argument)", abs)
	}
	if st, err := os.Stat(filepath.Dir(abs)); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%q: no such directory", filepath.Dir(abs))
	}
	if err := os.Remove(abs); err != nil && !os.IsNotExist(err) {
		return "", err
	}
	return abs, nil
}

// reportProfile converts the kernel's raw profile into a pprof file and
// says in two lines what it holds, or why there is none.
func reportProfile(raw, app, out string) {
	if _, err := os.Stat(raw); err != nil {
		fmt.Fprintf(os.Stderr, "gometal: %v\n", errNoProfile)
		return
	}
	p, pp, err := writePprof(raw, app, out)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gometal: %v\n", err)
		return
	}
	fmt.Fprintf(os.Stderr, "gometal: profile in %s: %s\n", out, p.summary())
	fmt.Fprintf(os.Stderr, "gometal: top: %s; see it all: go tool pprof -http=: %s\n", strings.Join(topFunctions(pp, 3), ", "), out)
}

// reportTrace says in one line what the trace holds, or why there is none.
func reportTrace(path string) {
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(os.Stderr, "gometal: %v\n", errNoTrace)
		return
	}
	t, err := readTrace(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gometal: %v\n", err)
		return
	}
	var n, lost uint64
	for i := range t.Cores {
		n += uint64(len(t.Cores[i].Events))
		lost += t.Cores[i].lost()
	}
	fmt.Fprintf(os.Stderr, "gometal: kernel trace in %s: %d cores, %d events (%d lost to full rings); gometal trace %s\n", path, len(t.Cores), n, lost, path)
}

// fitBoard checks the flags against what the board's QEMU machine can
// be, fills in its fixed cores and memory, and checks that the installed
// QEMU has the machine at all.
func (o *options) fitBoard(b linker.Board) error {
	if b.QEMUMachine == "" {
		return fmt.Errorf("board %s cannot be booted in QEMU; use gometal build and copy the files to its boot medium", b.Name)
	}
	if b.FixedSMP != 0 && o.set["smp"] && o.smp != b.FixedSMP {
		return fmt.Errorf("-smp %d: the %s board always has %d cores (QEMU %s fixes them)", o.smp, b.Name, b.FixedSMP, b.QEMUMachine)
	}
	if b.FixedMemory != "" && o.set["m"] && !sameSize(o.mem, b.FixedMemory) {
		return fmt.Errorf("-m %s: the %s board always has %s of memory (QEMU %s fixes it)", o.mem, b.Name, b.FixedMemory, b.QEMUMachine)
	}
	o.smp, o.mem = b.QEMUSize(o.smp, o.mem)
	if _, err := qemu.ParseNet(o.net); err != nil {
		return err
	}
	if b.QEMUMachine != "virt" && o.net != string(qemu.NetNone) {
		if o.set["net"] {
			return fmt.Errorf("-net %s: QEMU %s emulates no network device the %s kernel drives; use -net none", o.net, b.QEMUMachine, b.Name)
		}
		o.net = string(qemu.NetNone)
	}
	if len(o.ports) > 0 && o.net == string(qemu.NetNone) {
		return fmt.Errorf("-p needs a network: -net user or -net isolated")
	}
	return checkQEMUHas(b)
}

// checkQEMUHas says, in one sentence, if the installed QEMU lacks the
// board's machine.
func checkQEMUHas(b linker.Board) error {
	if b.QEMUSince == "" {
		return nil
	}
	return qemu.CheckMachine(b.QEMUMachine, b.QEMUSince)
}

// sameSize compares QEMU -m sizes: "2G", "2g", "2048M" and "2048" (MiB)
// are one size.
func sameSize(a, b string) bool {
	mib := func(s string) int64 {
		s = strings.ToUpper(strings.TrimSpace(s))
		mult := int64(1)
		switch {
		case strings.HasSuffix(s, "G"):
			mult, s = 1024, strings.TrimSuffix(s, "G")
		case strings.HasSuffix(s, "M"):
			s = strings.TrimSuffix(s, "M")
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return -1
		}
		return n * mult
	}
	return mib(a) >= 0 && mib(a) == mib(b)
}

// writeDTB puts the board's device tree in dir for QEMU's -dtb; "" when
// QEMU makes the device tree itself.
func writeDTB(b linker.Board, dir string) (string, error) {
	dtb, err := b.DTBBytes()
	if err != nil || dtb == nil {
		return "", err
	}
	if b.QEMUMachine == "raspi4b" {
		// QEMU has no firmware to apply config.txt: SPI0 on, as
		// dtparam=spi=on would have it (QEMU models the controller).
		if dtb, err = qemu.EnableRPi4SPI(dtb); err != nil {
			return "", err
		}
		// Nor firmware to describe the 2 GiB board's RAM above the
		// VideoCore's, which QEMU models but leaves out of the tree.
		if dtb, err = qemu.AddRPi4HighMemory(dtb); err != nil {
			return "", err
		}
	}
	path := filepath.Join(dir, b.DTB)
	return path, os.WriteFile(path, dtb, 0o644)
}

// setupTerminal gives the guest the keyboard: raw mode when stdin is a
// terminal (so Ctrl-C reaches the guest), plain copying otherwise.
func setupTerminal(cfg *qemu.Config) func() {
	cfg.Stdin = os.Stdin
	cfg.Terminal = qemu.IsTerminal(os.Stdout)
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return func() {}
	}
	old, err := term.MakeRaw(int(os.Stdin.Fd()))
	if err != nil {
		return func() {}
	}
	cfg.Terminal = true
	// The guest's console starts cooked with echo, as a Linux serial
	// console; piped input stays raw there (kernel/tty's Init). It
	// learns the terminal's size once: a resize later is not passed on.
	cfg.Append = append(cfg.Append, "gometal.echo=1")
	if cols, rows, err := term.GetSize(int(os.Stdin.Fd())); err == nil && rows > 0 && cols > 0 {
		cfg.Append = append(cfg.Append, fmt.Sprintf("gometal.rows=%d", rows), fmt.Sprintf("gometal.cols=%d", cols))
	}
	// While raw, the host sends no SIGINT; ignore stray ones anyway so
	// the terminal is always restored.
	signal.Ignore(os.Interrupt)
	fmt.Fprint(os.Stderr, "gometal: console attached; Ctrl-A x quits, Ctrl-A b t dumps the kernel's state\r\n")
	return func() { term.Restore(int(os.Stdin.Fd()), old) }
}

type nopWriter struct{}

func (nopWriter) Write(b []byte) (int, error) { return len(b), nil }

func progressWriter(f *os.File) interface{ Write([]byte) (int, error) } {
	if f == nil {
		return nopWriter{}
	}
	return f
}

// testFiles is what go test's working directory holds for the test: the
// package directory's tree (its files, testdata and subdirectories, as
// go test on Linux sees them) and the time zone database the time
// package's tests load from GOROOT. A package directory too big to carry
// is cut down to its own files and testdata, and the user is told.
func testFiles(wd string, shared bool) (trees, files []linker.Tree) {
	if shared {
		return nil, zoneinfoFile()
	}
	pkg := linker.Tree{Host: wd, Guest: wd, MaxFile: maxPackageFile}
	if n, count, err := linker.TreeSize(pkg); err == nil && n <= maxPackageTree && count <= maxPackageEntries {
		trees = append(trees, pkg)
	} else {
		switch {
		case err != nil:
		case n > maxPackageTree:
			fmt.Fprintf(os.Stderr, "gometal: %s holds %d MiB, more than the %d MiB carried into the guest; carrying only its own files and testdata\n", wd, n>>20, maxPackageTree>>20)
		default:
			fmt.Fprintf(os.Stderr, "gometal: %s holds %d files, more than the %d carried into the guest; carrying only its own files and testdata\n", wd, count, maxPackageEntries)
		}
		if st, err := os.Stat(filepath.Join(wd, "testdata")); err == nil && st.IsDir() {
			trees = append(trees, linker.Tree{Host: filepath.Join(wd, "testdata"), Guest: filepath.Join(wd, "testdata"), MaxFile: maxPackageFile})
		}
		ents, _ := os.ReadDir(wd)
		for _, e := range ents {
			if e.Type().IsRegular() {
				if info, err := e.Info(); err == nil && info.Size() <= maxPackageFile {
					files = append(files, linker.Tree{Host: filepath.Join(wd, e.Name())})
				}
			}
		}
	}
	// A testdata directory beside the package's parent, as
	// $GOROOT/src/testdata that net's sendfile tests read as
	// ../testdata, comes along when it is small.
	up := linker.Tree{Host: filepath.Join(filepath.Dir(wd), "testdata"), Guest: filepath.Join(filepath.Dir(wd), "testdata"), MaxFile: maxPackageFile}
	if st, err := os.Stat(up.Host); err == nil && st.IsDir() {
		if n, count, err := linker.TreeSize(up); err == nil && n <= maxSiblingTestdata && count <= maxPackageEntries/8 {
			trees = append(trees, up)
		}
	}
	return trees, append(files, zoneinfoFile()...)
}

// zoneinfoFile is the time zone database the time package's tests load
// from $GOROOT/lib/time (outside the shared src).
func zoneinfoFile() []linker.Tree {
	if goroot := hostGOROOT(); goroot != "" {
		zi := filepath.Join(goroot, "lib", "time", "zoneinfo.zip")
		if _, err := os.Stat(zi); err == nil {
			return []linker.Tree{{Host: zi}}
		}
	}
	return nil
}

// goSrcShare is $GOROOT/src, which gometal exec shares read-only at its
// own path (the test binary's runtime.GOROOT is the host's), or "" when
// there is none (no go command, or a GOROOT without its sources) or
// GOMETAL_EXEC_SHARE_GOROOT=0 says not to.
func goSrcShare() string {
	if os.Getenv("GOMETAL_EXEC_SHARE_GOROOT") == "0" {
		return ""
	}
	goroot := hostGOROOT()
	if goroot == "" {
		return ""
	}
	src := filepath.Join(goroot, "src")
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		return ""
	}
	return src
}

// within says whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// maxPackageFile keeps a stray large file in a package directory out of
// the initramfs; maxPackageTree bounds the whole package tree, which
// sits in guest memory (exec's default is 1G).
const (
	maxPackageFile = 16 << 20
	maxPackageTree = 128 << 20
	// maxPackageEntries leaves half of what an initramfs may hold for
	// the skeleton, the time zones and what the test makes.
	maxPackageEntries = linker.MaxInitramfsEntries / 2
	// maxSiblingTestdata bounds the ../testdata carried along.
	maxSiblingTestdata = 16 << 20
)

func hostGOROOT() string {
	if g := os.Getenv("GOROOT"); g != "" {
		return g
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// resolveApp builds a package directory or checks a ready ELF.
func resolveApp(target, tmp string) (string, error) {
	if linker.IsPackageDir(target) {
		out := filepath.Join(tmp, "app")
		if err := linker.BuildApp(target, out, os.Stderr); err != nil {
			return "", err
		}
		return out, nil
	}
	if err := linker.CheckApp(target); err != nil {
		return "", err
	}
	return target, nil
}

func build(args []string) int {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	board := fs.String("board", "virt", "board")
	out := fs.String("o", "build", "output directory")
	var bootargs listFlag
	fs.Var(&bootargs, "bootarg", "kernel command-line word (rpi4: cmdline.txt)")
	var uroot urootFlags
	uroot.register(fs)
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := uroot.check(func(n string) bool { return set[n] }); err != nil {
		return fail("%v", err)
	}
	if fs.NArg() > 1 {
		return fail("build takes one program, got %q", fs.Args())
	}
	b, err := linker.LookupBoard(*board)
	if err != nil {
		return fail("%v", err)
	}
	if b.DTB != "" && fs.NArg() == 0 && !uroot.on {
		fmt.Fprintf(os.Stderr, "gometal: no program given: writing the kernel only (the %s boot files need one: gometal build -board %s -o %s <pkg-dir | app.elf>)\n", b.Name, b.Name, *out)
	}
	art, err := buildArtifacts(b, fs.Arg(0), bootargs, uroot)
	if err != nil {
		return fail("%v", err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fail("%v", err)
	}
	say := func(path string) { fmt.Println(path) }
	if err := art.write(*out, say); err != nil {
		return fail("%v", err)
	}
	return 0
}

// artifacts are what build writes for a board.
type artifacts struct {
	board     linker.Board
	kernel    linker.Kernel
	initramfs []byte            // nil without a program
	boot      []linker.BootFile // the Pi's boot partition, nil elsewhere
}

// buildArtifacts builds the kernel for b and, given a program, its
// initramfs and (for boards with a device tree of their own, the Pi)
// the boot partition's files.
func buildArtifacts(b linker.Board, target string, bootargs []string, uroot urootFlags) (*artifacts, error) {
	root, err := linker.FindRoot(srcRoot)
	if err != nil {
		return nil, err
	}
	if b.Note != "" {
		fmt.Fprintf(os.Stderr, "gometal: note: %s\n", b.Note)
	}
	k, err := linker.BuildKernel(root, b, os.Stderr)
	if err != nil {
		return nil, err
	}
	a := &artifacts{board: b, kernel: k}
	if target == "" && !uroot.on {
		return a, nil
	}
	tmp, err := os.MkdirTemp("", "gometal-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var app string
	if target != "" {
		if app, err = resolveApp(target, tmp); err != nil {
			return nil, err
		}
	}
	rd := &linker.Initramfs{App: app, Argv: []string{"/init"}, Env: defaultEnv}
	if uroot.on {
		if rd, err = urootInitramfs(uroot, app, target); err != nil {
			return nil, err
		}
	}
	if a.initramfs, err = rd.Bytes(); err != nil {
		return nil, fmt.Errorf("packing the initramfs: %v", err)
	}
	if b.DTB == "" {
		return a, nil
	}
	image, err := os.ReadFile(k.Image)
	if err != nil {
		return nil, err
	}
	// The card's boot partition is mounted at /boot, its second at /perm.
	a.boot, err = linker.PiBootFiles(root, b, image, a.initramfs, append(bootargs[:len(bootargs):len(bootargs)], linker.BootMount, linker.PermMount))
	return a, err
}

// Output names of build.
const (
	bootDirName = "boot"
	sdImageName = "sdcard.img"
)

// write puts the artifacts in dir, telling say each path: kernel.elf
// (symbols, for gdb and panic reports) always; then Image and
// initramfs.cpio, or for the Pi the boot partition's files in dir/boot
// and the card image dir/sdcard.img.
func (a *artifacts) write(dir string, say func(string)) error {
	copyOut := func(src string) error {
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.Base(src))
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
		say(dst)
		return nil
	}
	if err := copyOut(a.kernel.ELF); err != nil {
		return err
	}
	if a.boot == nil {
		if err := copyOut(a.kernel.Image); err != nil {
			return err
		}
		if a.initramfs != nil {
			dst := filepath.Join(dir, "initramfs.cpio")
			if err := os.WriteFile(dst, a.initramfs, 0o644); err != nil {
				return err
			}
			say(dst)
		}
		return nil
	}
	bootDir := filepath.Join(dir, bootDirName)
	if err := linker.WriteBootDir(bootDir, a.boot); err != nil {
		return err
	}
	say(bootDir + string(filepath.Separator))
	img := filepath.Join(dir, sdImageName)
	if err := writeSDImage(img, a.boot); err != nil {
		return err
	}
	say(img)
	return nil
}

// permBytes is the size of the SD card image's /perm partition (ext4).
const permBytes = 64 << 20

// writeSDImage writes the card image: the boot partition's files, and an
// empty ext4 (mke2fs, labelled "perm") as its /perm partition.
func writeSDImage(img string, boot []linker.BootFile) error {
	tmp, err := os.MkdirTemp("", "gometal-perm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	perm := filepath.Join(tmp, "perm.img")
	if err := makeExt4Image(perm, permBytes, "", "perm"); err != nil {
		return fmt.Errorf("making the /perm partition: %v", err)
	}
	return linker.WriteSDImage(img, boot, perm)
}
