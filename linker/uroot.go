package linker

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/u-root/gobusybox/src/pkg/golang"
	"github.com/u-root/mkuimage/uimage"
	"github.com/u-root/u-root/pkg/cpio"
	"github.com/u-root/uio/llog"
)

// URootModule is the u-root module whose commands -uroot builds, at
// URootVersion: the version go.mod requires (TestURootVersionMatchesGoMod),
// so the initramfs is packed by the pkg/cpio of the same release.
const (
	URootModule  = "github.com/u-root/u-root"
	URootVersion = "v0.16.0"
)

// The two builds of gosh. GoshFull is u-root's default: gosh with its
// bubbline line editor (history, Tab completion, a key-help line), for
// a person at a terminal. It puts the console in raw mode and asks the
// terminal for its colours and the cursor's place (OSC 10/11, CSI 6n),
// reading the answers from its input, so typed-ahead or piped input is
// eaten by those reads; and in raw mode Enter is CR, which a script's
// NL is not. GoshSmall (the goshsmall build tag) prints "$ " and reads
// whole lines, which the console's line discipline edits: for piped
// input (tests, scripts, benchmarks) and `go test -exec`.
const (
	GoshFull  = "full"
	GoshSmall = "small"
)

// goshTag is the build tag of a gosh build.
func goshTag(gosh string) string {
	if gosh == GoshSmall {
		return "goshsmall"
	}
	return ""
}

// URootShell and URootInit are the commands linked to /bin/sh and /init.
// urootLayout names how BuildURoot lays the image out, for its cache key:
// change it when the layout changes.
const (
	URootShell  = "gosh"
	URootInit   = "init"
	urootLayout = "sh-only-1"
)

// URootCommands lists the command names of a -uroot-cmds value: "core"
// (every command of cmds/core), or names of cmds/core commands separated
// by commas, to which init and gosh are always added. The result is
// sorted and has no repeats.
func URootCommands(src, list string) ([]string, error) {
	core := filepath.Join(src, "cmds", "core")
	ents, err := os.ReadDir(core)
	if err != nil {
		return nil, err
	}
	var all []string
	for _, e := range ents {
		if e.IsDir() {
			all = append(all, e.Name())
		}
	}
	if list == "" || list == "core" {
		return all, nil
	}
	names := []string{URootInit, URootShell}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !slices.Contains(all, n) {
			return nil, fmt.Errorf("-uroot-cmds: %q is not a command of u-root %s's cmds/core", n, URootVersion)
		}
		names = append(names, n)
	}
	slices.Sort(names)
	return slices.Compact(names), nil
}

// URootSource is where the go command keeps the u-root module's
// sources (downloading them through the module proxy the first time).
func URootSource() (string, error) { return downloadModule(URootModule, URootVersion) }

