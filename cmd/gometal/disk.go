package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// gometal disk: disk images for gometal's block devices, made and checked
// by e2fsprogs, the reference implementation of ext4 (as the issue asks of
// every ext4 test): mke2fs -t ext4 with Debian's defaults (mke2fs.conf:
// extents, 64bit, flex_bg, metadata_csum, the jbd2 journal, ...), -d to
// fill it from a directory, and e2fsck -fn to check one read-only.

const diskUsage = `usage:
  gometal disk create -size N [-from DIR] [-label L] [-force] FILE
        make FILE an ext4 image of N bytes (suffixes K, M, G: powers of 1024),
        holding DIR's tree if -from is given; refuses to overwrite FILE without -force
  gometal disk check FILE
        check FILE's ext4 file system read-only (e2fsck -fn): exit 0 when clean
`

// Bounds on -size: mke2fs cannot fit an ext4 file system with a journal in
// less than 2 MiB of 1 KiB blocks, and a sparse image file past 16 TiB is
// past what the 4 KiB blocks of a 32-bit block count (without 64bit) and
// most hosts' file systems hold.
const (
	minDiskBytes = 2 << 20
	maxDiskBytes = 16 << 40
)

func diskCmd(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, diskUsage)
		return exitUsage
	}
	switch args[0] {
	case "create":
		return diskCreate(args[1:])
	case "check":
		return diskCheck(args[1:])
	case "help", "-h", "-help", "--help":
		fmt.Print(diskUsage)
		return 0
	}
	fmt.Fprintf(os.Stderr, "gometal disk: unknown command %q\n%s", args[0], diskUsage)
	return exitUsage
}

func diskCreate(args []string) int {
	fl := flag.NewFlagSet("disk create", flag.ContinueOnError)
	sizeArg := fl.String("size", "", "image size in bytes (suffixes K, M, G)")
	from := fl.String("from", "", "directory whose tree the file system holds")
	label := fl.String("label", "", "volume label (at most 16 bytes)")
	force := fl.Bool("force", false, "overwrite FILE if it exists")
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if fl.NArg() != 1 || *sizeArg == "" {
		fmt.Fprint(os.Stderr, diskUsage)
		return exitUsage
	}
	file := fl.Arg(0)
	size, err := parseSize(*sizeArg)
	if err != nil {
		return fail("disk create: -size %s: %v", *sizeArg, err)
	}
	if len(*label) > 16 {
		return fail("disk create: -label %q: longer than ext4's 16 bytes", *label)
	}
	if *from != "" {
		st, err := os.Stat(*from)
		if err != nil {
			return fail("disk create: -from: %v", err)
		}
		if !st.IsDir() {
			return fail("disk create: -from %s: not a directory", *from)
		}
	}
	if _, err := os.Lstat(file); err == nil && !*force {
		return fail("disk create: %s exists; remove it or pass -force", file)
	}
	if err := makeExt4Image(file, size, *from, *label); err != nil {
		return fail("disk create: %v", err)
	}
	what := "empty"
	if *from != "" {
		what = fmt.Sprintf("holding %s (%s)", *from, human(treeBytes(*from)))
	}
	fmt.Fprintf(os.Stderr, "gometal disk: %s: ext4, %s, %s\n", file, human(size), what)
	return 0
}

// makeExt4Image makes file an ext4 image of size bytes with mke2fs,
// holding from's tree if from is not "", labelled label if not "". A
// failure leaves no file.
func makeExt4Image(file string, size int64, from, label string) error {
	mke2fs, err := e2fsTool("mke2fs")
	if err != nil {
		return err
	}
	// mke2fs sizes the file system to the file when given no size, and
	// keeps a longer file's tail: make the file exactly size bytes
	// (sparse) first.
	f, err := os.OpenFile(file, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if err := f.Truncate(size); err != nil {
		f.Close()
		os.Remove(file)
		return err
	}
	f.Close()
	mkArgs := []string{"-t", "ext4", "-F", "-q"}
	if label != "" {
		mkArgs = append(mkArgs, "-L", label)
	}
	if from != "" {
		mkArgs = append(mkArgs, "-d", from)
	}
	mkArgs = append(mkArgs, file)
	var out bytes.Buffer
	cmd := exec.Command(mke2fs, mkArgs...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		os.Remove(file) // a half-made image is worse than none
		msg := strings.TrimSpace(out.String())
		if from != "" && strings.Contains(msg, "Could not allocate block") {
			msg += fmt.Sprintf(" (%s holds %s: make -size larger)", from, human(treeBytes(from)))
		}
		return fmt.Errorf("mke2fs %s: %v\n%s", strings.Join(mkArgs, " "), err, msg)
	}
	return nil
}

func diskCheck(args []string) int {
	if len(args) != 1 {
		fmt.Fprint(os.Stderr, diskUsage)
		return exitUsage
	}
	if _, err := os.Stat(args[0]); err != nil {
		return fail("disk check: %v", err)
	}
	e2fsck, err := e2fsTool("e2fsck")
	if err != nil {
		return fail("disk check: %v", err)
	}
	// -f: check even a file system marked clean; -n: open it read-only
	// and answer no to every question, so the image is never changed.
	cmd := exec.Command(e2fsck, "-f", "-n", args[0])
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			// e2fsck's exit codes (e2fsck(8)): 4 errors left uncorrected, 8
			// operational error; pass them on.
			fmt.Fprintf(os.Stderr, "gometal disk: %s: not clean (e2fsck exit %d)\n", args[0], ee.ExitCode())
			return ee.ExitCode()
		}
		return fail("disk check: %v", err)
	}
	return 0
}

// e2fsTool finds an e2fsprogs command, which lives in /sbin, off a
// user's PATH on Debian.
func e2fsTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/sbin", "/usr/sbin"} {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found: install e2fsprogs (make deps does)", name)
}

// parseSize reads a byte count with an optional K, M, G or T suffix
// (powers of 1024, as mke2fs and dd read them; a trailing B or iB is
// allowed).
func parseSize(s string) (int64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(s), "B"), "I")
	shift := 0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			shift = 10
		case 'M':
			shift = 20
		case 'G':
			shift = 30
		case 'T':
			shift = 40
		}
		if shift != 0 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("not a size (a positive number of bytes, or with K, M, G or T)")
	}
	if v > maxDiskBytes>>shift {
		return 0, fmt.Errorf("more than %s", human(maxDiskBytes))
	}
	v <<= shift
	if v < minDiskBytes {
		return 0, fmt.Errorf("less than %s, the smallest ext4 with a journal", human(minDiskBytes))
	}
	return v, nil
}

// treeBytes is the size of the regular files under dir.
func treeBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// human prints a byte count in the largest binary unit it fills.
func human(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift {
			v := float64(n) / float64(int64(1)<<u.shift)
			if v == float64(int64(v)) {
				return fmt.Sprintf("%d %s", int64(v), u.name)
			}
			return fmt.Sprintf("%.1f %s", v, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
