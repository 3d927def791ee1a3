package linker

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/u-root/u-root/pkg/cpio"
)

// LinuxInitramfs returns the smallest initramfs that boots app as /init
// on a stock Linux kernel (the benchmark harness's other side): the app
// and /dev/console (5,1), which the kernel opens as init's stdin, stdout
// and stderr. Linux passes init its arguments from the kernel command
// line (after "--"), so nothing else is needed. Kernel modules, if any,
// go in /modules, numbered in the order given, for the app to load
// (the storage figures: tests/progs/bench/storage.go).
func LinuxInitramfs(app string, modules ...string) ([]byte, error) {
	bin, err := os.ReadFile(app)
	if err != nil {
		return nil, err
	}
	recs := []cpio.Record{
		cpio.Directory("dev", 0o755),
		cpio.CharDev("dev/console", 0o600, 5, 1),
		cpio.StaticFile("init", string(bin), 0o755),
	}
	if len(modules) > 0 {
		recs = append(recs, cpio.Directory("modules", 0o755))
		if recs, err = appendModules(recs, modules); err != nil {
			return nil, err
		}
	}
	return newcArchive(recs)
}

// appendModules adds each module file as /modules/NN-name.ko, numbered:
// the loaders take them in name order.
func appendModules(recs []cpio.Record, modules []string) ([]cpio.Record, error) {
	for i, m := range modules {
		b, err := os.ReadFile(m)
		if err != nil {
			return nil, err
		}
		recs = append(recs, cpio.StaticFile(fmt.Sprintf("modules/%02d-%s", i, filepath.Base(m)), string(b), 0o644))
	}
	return recs, nil
}

// LinuxNetInitramfs is LinuxInitramfs for a networked run: init (the
// harness's tests/progs/netinit) loads the kernel modules, in the order
// given, from /modules, configures the interface and runs app as /app.
func LinuxNetInitramfs(init, app string, modules []string) ([]byte, error) {
	recs := []cpio.Record{
		cpio.Directory("dev", 0o755),
		cpio.CharDev("dev/console", 0o600, 5, 1),
		cpio.Directory("modules", 0o755),
	}
	for _, f := range []struct{ name, path string }{{"init", init}, {"app", app}} {
		bin, err := os.ReadFile(f.path)
		if err != nil {
			return nil, err
		}
		recs = append(recs, cpio.StaticFile(f.name, string(bin), 0o755))
	}
	recs, err := appendModules(recs, modules)
	if err != nil {
		return nil, err
	}
	return newcArchive(recs)
}
