//go:build linux && arm64

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/gometal/gometal/tests/progs/internal/guest"
)

// The go build figures: the linux/arm64 Go toolchain the harness puts on
// the share (cmd/gometal/benchdisk.go: /mnt/share/go) builds a small
// module that imports fmt, the module, its GOCACHE and the go command's
// work files on the ext4 disk, as tests/progs/gobuild does in the test
// suite: first with the cache empty (the standard library's packages
// compiled from source: compile, asm and link execed, pipes, mmap, the
// page cache), then again with it warm. Both sides run the same
// toolchain binaries from the same share on the same disk image.

const (
	buildRoot = diskMount + "/gobuild"
	buildWant = "hello from go build"
)

// goBuild prints gobuild_cold_s and gobuild_warm_s.
func goBuild(s scale) {
	if !diskReady() || !diskWritable() || !shareReady() {
		return
	}
	goroot := shareMount + "/go"
	if _, err := os.Stat(goroot + "/bin/go"); err != nil {
		fmt.Println("bench: go build figures do not run: no toolchain on the share:", err)
		return
	}
	mod := buildRoot + "/hello"
	for _, d := range []string{mod, buildRoot + "/tmp", buildRoot + "/home"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			guest.Fail(err.Error())
		}
	}
	src := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"" + buildWant + "\") }\n"
	if err := errors.Join(os.WriteFile(mod+"/go.mod", []byte("module hello\n\ngo 1.26\n"), 0o644),
		os.WriteFile(mod+"/main.go", []byte(src), 0o644)); err != nil {
		guest.Fail(err.Error())
	}
	env := []string{
		"GOROOT=" + goroot, "PATH=" + goroot + "/bin:/bin", "HOME=" + buildRoot + "/home",
		"GOCACHE=" + buildRoot + "/cache", "GOTMPDIR=" + buildRoot + "/tmp", "GOPATH=" + buildRoot + "/gopath",
		"GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0",
	}
	build := func(name string) {
		os.Remove(mod + "/hello")
		cmd := exec.Command(goroot+"/bin/go", "build", "-o", mod+"/hello", ".")
		cmd.Dir, cmd.Env = mod, env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		if err != nil {
			guest.Fail(fmt.Sprintf("go build: %v\n%s", err, out))
		}
		ran, err := exec.Command(mod + "/hello").Output()
		if err != nil || strings.TrimSpace(string(ran)) != buildWant {
			guest.Fail(fmt.Sprintf("the program go build made printed %q, %v; want %q", ran, err, buildWant))
		}
		report(name, d.Seconds(), "s")
	}
	build("gobuild_cold_s")
	build("gobuild_warm_s")
}
