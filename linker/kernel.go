package linker

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// KernelDirs are the kernel-side source trees (ARCHITECTURE.md layout).
var KernelDirs = []string{"boot", "kernel", "sched", "drivers"}

// Kernel is a built kernel: the ELF (symbols for panics and gdb) and the
// Image a bootloader loads.
type Kernel struct {
	ELF, Image string
}

// SourceHash identifies a kernel build: every kernel-side .go/.s/.h file,
// go.mod, go.sum, the Go version and the board.
func SourceHash(root string, b Board) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%#x\n", runtime.Version(), b.Name, b.LoadPA)
	var files []string
	for _, d := range KernelDirs {
		err := filepath.WalkDir(filepath.Join(root, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				return nil
			}
			switch filepath.Ext(p) {
			case ".go", ".s", ".h":
				if !strings.HasSuffix(p, "_test.go") {
					files = append(files, p)
				}
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	files = append(files, filepath.Join(root, "go.mod"), filepath.Join(root, "go.sum"))
	sort.Strings(files)
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s\n", rel)
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// CacheDir is where built kernels are kept.
func CacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "gometal")
	}
	return filepath.Join(os.TempDir(), "gometal-cache")
}

// BuildKernel returns the kernel for board b from the source tree at root,
// building it if the cache has no build of exactly these sources. progress,
// if not nil, is told when a build starts. Concurrent callers are safe:
// each builds into a temporary directory renamed into place.
func BuildKernel(root string, b Board, progress io.Writer) (Kernel, error) {
	sum, err := SourceHash(root, b)
	if err != nil {
		return Kernel{}, fmt.Errorf("reading kernel sources in %s: %v", root, err)
	}
	dir := filepath.Join(CacheDir(), b.Name+"-"+sum)
	k := Kernel{ELF: filepath.Join(dir, "kernel.elf"), Image: filepath.Join(dir, "Image")}
	if _, err := os.Stat(k.Image); err == nil {
		return k, nil
	}
	if progress != nil {
		fmt.Fprintf(progress, "gometal: building kernel for %s…\n", b.Name)
	}
	if err := os.MkdirAll(CacheDir(), 0o755); err != nil {
		return Kernel{}, err
	}
	tmp, err := os.MkdirTemp(CacheDir(), "build-")
	if err != nil {
		return Kernel{}, err
	}
	defer os.RemoveAll(tmp)
	if err := LinkKernel(root, b, filepath.Join(tmp, "kernel.elf")); err != nil {
		return Kernel{}, err
	}
	elfBytes, err := os.ReadFile(filepath.Join(tmp, "kernel.elf"))
	if err != nil {
		return Kernel{}, err
	}
	img, err := ELFToImage(elfBytes, b.TextOffset())
	if err != nil {
		return Kernel{}, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "Image"), img, 0o644); err != nil {
		return Kernel{}, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another process won the race; its build is identical.
		if _, statErr := os.Stat(k.Image); statErr != nil {
			return Kernel{}, err
		}
	}
	return k, nil
}

// LinkKernel runs the stock toolchain on ./boot with the board's link
// flags.
func LinkKernel(root string, b Board, out string) error {
	cmd := exec.Command("go", "build", "-o", out, "-ldflags", b.LinkFlags(), "./boot")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0", "GOFLAGS=")
	msg, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("building the kernel failed:\n%s", msg)
	}
	return nil
}
