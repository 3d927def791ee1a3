package linker

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// ModulePath is the module the kernel sources belong to, and the path
// `go install ModulePath/cmd/gometal@VERSION` takes.
const ModulePath = "github.com/gometal/gometal"

// IsRoot reports whether dir holds the gometal module.
func IsRoot(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	return s.Scan() && strings.TrimSpace(s.Text()) == "module "+ModulePath
}

// FindRoot locates the source tree: $GOMETAL_ROOT, then baked (set at
// build time by `make build`), then a checkout above the working
// directory, then the module this binary was installed from (`go
// install …@VERSION` leaves its sources in the module cache), then a
// checkout above the executable.
func FindRoot(baked string) (string, error) {
	if r := os.Getenv("GOMETAL_ROOT"); r != "" {
		if IsRoot(r) {
			return r, nil
		}
		return "", errors.New("GOMETAL_ROOT=" + r + " is not a gometal source tree")
	}
	if baked != "" && IsRoot(baked) {
		return baked, nil
	}
	if wd, err := os.Getwd(); err == nil {
		if d, ok := RootAbove(wd); ok {
			return d, nil
		}
	}
	modErr := errors.New("not installed from a module version")
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Path == ModulePath {
		var d string
		if d, modErr = moduleDir(info.Main.Version); modErr == nil {
			return d, nil
		}
	}
	if exe, err := os.Executable(); err == nil {
		if d, ok := RootAbove(filepath.Dir(exe)); ok {
			return d, nil
		}
	}
	return "", fmt.Errorf("cannot find the gometal source tree (needed to build the kernel): no checkout above the working directory or the executable, and its own module: %v; set GOMETAL_ROOT to a checkout", modErr)
}

// RootAbove returns the first gometal tree at or above dir.
func RootAbove(dir string) (string, bool) {
	for {
		if IsRoot(dir) {
			return dir, true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", false
		}
		dir = up
	}
}

// moduleDir returns where the go command keeps ModulePath@version: in
// the module cache after `go install`, so no network is used then.
// A binary built in a checkout has version "(devel)" or a VCS
// pseudo-version no proxy serves; those fail here and FindRoot goes on.
func moduleDir(version string) (string, error) {
	if version == "" || version == "(devel)" || strings.HasSuffix(version, "+dirty") {
		return "", fmt.Errorf("built from a checkout (version %q)", version)
	}
	dir, err := downloadModule(ModulePath, version)
	if err == nil && !IsRoot(dir) {
		err = fmt.Errorf("%s is not a gometal source tree", dir)
	}
	return dir, err
}

// downloadModule is where the go command keeps module path at version,
// downloading it through the module proxy the first time.
func downloadModule(path, version string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", path+"@"+version)
	cmd.Dir = os.TempDir() // outside any module
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output()
	var m struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &m); jerr != nil && err == nil {
		err = jerr
	}
	switch {
	case m.Error != "":
		return "", errors.New(m.Error)
	case err != nil:
		return "", fmt.Errorf("go mod download %s@%s: %v", path, version, err)
	}
	return m.Dir, nil
}
