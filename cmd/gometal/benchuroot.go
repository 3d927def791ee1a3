package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gometal/gometal/linker"
	"github.com/gometal/gometal/qemu"
)

// gometal bench-uroot: the same u-root initramfs (gometal run -uroot's)
// booted on gometal and on Debian's Linux `nokaslr` under the same QEMU
// machine, driven through the console as a person would: the time to
// gosh's first prompt, then a script whose marker lines the host times
// as they appear.

// urootBenchScript is typed at the first prompt. Each "echo Mn" is a
// marker the host timestamps; the sleepers are waited for before ps.
const urootBenchScript = `echo M0
for i in $(seq 200); do /bbin/true; done
echo M1
ls -R / > /dev/null
echo M2
for i in $(seq 50); do /bbin/sleep 1000 & done
while [ $(pidof sleep | wc -w) -lt 50 ]; do /bbin/sleep 0.2; done
echo M3
ps > /dev/null
echo M4
poweroff
`

// urootFigures are the table's rows: name, what, and the markers they
// span ("" for the prompt, timed from QEMU's start).
var urootFigures = []struct {
	name, about string
	from, to    string
}{
	{"prompt_ms", "QEMU's start to gosh's first prompt (u-root's init: its mounts, the shell's start)", "", ""},
	{"true200_ms", "a gosh loop running /bbin/true 200 times (200 fork+exec+wait of the 13 MB busybox)", "M0", "M1"},
	{"ls_R_ms", "ls -R / of the whole initramfs, output to /dev/null", "M1", "M2"},
	{"ps50_ms", "ps with 50 sleeping processes (each /proc/PID read)", "M3", "M4"},
}

const benchURootUsage = `usage: gometal bench-uroot [-runs N] [-smp N] [-o FILE.md]

Boots the u-root initramfs of gometal run -uroot on gometal and on
Debian's Linux (nokaslr), alternating, and times, through the console:
`

func benchURootCmd(args []string) int {
	fs := flag.NewFlagSet("bench-uroot", flag.ContinueOnError)
	runs := fs.Int("runs", 3, "boots per side")
	smp := fs.Int("smp", benchSMP, "cores of the QEMU machine, both sides")
	out := fs.String("o", "", "also write the table with its settings to this Markdown file")
	fs.Usage = func() {
		fmt.Fprint(os.Stderr, benchURootUsage)
		for _, f := range urootFigures {
			fmt.Fprintf(os.Stderr, "    %-12s %s\n", f.name, f.about)
		}
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if *runs < 1 || *smp < 1 || *smp > 8 || fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	table, err := benchURoot(*runs, *smp)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gometal bench-uroot: %v\n", err)
		return 1
	}
	fmt.Print(table)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(table), 0o644); err != nil {
			return fail("bench-uroot: %v", err)
		}
	}
	return 0
}

