package tests

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gometal/gometal/linker"
	"github.com/gometal/gometal/qemu"
)

// bootInitrd boots the cached kernel with a hand-made initramfs, past the
// CLI's own checks, to see what the kernel says about bad input.
func bootInitrd(t *testing.T, initrd []byte) (string, int) {
	t.Helper()
	b, _ := linker.LookupBoard("virt")
	k, err := linker.BuildKernel(repoRoot, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "initrd")
	if err := os.WriteFile(path, initrd, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	status, err := qemu.Run(context.Background(), &qemu.Config{
		Kernel: k.Image, KernelELF: k.ELF, Initrd: path, SMP: 1, Memory: "256M",
		Timeout: 60 * time.Second, Stdout: &out, Append: []string{"quiet"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), status
}

func TestKernelRejectsBadInitramfs(t *testing.T) {
	t.Parallel()
	out, status := bootInitrd(t, bytes.Repeat([]byte("not a cpio archive "), 100))
	if status != 126 || !strings.Contains(out, "gometal: the initramfs is not a cpio newc archive: bad cpio magic") {
		t.Errorf("status %d, output:\n%s", status, out)
	}
	if strings.Contains(out, "kernel panic") {
		t.Error("bad input caused a kernel panic")
	}
}

func TestKernelRejectsBadInit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"text":  "#!/bin/sh\necho not an ELF\n",
		"elf32": "\x7fELF\x01\x01\x01" + strings.Repeat("\x00", 60),
	} {
		app := filepath.Join(dir, name)
		os.WriteFile(app, []byte(content), 0o755)
		rd := &linker.Initramfs{App: app, Argv: []string{"/init"}}
		img, err := rd.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		out, status := bootInitrd(t, img)
		if status != 126 || !strings.Contains(out, "gometal: /init is not a loadable arm64 ELF executable: ") {
			t.Errorf("%s: status %d, output:\n%s", name, status, out)
		}
	}
}
