package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/gometal/gometal/linker"
)

// flash: build the SD card image for a board and write it to a removable
// card (or an image file), refusing anything that looks like a disk the
// user did not mean.

// maxCardBytes: a device larger than this is more likely a hard disk than
// an SD card; -force writes it anyway.
const maxCardBytes = 256 << 30

// Where the kernel describes block devices and mounts (overridden by tests).
var (
	sysClassBlock = "/sys/class/block"
	procMounts    = "/proc/mounts"
)

const sysSectorSize = 512 // /sys/class/block/*/size counts 512-byte sectors

func flashCmd(args []string) int {
	fs := flag.NewFlagSet("flash", flag.ContinueOnError)
	board := fs.String("board", "rpi4", "board")
	device := fs.String("device", "", "block device (/dev/sdX) or image file to write")
	yes := fs.Bool("yes", false, "do not ask before writing")
	force := fs.Bool("force", false, "write a device that is not removable or larger than 256 GiB")
	var bootargs listFlag
	fs.Var(&bootargs, "bootarg", "kernel command-line word (cmdline.txt)")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *device == "" || fs.NArg() != 1 {
		return fail("usage: gometal flash -board rpi4 -device /dev/sdX|FILE.img [-yes] [-force] <pkg-dir | app.elf>")
	}
	b, err := linker.LookupBoard(*board)
	if err != nil {
		return fail("%v", err)
	}
	if b.DTB == "" {
		return fail("board %s boots from no SD card image; flash is for rpi4", b.Name)
	}
	dev, err := checkFlashTarget(*device, *force)
	if err != nil {
		return fail("%v", err)
	}
	art, err := buildArtifacts(b, fs.Arg(0), bootargs, urootFlags{})
	if err != nil {
		return fail("%v", err)
	}
	tmp, err := os.MkdirTemp("", "gometal-flash-")
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(tmp)
	img := filepath.Join(tmp, sdImageName)
	if err := writeSDImage(img, art.boot); err != nil {
		return fail("%v", err)
	}
	if dev.block && !*yes {
		if !term.IsTerminal(int(os.Stdin.Fd())) {
			return fail("not writing %s without -yes: there is no terminal to ask on", dev.path)
		}
		fmt.Fprintf(os.Stderr, "gometal: everything on %s (%s) will be replaced. Write it? [y/N] ", dev.path, dev.describe())
		answer, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(os.Stderr, "gometal: nothing written")
			return 1
		}
	}
	if err := writeImage(img, dev, os.Stderr); err != nil {
		return fail("%v", err)
	}
	return 0
}

// flashTarget is where flash writes.
type flashTarget struct {
	path  string
	block bool   // a block device (else an image file)
	name  string // the kernel's name for it (sdb, mmcblk0)
	size  int64
	model string
}

func (t flashTarget) describe() string {
	s := fmt.Sprintf("%.1f GiB", float64(t.size)/(1<<30))
	if t.model != "" {
		s = t.model + ", " + s
	}
	return s
}

// checkFlashTarget says whether path may be written: an image file
// (existing or not), or a whole block device that is removable, not
// larger than maxCardBytes (both waived by force) and not mounted.
func checkFlashTarget(path string, force bool) (flashTarget, error) {
	t := flashTarget{path: path}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if strings.HasPrefix(path, "/dev/") {
			return t, fmt.Errorf("%s: no such device", path)
		}
		return t, nil // a new image file
	case err != nil:
		return t, err
	case st.Mode().IsRegular():
		return t, nil
	case st.Mode()&fs.ModeDevice == 0 || st.Mode()&fs.ModeCharDevice != 0:
		return t, fmt.Errorf("%s is neither a block device nor an image file", path)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return t, err
	}
	t.block, t.name = true, filepath.Base(real)
	return t, checkBlockDevice(&t, force)
}