// benchURoot runs the sides alternately and returns the Markdown table.
func benchURoot(runs, smp int) (string, error) {
	root, err := linker.FindRoot(srcRoot)
	if err != nil {
		return "", err
	}
	commit := sourceCommit()
	tmp, err := os.MkdirTemp("", "gometal-bench-uroot-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	board, _ := linker.LookupBoard("virt")
	k, err := linker.BuildKernel(root, board, os.Stderr)
	if err != nil {
		return "", err
	}
	// The script is piped in: the small gosh reads its lines.
	rd, err := urootInitramfs(urootFlags{on: true, cmds: "core", gosh: linker.GoshSmall}, "", "")
	if err != nil {
		return "", err
	}
	cpioBytes, err := rd.Bytes()
	if err != nil {
		return "", err
	}
	initrd := filepath.Join(tmp, "uroot.cpio")
	if err := os.WriteFile(initrd, cpioBytes, 0o644); err != nil {
		return "", err
	}
	lk, err := fetchLinuxKernel(os.Stderr)
	if err != nil {
		return "", err
	}
	gcfg := &qemu.Config{Kernel: k.Image, KernelELF: k.ELF, Initrd: initrd, Machine: board.QEMUMachine,
		SMP: smp, Memory: benchMemory, Net: qemu.NetIsolated}
	gcfg.Append = append(gcfg.Append, "quiet")
	sides := []struct {
		name string
		args []string
	}{
		{"gometal", gcfg.Args()},
		{"Linux nokaslr", []string{"-M", "virt", "-cpu", benchCPU, "-smp", fmt.Sprint(smp), "-m", benchMemory,
			"-display", "none", "-monitor", "none", "-chardev", "stdio,id=con,signal=off", "-serial", "chardev:con",
			"-kernel", lk.Image, "-initrd", initrd, "-append", strings.Join(append(append([]string{}, linuxCmdline...), "nokaslr"), " "),
			"-no-reboot", "-nic", "none"}},
	}
	samples := map[string]map[string][]float64{}
	for r := 0; r < runs; r++ {
		for _, s := range sides {
			fmt.Fprintf(os.Stderr, "gometal bench-uroot: %s, run %d of %d\n", s.name, r+1, runs)
			figs, err := urootBenchRun(s.args, 10*time.Minute)
			if err != nil {
				return "", fmt.Errorf("%s: %v", s.name, err)
			}
			if samples[s.name] == nil {
				samples[s.name] = map[string][]float64{}
			}
			for k, v := range figs {
				samples[s.name][k] = append(samples[s.name][k], v)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s with `gometal bench-uroot -runs %d -smp %d`: the same u-root v0.16.0 initramfs (`gometal run -uroot`'s, every cmds/core command) as the initramfs of gometal (commit %s) and of Debian's `%s` %s booted with `nokaslr`, under `qemu-system-aarch64 -M virt -cpu %s -smp %d -m %s`, alternating, %d boots each; cells are median (min–max) in ms, host wall time between lines on the console.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), runs, smp, commit, lk.Package, lk.Version, benchCPU, smp, benchMemory, runs)
	b.WriteString("| figure | gometal | Linux `nokaslr` | gometal / Linux |\n|---|---|---|---|\n")
	for _, f := range urootFigures {
		g, l := samples["gometal"][f.name], samples["Linux nokaslr"][f.name]
		gm, _, _ := stats(g)
		lm, _, _ := stats(l)
		fmt.Fprintf(&b, "| `%s`: %s | %s | %s | %.2f |\n", f.name, f.about, cell(g, true, true), cell(l, true, true), gm/lm)
	}
	return b.String(), nil
}

// urootBenchRun boots once: it types the script at the first prompt and
// times the prompt and the markers.
func urootBenchRun(qargs []string, timeout time.Duration) (map[string]float64, error) {
	cmd := exec.Command(qemu.Binary, qargs...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	kill := time.AfterFunc(timeout, func() { cmd.Process.Kill() })
	defer kill.Stop()
	go func() { cmd.Wait(); pw.Close() }()
	var out bytes.Buffer
	at := map[string]time.Duration{}
	buf := make([]byte, 4096)
	typed := false
	marker := regexp.MustCompile(`(?m)^(?:\$ )*(M[0-4])\r?$`) // gosh's prompts come before the output
	for {
		n, err := pr.Read(buf)
		out.Write(buf[:n])
		now := time.Since(start)
		if !typed && bytes.Contains(out.Bytes(), []byte("$ ")) {
			at["prompt"] = now
			typed = true
			io.WriteString(stdin, urootBenchScript)
		}
		for _, m := range marker.FindAllStringSubmatch(out.String(), -1) {
			if _, ok := at[m[1]]; !ok {
				at[m[1]] = now
			}
		}
		if err != nil {
			break
		}
	}
	figs := map[string]float64{}
	for _, f := range urootFigures {
		from, to := time.Duration(0), at["prompt"]
		if f.from != "" {
			from, to = at[f.from], at[f.to]
		}
		if to == 0 || (f.from != "" && from == 0) {
			return nil, fmt.Errorf("no %s in the output:\n%s", f.name, out.String())
		}
		figs[f.name] = float64((to - from).Microseconds()) / 1000
	}
	return figs, nil
}