// goVersion is the version of the go command that builds the busybox.
func goVersion() (string, error) {
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOVERSION: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// URootKey identifies a u-root initramfs build: the u-root version, the
// command set, gosh's build (GoshFull, GoshSmall) and the Go version
// that compiles it.
func URootKey(cmds []string, gosh, goVer string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s@%s\n%s\n%s\n%s\n%s\n", URootModule, URootVersion, goVer, goshTag(gosh), urootLayout, strings.Join(cmds, ","))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// BuildURoot returns the u-root initramfs (cpio newc) of the cmds/core
// commands named by list (see URootCommands) as one busybox binary
// /bbin/bb, with init as /init and gosh as /bin/sh, built for
// linux/arm64 by mkuimage and gobusybox, gosh the build gosh names
// (GoshFull, GoshSmall). Builds are cached by URootKey; progress, if not
// nil, is told when a build starts and ends.
func BuildURoot(list, gosh string, progress io.Writer) (string, error) {
	if gosh != GoshFull && gosh != GoshSmall {
		return "", fmt.Errorf("gosh build %q: want %s or %s", gosh, GoshFull, GoshSmall)
	}
	src, err := URootSource()
	if err != nil {
		return "", err
	}
	cmds, err := URootCommands(src, list)
	if err != nil {
		return "", err
	}
	goVer, err := goVersion()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(CacheDir(), "uroot-"+URootVersion+"-"+URootKey(cmds, gosh, goVer))
	out := filepath.Join(dir, "initramfs.cpio")
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	if progress == nil {
		progress = io.Discard
	}
	fmt.Fprintf(progress, "gometal: building u-root %s (%d commands, about %s on %d cores)…\n",
		URootVersion, len(cmds), urootEstimate(len(cmds)), runtime.NumCPU())
	start := time.Now()
	if err := os.MkdirAll(CacheDir(), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(CacheDir(), "uroot-build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	work := filepath.Join(tmp, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		return "", err
	}
	pkgs := make([]string, len(cmds))
	for i, c := range cmds {
		pkgs[i] = filepath.Join(src, "cmds", "core", c)
	}
	// The go command resolves the commands' imports in u-root's own
	// module (its go.mod and go.sum), not in the one gometal runs from,
	// whose go.sum lacks the commands' dependencies.
	opts := []golang.Opt{golang.DisableCGO(), golang.WithGOOS("linux"), golang.WithGOARCH("arm64"), golang.WithWorkingDir(src)}
	if tag := goshTag(gosh); tag != "" {
		opts = append(opts, golang.WithBuildTag(tag))
	}
	env := golang.Default(opts...)
	// mkuimage logs each step at info level; only its warnings and
	// errors are worth the user's screen.
	var logBuf bytes.Buffer
	l := llog.New(slog.LevelInfo, func(format string, v ...any) {
		fmt.Fprintf(&logBuf, format+"\n", v...)
	})
	err = uimage.Create(l,
		uimage.WithReplaceEnv(env),
		uimage.WithBaseArchive(uimage.DefaultRamfs()),
		uimage.WithBusyboxCommands(pkgs...),
		uimage.WithInit(URootInit),
		// /bin/sh only, not WithShell's /bin/defaultsh beside it: init
		// runs each of the two in turn, so one exit would start a
		// second shell; with one, exit ends init and the run.
		uimage.WithSymlink("bin/sh", URootShell),
		uimage.WithSkipLDD(),
		uimage.WithTempDir(work),
		uimage.WithCPIOOutput(filepath.Join(tmp, "initramfs.cpio")),
	)
	if err != nil {
		return "", fmt.Errorf("building u-root: %v\n%s", err, logBuf.String())
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another process won the race; its build is the same.
		if _, statErr := os.Stat(out); statErr != nil {
			return "", err
		}
	} else {
		// The rename moved the work directory along; drop it.
		os.RemoveAll(filepath.Join(dir, "work"))
	}
	fmt.Fprintf(progress, "gometal: built u-root in %s (cached in %s)\n", time.Since(start).Round(time.Second), dir)
	return out, nil
}

// urootEstimate is the build's rough duration on the 2-core host with
// other QEMU runs beside it: all of cmds/core took 2m49s and 3m48s
// (module downloads in the first), a busybox of four commands 1m11s.
func urootEstimate(n int) string {
	if n > 40 {
		return "3 minutes"
	}
	return "1 minute"
}

// ReadArchive reads a cpio newc archive's records.
func ReadArchive(path string) ([]cpio.Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := cpio.ReadAllRecords(cpio.Newc.Reader(f))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %v", path, err)
	}
	// Records read from a file read their contents lazily from it;
	// take them now, as f closes here.
	for i, r := range recs {
		if r.ReaderAt == nil {
			continue
		}
		data, err := io.ReadAll(io.NewSectionReader(r.ReaderAt, 0, int64(r.FileSize)))
		if err != nil {
			return nil, fmt.Errorf("reading %s: %s: %v", path, r.Name, err)
		}
		recs[i] = cpio.StaticRecord(data, r.Info)
	}
	return recs, nil
}

// RecordData is a record's contents: a file's bytes, a link's target.
func RecordData(r cpio.Record) string {
	if r.ReaderAt == nil {
		return ""
	}
	buf := make([]byte, r.FileSize)
	n, _ := r.ReadAt(buf, 0)
	return string(buf[:n])
}

// WithUsrBin adds to u-root's records a link /usr/bin/NAME for each
// command /bbin/NAME (the busybox itself, bb, aside): what `gometal exec
// -uroot` gives test binaries that look in /usr/bin.
func WithUsrBin(base []cpio.Record) []cpio.Record {
	// The directories come with the links (the archive writer makes a
	// record's missing parents; u-root's tree has /usr/lib already).
	out := append([]cpio.Record(nil), base...)
	for _, r := range base {
		name, ok := strings.CutPrefix(r.Name, "bbin/")
		if !ok || name == "bb" || strings.Contains(name, "/") {
			continue
		}
		out = append(out, cpio.Symlink("usr/bin/"+name, "../../bbin/"+name))
	}
	return out
}