// checkBlockDevice reads t's facts from sysfs and applies the rules.
func checkBlockDevice(t *flashTarget, force bool) error {
	sys := filepath.Join(sysClassBlock, t.name)
	if _, err := os.Stat(filepath.Join(sys, "partition")); err == nil {
		return fmt.Errorf("%s is a partition; name the whole card (e.g. /dev/sdb, not /dev/sdb1)", t.path)
	}
	sectors, err := readSysInt(filepath.Join(sys, "size"))
	if err != nil {
		return fmt.Errorf("%s: cannot read its size from %s: %v", t.path, sys, err)
	}
	t.size = sectors * sysSectorSize
	model, _ := os.ReadFile(filepath.Join(sys, "device", "model"))
	t.model = strings.TrimSpace(string(model))
	if m, err := mountedParts(t.name); err != nil {
		return err
	} else if len(m) > 0 {
		return fmt.Errorf("%s is mounted (%s); unmount it first", t.path, strings.Join(m, ", "))
	}
	if force {
		return nil
	}
	if removable, err := readSysInt(filepath.Join(sys, "removable")); err != nil || removable != 1 {
		return fmt.Errorf("%s (%s) is not a removable device; if it really is the SD card, add -force", t.path, t.describe())
	}
	if t.size > maxCardBytes {
		return fmt.Errorf("%s (%s) is larger than 256 GiB, unlike an SD card; if it really is the card, add -force", t.path, t.describe())
	}
	return nil
}

func readSysInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

// mountedParts lists the mounts of the device name or its partitions.
func mountedParts(name string) ([]string, error) {
	parts := map[string]bool{name: true}
	ents, _ := os.ReadDir(filepath.Join(sysClassBlock, name))
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), name) {
			parts[e.Name()] = true
		}
	}
	f, err := os.Open(procMounts)
	if err != nil {
		return nil, fmt.Errorf("cannot tell whether the device is mounted: %v", err)
	}
	defer f.Close()
	var mounted []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) < 2 || !strings.HasPrefix(fields[0], "/dev/") {
			continue
		}
		src := fields[0]
		if r, err := filepath.EvalSymlinks(src); err == nil {
			src = r
		}
		if parts[filepath.Base(src)] {
			mounted = append(mounted, fields[0]+" on "+fields[1])
		}
	}
	return mounted, s.Err()
}

// flashChunk is how much is written between progress reports.
const flashChunk = 4 << 20

// writeImage copies the image at src to t with progress on w, and
// syncs it to the medium.
func writeImage(src string, t flashTarget, w io.Writer) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if t.block && st.Size() > t.size {
		return fmt.Errorf("%s holds %d bytes, the image needs %d", t.path, t.size, st.Size())
	}
	flags := os.O_WRONLY
	if !t.block {
		flags |= os.O_CREATE | os.O_TRUNC
	}
	out, err := os.OpenFile(t.path, flags, 0o644)
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("cannot open %s for writing: permission denied (run as root, or join the group that owns it)", t.path)
	}
	if err != nil {
		return fmt.Errorf("cannot open %s for writing: %v", t.path, err)
	}
	total := st.Size()
	buf := make([]byte, flashChunk)
	var done int64
	for {
		n, rerr := in.Read(buf)
		if n > 0 {
			if _, err := out.Write(buf[:n]); err != nil {
				out.Close()
				return fmt.Errorf("writing %s: %v", t.path, err)
			}
			done += int64(n)
			fmt.Fprintf(w, "\rgometal: writing %s: %3d%% (%d of %d MiB)", t.path, done*100/total, done>>20, total>>20)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			out.Close()
			return rerr
		}
	}
	fmt.Fprintln(w)
	if err := out.Sync(); err != nil {
		out.Close()
		return fmt.Errorf("flushing %s: %v", t.path, err)
	}
	if err := out.Close(); err != nil {
		return err
	}
	fmt.Fprintf(w, "gometal: wrote %s; put the card in the Pi and connect the serial console (docs/RASPBERRY-PI.md)\n", t.path)
	return nil
}
