package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gometal/gometal/linker"
	"github.com/gometal/gometal/qemu"
)

// gometal linux: the reference side of "Linux is the reference". It boots
// a program as /init on the benchmark's Linux guest (Debian's own arm64
// kernel, nokaslr, the same QEMU machine as gometal bench) with the
// storage modules in /modules (the program loads them: guest.LoadModules)
// and the disks attached as gometal run attaches them, and prints what
// the guest printed. The tests' tests/testdata/*-linux.txt files are its
// output, so that a test compares gometal's lines with Linux's.

const linuxUsage = `usage: gometal linux [-disk FILE[:ro]]... [-qemu-arg A]... [-timeout D] <pkg-dir | app.elf> [-- args...]
  Boot the program as /init on Debian's arm64 Linux (the benchmark's guest,
  nokaslr) under the same QEMU machine, and print its console. The program
  loads the storage modules from /modules itself (virtio-mmio, virtio-blk,
  ext4, 9p: tests/progs/internal/guest.LoadModules) and mounts what it needs;
  each -disk is a virtio-blk disk, /dev/vda first, as gometal run attaches it;
  each -qemu-arg is an extra QEMU argument (a QMP socket, a device), as with run.
`

func linuxCmd(args []string) int {
	fs := flag.NewFlagSet("linux", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(os.Stderr, linuxUsage) }
	var disks listFlag
	fs.Var(&disks, "disk", "a raw disk image, FILE[:ro] (repeatable)")
	var qemuArgs listFlag
	fs.Var(&qemuArgs, "qemu-arg", "extra QEMU argument (repeatable)")
	timeout := fs.Duration("timeout", 5*time.Minute, "kill QEMU after this long")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fs.Usage()
		return exitUsage
	}
	target, progArgs := rest[0], rest[1:]
	if len(progArgs) > 0 && progArgs[0] == "--" {
		progArgs = progArgs[1:]
	}
	var ds []qemu.Disk
	for _, v := range disks {
		d, err := qemu.ParseDisk(v)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gometal linux:", err)
			return exitUsage
		}
		if d.Guest != "" {
			fmt.Fprintf(os.Stderr, "gometal linux: -disk %s: Linux mounts nothing at boot; give FILE[:ro] and mount it in the program\n", v)
			return exitUsage
		}
		ds = append(ds, d)
	}
	out, err := linuxRun(target, progArgs, ds, qemuArgs, *timeout)
	fmt.Print(out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gometal linux:", err)
		return 1
	}
	return 0
}

// linuxRun builds (or takes) the program, packs it with the storage
// modules and boots it on the Linux guest.
func linuxRun(target string, args []string, disks []qemu.Disk, extra []string, timeout time.Duration) (string, error) {
	tmp, err := os.MkdirTemp("", "gometal-linux-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	app := target
	if st, err := os.Stat(target); err == nil && st.IsDir() {
		app = filepath.Join(tmp, "app")
		if err := linker.BuildApp(target, app, os.Stderr); err != nil {
			return "", err
		}
	}
	k, err := fetchLinuxKernel(os.Stderr)
	if err != nil {
		return "", err
	}
	mods, err := k.modules(storageModulePaths)
	if err != nil {
		return "", err
	}
	rd, err := linker.LinuxInitramfs(app, mods...)
	if err != nil {
		return "", err
	}
	initrd := filepath.Join(tmp, "linux.cpio")
	if err := os.WriteFile(initrd, rd, 0o644); err != nil {
		return "", err
	}
	// Linux gives init the words it does not know before those after
	// "--"; the program's own follow its mark (tests/progs/bench's
	// argsMark, guest.Args).
	cmdline := append(append([]string{}, linuxCmdline...), "nokaslr", "--", "--args")
	cmdline = append(cmdline, args...)
	qargs := []string{
		"-M", "virt", "-cpu", benchCPU, "-smp", "4", "-m", benchMemory,
		"-display", "none", "-monitor", "none",
		"-chardev", "stdio,id=con,signal=off", "-serial", "chardev:con",
		"-kernel", k.Image, "-initrd", initrd, "-append", strings.Join(cmdline, " "), "-no-reboot", "-nic", "none",
	}
	qargs = append(qargs, qemu.DiskArgs(disks, "virt")...)
	qargs = append(qargs, extra...)
	return runQEMU(qargs, timeout, func(string, int) {})
}
