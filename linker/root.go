package linker

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// ModulePath is the module the kernel sources belong to.
const ModulePath = "gometal"

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
// build time by `make build`), then the directories above the working
// directory and above the executable.
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
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, d := range starts {
		for {
			if IsRoot(d) {
				return d, nil
			}
			up := filepath.Dir(d)
			if up == d {
				break
			}
			d = up
		}
	}
	return "", errors.New("cannot find the gometal source tree (needed to build the kernel); set GOMETAL_ROOT to the repository")
}
