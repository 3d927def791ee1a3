package guest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"
)

// LoadModules loads every .ko in dir into the running Linux kernel with
// finit_module(2), in name order (the harness numbers them in dependency
// order), and returns how many it found. One already loaded is fine.
// gometal's drivers are built in: its images carry no such directory.
func LoadModules(dir string) (int, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.ko"))
	if err != nil {
		return 0, err
	}
	sort.Strings(paths)
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return 0, err
		}
		err = unix.FinitModule(int(f.Fd()), "", 0)
		f.Close()
		if err != nil && err != unix.EEXIST {
			return 0, fmt.Errorf("finit_module %s: %v", p, err)
		}
	}
	return len(paths), nil
}
