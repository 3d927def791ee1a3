package tests

import (
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// go build inside gometal (issue 38's end-to-end test of processes,
// files, pipes, mmap and the page cache): the linux/arm64 toolchain the
// module proxy serves (golang.org/toolchain, the host's Go version) is
// shared read-only at /usr/local/go, tests/progs/gobuild builds a small
// module with it, the module and its cache on an ext4 disk (written
// through the journal, e2fsck-clean afterwards), runs the binary, and
// builds again with the cache warm.
// With a cold cache go build compiles the standard library from source:
// about 6 minutes under QEMU on a 2-core host, so make test-long runs it.
func TestGoBuildInside(t *testing.T) {
	if os.Getenv("GOMETAL_STD_FULL") != "1" {
		t.Skip("TestGoBuildInside: go build of the standard library from source inside gometal takes about 6 minutes on a 2-core host; make test-long runs it")
	}
	t.Parallel()
	goroot := armToolchain(t)
	img := ext4Image(t, t.TempDir(), "1G")
	r := gometal(t, "run", "-m", "2G", "-timeout", "25m", "-v", goroot+":/usr/local/go:ro", "-disk", img+":/disk", "./tests/progs/gobuild")
	r.expectClean(t, 0,
		"gobuild: in /disk",
		"gobuild: go version go1.", "linux/arm64",
		"gobuild: go build: ok",
		"gobuild: ran: hello from a binary built inside gometal (ok)",
		"gobuild: go build (warm): ok",
		"gobuild: ran again: hello from a binary built inside gometal (ok)")
	logLine(t, r.out, "gobuild: go build: .*")
	logLine(t, r.out, "gobuild: go build \\(warm\\): .*")
	e2fsckClean(t, img, "after go build wrote its cache")
}

// armToolchain fetches the linux/arm64 toolchain of the host's Go version
// through the module proxy and copies it into a temporary GOROOT with
// its programs executable (a module zip keeps no modes; the go command
// sets them the same way when it switches toolchains).
func armToolchain(t *testing.T) string {
	t.Helper()
	v, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		t.Fatal(err)
	}
	mod := "golang.org/toolchain@v0.0.1-" + strings.TrimSpace(string(v)) + ".linux-arm64"
	cmd := exec.Command("go", "mod", "download", "-json", mod)
	cmd.Dir = t.TempDir() // outside any module
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v\n%s", mod, err, out)
	}
	var dl struct{ Dir string }
	if err := json.Unmarshal(out, &dl); err != nil || dl.Dir == "" {
		t.Fatalf("go mod download %s: %v\n%s", mod, err, out)
	}
	dst := filepath.Join(t.TempDir(), "go")
	err = filepath.WalkDir(dl.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dl.Dir, p)
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
	if err != nil {
		t.Fatalf("copying the toolchain: %v", err)
	}
	return dst
}

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
