//go:build linux && arm64

// Command gobuild runs the linux/arm64 Go toolchain inside gometal:
// tests/gobuild_test.go shares it (the module golang.org/toolchain, as
// the module proxy serves it) read-only at /usr/local/go; this program
// writes a small module on the ext4 disk mounted at /disk (or in /tmp
// without one), runs go build on it (the go command execs compile, asm
// and link, talks to them through pipes, keeps its cache beside it:
// GOCACHE on the disk, no network: GOPROXY=off), runs the binary it
// built, and builds again with the cache warm.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/gometal/gometal/tests/progs/internal/guest"
)

const (
	goroot = "/usr/local/go"
	want   = "hello from a binary built inside gometal"
)

var (
	top = "/tmp"
	mod string
	env []string
)

func main() {
	if _, err := os.Stat("/disk"); err == nil {
		top = "/disk"
	}
	mod = top + "/hello"
	env = []string{
		"HOME=/tmp", "GOCACHE=" + top + "/gocache", "GOPATH=" + top + "/gopath", "GOFLAGS=-mod=mod",
		"GOPROXY=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0", "PATH=" + goroot + "/bin:/bin",
	}
	fmt.Println("gobuild: in", top)
	must(os.MkdirAll(mod, 0o755))
	version, err := goCmd("version").Output()
	guest.Check("go version", err == nil, err)
	fmt.Printf("gobuild: %s", version)
	must(os.WriteFile(mod+"/go.mod", []byte("module hello\n\ngo 1.26\n"), 0o644))
	must(os.WriteFile(mod+"/main.go", []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\""+want+"\") }\n"), 0o644))
	start := time.Now()
	build := goCmd("build", "-o", mod+"/hello", ".")
	out, err := build.CombinedOutput()
	guest.Check("go build", err == nil, err, string(out))
	fmt.Printf("gobuild: go build: %s in %v\n", guest.Result(err), time.Since(start).Round(time.Second))
	ran, err := exec.Command(mod + "/hello").CombinedOutput()
	fmt.Printf("gobuild: ran: %s (%s)\n", strings.TrimSpace(string(ran)), guest.Result(err))
	// Again with the cache warm: the standard library's packages and
	// the program's come from GOCACHE.
	must(os.Remove(mod + "/hello"))
	start = time.Now()
	out, err = goCmd("build", "-o", mod+"/hello", ".").CombinedOutput()
	guest.Check("go build (warm)", err == nil, err, string(out))
	fmt.Printf("gobuild: go build (warm): %s in %v\n", guest.Result(err), time.Since(start).Round(time.Second))
	ran, err = exec.Command(mod + "/hello").CombinedOutput()
	fmt.Printf("gobuild: ran again: %s (%s)\n", strings.TrimSpace(string(ran)), guest.Result(err))
}

func goCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(goroot+"/bin/go", args...)
	cmd.Dir, cmd.Env = mod, env
	return cmd
}

func must(err error) {
	if err != nil {
		guest.Fail(err.Error())
		os.Exit(1)
	}
}
