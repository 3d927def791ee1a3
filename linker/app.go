package linker

import (
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
)

// CheckApp verifies that path is a static linux/arm64 executable, with one
// clear sentence per way it can be wrong.
func CheckApp(path string) error {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s does not exist", path)
	}
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory without Go files", path)
	}
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s is not an ELF executable (gometal runs static linux/arm64 Go binaries)", path)
	}
	defer f.Close()
	if f.Class != elf.ELFCLASS64 || f.Machine != elf.EM_AARCH64 {
		return fmt.Errorf("%s is %v, need arm64; build with GOOS=linux GOARCH=arm64 CGO_ENABLED=0", path, f.Machine)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked; build with CGO_ENABLED=0", path)
		}
	}
	if f.Type != elf.ET_EXEC {
		return fmt.Errorf("%s is %v, need a static executable (ET_EXEC)", path, f.Type)
	}
	return nil
}

// BuildApp builds the Go package in dir for the guest into out. The go
// command's own messages go to stderr.
func BuildApp(dir, out string, stderr *os.File) error {
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	cmd.Stdout = stderr
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s failed", dir)
	}
	return nil
}

// IsPackageDir reports whether path is a directory holding Go files.
func IsPackageDir(path string) bool {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return false
	}
	m, _ := filepath.Glob(filepath.Join(path, "*.go"))
	return len(m) > 0
}
