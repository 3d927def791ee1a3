package linker

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ArmToolchain copies the linux/arm64 Go toolchain of the host's Go
// version into dst, a new directory, as a GOROOT a guest runs go build
// with (tests/gobuild_test.go, the go build figures of gometal bench).
// The module proxy serves it as the module golang.org/toolchain, version
// v0.0.1-goX.Y.Z.linux-arm64, the one the go command itself fetches to
// switch toolchains; a module zip keeps no modes, so the programs of
// bin and pkg/tool are made executable here, as the go command does
// (cmd/go/internal/toolchain).
func ArmToolchain(dst string) error {
	v, err := goVersion()
	if err != nil {
		return err
	}
	src, err := downloadModule("golang.org/toolchain", "v0.0.1-"+v+".linux-arm64")
	if err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		mode := os.FileMode(0o644)
		if dir := filepath.Dir(rel); dir == "bin" || strings.HasPrefix(dir, filepath.Join("pkg", "tool")) {
			mode = 0o755
		}
		return copyFile(p, to, mode)
	})
}

// copyFile copies from into a new file to with mode.
func copyFile(from, to string, mode os.FileMode) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
