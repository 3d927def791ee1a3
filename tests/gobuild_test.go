package tests

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gometal/gometal/linker"
)

// go build inside gometal (issue 38's end-to-end test of processes,
// files, pipes, mmap and the page cache): the linux/arm64 toolchain the
// module proxy serves (golang.org/toolchain, the host's Go version) is
// shared read-only at /usr/local/go, tests/progs/gobuild builds a small
// module with it, the module and its cache on an ext4 disk (written
// through the journal, e2fsck-clean afterwards), runs the binary, and
// builds again with the cache warm.
// With a cold cache go build compiles the standard library from source:
// about 4 minutes under QEMU on a 2-core host, so make test-long runs it.
func TestGoBuildInside(t *testing.T) {
	if os.Getenv("GOMETAL_STD_FULL") != "1" {
		t.Skip("TestGoBuildInside: go build of the standard library from source inside gometal takes about 4 minutes on a 2-core host; make test-long runs it")
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

// armToolchain is the linux/arm64 toolchain of the host's Go version
// (linker.ArmToolchain: the module proxy's golang.org/toolchain) in a
// temporary GOROOT.
func armToolchain(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "go")
	if err := linker.ArmToolchain(dst); err != nil {
		t.Fatalf("the linux/arm64 toolchain: %v", err)
	}
	return dst
}
