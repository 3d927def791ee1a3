package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gometal/gometal/linker"
)

// The benchmark harness's Linux side: Debian's own arm64 kernel, fetched
// with the project's files and nothing else (dpkg --add-architecture
// arm64, apt-get download linux-image-<version>-arm64, dpkg -x) and kept
// in the cache, so the comparison is against a stock distribution kernel.

const linuxMeta = "linux-image-arm64:arm64" // Debian's "latest arm64 kernel" package

// linuxKernel is a fetched Debian arm64 kernel.
type linuxKernel struct {
	Image   string // the boot/vmlinuz-* file (an arm64 Image)
	Package string // e.g. linux-image-6.1.0-56-arm64
	Version string // the package version, e.g. 6.1.192-2
	Dir     string // where the package is unpacked
}

// netModulePaths are the modules the networked guest loads, under
// lib/modules/RELEASE, in dependency order (each one's modinfo
// "depends="): Debian builds virtio-mmio, the transport of QEMU virt's
// devices, and virtio-net as modules, and virtio_net needs net_failover,
// which needs failover.
var netModulePaths = []string{
	"kernel/net/core/failover.ko",
	"kernel/drivers/net/net_failover.ko",
	"kernel/drivers/net/virtio_net.ko",
	"kernel/drivers/virtio/virtio_mmio.ko",
}

// netModules returns the host paths of netModulePaths in k's package.
func (k linuxKernel) netModules() ([]string, error) { return k.modules(netModulePaths) }

// modules returns the host paths of module paths (under
// lib/modules/RELEASE) in k's package.
func (k linuxKernel) modules(paths []string) ([]string, error) {
	release := strings.TrimPrefix(k.Package, "linux-image-")
	var out []string
	for _, m := range paths {
		p := filepath.Join(k.Dir, "lib", "modules", release, m)
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("the Linux guest's modules: %v (delete %s to fetch the kernel package again)", err, k.Dir)
		}
		out = append(out, p)
	}
	return out, nil
}

var dependsRE = regexp.MustCompile(`Depends: (linux-image-[^\s:]+-arm64)(?::arm64)?`)

// fetchLinuxKernel returns the cached kernel, fetching it first if need
// be; progress goes to w.
func fetchLinuxKernel(w io.Writer) (linuxKernel, error) {
	dir := filepath.Join(linker.CacheDir(), "linux-arm64")
	if k, ok := cachedLinuxKernel(dir); ok {
		return k, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return linuxKernel{}, err
	}
	run := func(name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return string(out), fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out), nil
	}
	arches, _ := run("dpkg", "--print-foreign-architectures")
	if !strings.Contains(arches, "arm64") {
		fmt.Fprintln(w, "gometal bench: adding Debian's arm64 architecture (dpkg --add-architecture arm64; apt-get update)")
		if _, err := run("dpkg", "--add-architecture", "arm64"); err != nil {
			return linuxKernel{}, fmt.Errorf("cannot fetch the Linux kernel (run as root, or put an arm64 Image at %s/boot/vmlinuz-*): %v", dir, err)
		}
		if _, err := run("apt-get", "update", "-qq"); err != nil {
			return linuxKernel{}, err
		}
	}
	deps, err := run("apt-cache", "depends", linuxMeta)
	if err != nil {
		if _, err := run("apt-get", "update", "-qq"); err != nil {
			return linuxKernel{}, err
		}
		if deps, err = run("apt-cache", "depends", linuxMeta); err != nil {
			return linuxKernel{}, err
		}
	}
	m := dependsRE.FindStringSubmatch(deps)
	if m == nil {
		return linuxKernel{}, fmt.Errorf("apt-cache depends %s names no kernel package:\n%s", linuxMeta, deps)
	}
	fmt.Fprintf(w, "gometal bench: downloading %s:arm64 into %s\n", m[1], dir)
	if _, err := run("apt-get", "download", m[1]+":arm64"); err != nil {
		return linuxKernel{}, err
	}
	debs, _ := filepath.Glob(filepath.Join(dir, m[1]+"_*_arm64.deb"))
	if len(debs) == 0 {
		return linuxKernel{}, fmt.Errorf("apt-get download left no %s .deb in %s", m[1], dir)
	}
	if _, err := run("dpkg", "-x", debs[0], dir); err != nil {
		return linuxKernel{}, err
	}
	k, ok := cachedLinuxKernel(dir)
	if !ok {
		return linuxKernel{}, fmt.Errorf("%s holds no boot/vmlinuz-*", debs[0])
	}
	return k, nil
}

// cachedLinuxKernel finds an unpacked kernel package in dir.
func cachedLinuxKernel(dir string) (linuxKernel, bool) {
	images, _ := filepath.Glob(filepath.Join(dir, "boot", "vmlinuz-*"))
	if len(images) == 0 {
		return linuxKernel{}, false
	}
	k := linuxKernel{Image: images[0], Dir: dir, Package: "linux-image-" + strings.TrimPrefix(filepath.Base(images[0]), "vmlinuz-")}
	if debs, _ := filepath.Glob(filepath.Join(dir, k.Package+"_*_arm64.deb")); len(debs) > 0 {
		k.Version = strings.TrimSuffix(strings.TrimPrefix(filepath.Base(debs[0]), k.Package+"_"), "_arm64.deb")
	}
	return k, true
}
