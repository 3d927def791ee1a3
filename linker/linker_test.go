package linker

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/u-root/u-root/pkg/cpio"
)

func repoRoot(t *testing.T) string {
	r, err := filepath.Abs("..")
	if err != nil || !IsRoot(r) {
		t.Fatalf("not in the gometal tree: %v", err)
	}
	return r
}

func TestBoardLinkAddress(t *testing.T) {
	b, err := LookupBoard("virt")
	if err != nil {
		t.Fatal(err)
	}
	if b.TextAddr() != 0xffff000040081000 || b.TextOffset() != 0x80000 {
		t.Errorf("virt: text %#x offset %#x", b.TextAddr(), b.TextOffset())
	}
	// -T -0xffffbff7f000: 0xffff000040081000 as a signed 64-bit number.
	if !strings.Contains(b.LinkFlags(), "-T -281473902440448 ") {
		t.Errorf("link flags %q", b.LinkFlags())
	}
	if _, err := LookupBoard("nope"); err == nil {
		t.Error("unknown board accepted")
	}
}

// Link the real kernel and check the Image against the ELF it came from.
func TestKernelImage(t *testing.T) {
	root := repoRoot(t)
	b, _ := LookupBoard("virt")
	out := filepath.Join(t.TempDir(), "kernel.elf")
	if err := LinkKernel(root, b, out); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(out)
	img, err := ELFToImage(raw, b.TextOffset())
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	if le.Uint32(img[56:]) != imageMagic {
		t.Error("no ARM\\x64 magic")
	}
	if le.Uint64(img[8:]) != 0x80000 {
		t.Errorf("text_offset %#x", le.Uint64(img[8:]))
	}
	f, _ := elf.NewFile(bytes.NewReader(raw))
	base := f.Progs[2].Vaddr // first PT_LOAD after PHDR and NOTE
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			base = p.Vaddr
			break
		}
	}
	if base != KernBase+b.LoadPA {
		t.Errorf("first segment at %#x, want %#x", base, KernBase+b.LoadPA)
	}
	code0 := le.Uint32(img[0:])
	if code0&0xfc000000 != branchOpcode || base+uint64(code0&0x3ffffff)*4 != f.Entry {
		t.Errorf("code0 %#x does not branch to the entry %#x", code0, f.Entry)
	}
	var memEnd uint64
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		memEnd = max(memEnd, p.Vaddr+p.Memsz-base)
		data := make([]byte, p.Filesz)
		p.ReadAt(data, 0)
		off := p.Vaddr - base
		lo := uint64(0)
		if off == 0 {
			lo = imageHeaderSize // the header replaces the ELF header
		}
		if !bytes.Equal(img[off+lo:off+p.Filesz], data[lo:]) {
			t.Errorf("segment at %#x differs in the Image", p.Vaddr)
		}
	}
	if size := le.Uint64(img[16:]); size < memEnd || size%0x1000 != 0 {
		t.Errorf("image_size %#x < end of bss %#x", size, memEnd)
	}
	if _, err := ELFToImage([]byte("junk"), 0); err == nil {
		t.Error("junk accepted as a kernel")
	}
}

func TestInitramfs(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	os.WriteFile(app, []byte("\x7fELF fake"), 0o755)
	td := filepath.Join(dir, "pkg", "testdata")
	os.MkdirAll(filepath.Join(td, "sub"), 0o755)
	os.WriteFile(filepath.Join(td, "sub", "a.txt"), []byte("A"), 0o644)
	os.Symlink("sub/a.txt", filepath.Join(td, "link"))
	rd := &Initramfs{App: app, Argv: []string{"/init", "x y"}, Env: []string{"K=V"}, Cwd: filepath.Join(dir, "pkg"),
		Trees: []Tree{{Host: td, Guest: td}}}
	b, err := rd.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	recs, err := cpio.ReadAllRecords(cpio.Newc.Reader(bytes.NewReader(b)))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]cpio.Record{}
	for _, r := range recs {
		got[r.Name] = r
	}
	content := func(name string) string {
		r, ok := got[name]
		if !ok {
			t.Errorf("missing %s", name)
			return ""
		}
		buf := make([]byte, r.FileSize)
		r.ReadAt(buf, 0)
		return string(buf)
	}
	if content("init") != "\x7fELF fake" || got["init"].Mode != cpio.S_IFREG|0o755 {
		t.Errorf("init: %o", got["init"].Mode)
	}
	if content(".gometal/argv") != "/init\x00x y\x00" || content(".gometal/envp") != "K=V\x00" {
		t.Error("argv/envp encoding")
	}
	if content(".gometal/cwd") != rd.Cwd {
		t.Error("cwd")
	}
	rel := strings.TrimPrefix(td, "/")
	if content(rel+"/sub/a.txt") != "A" || got[rel+"/link"].Mode&cpio.S_IFMT != cpio.S_IFLNK {
		t.Error("testdata tree")
	}
	// Parent directories precede their contents.
	seen := map[string]bool{}
	for _, r := range recs {
		if d := filepath.Dir(r.Name); d != "." && !seen[d] && r.Name != "TRAILER!!!" {
			t.Errorf("%s comes before its directory", r.Name)
		}
		seen[r.Name] = true
	}
	bad := &Initramfs{App: app, Argv: []string{"a\x00b"}}
	if _, err := bad.Bytes(); err == nil {
		t.Error("NUL in argv accepted")
	}
}

func TestCheckApp(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "t.txt")
	os.WriteFile(txt, []byte("hello"), 0o644)
	for path, want := range map[string]string{
		filepath.Join(dir, "missing"): "does not exist",
		txt:                           "not an ELF executable",
		dir:                           "is a directory",
	} {
		if err := CheckApp(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckApp(%s) = %v, want %q", path, err, want)
		}
	}
	if _, err := os.Stat("/bin/ls"); err == nil {
		if err := CheckApp("/bin/ls"); err == nil {
			t.Error("/bin/ls accepted")
		}
	}
}

func TestSourceHashChanges(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module gometal\n"), 0o644)
	os.WriteFile(filepath.Join(root, "go.sum"), nil, 0o644)
	for _, d := range KernelDirs {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	f := filepath.Join(root, "kernel", "a.go")
	os.WriteFile(f, []byte("package kernel\n"), 0o644)
	b, _ := LookupBoard("virt")
	h1, err := SourceHash(root, b)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "kernel", "a_test.go"), []byte("package kernel\n"), 0o644)
	if h, _ := SourceHash(root, b); h != h1 {
		t.Error("a test file changed the kernel hash")
	}
	os.WriteFile(f, []byte("package kernel\n// changed\n"), 0o644)
	if h, _ := SourceHash(root, b); h == h1 {
		t.Error("a kernel source change did not change the hash")
	}
}

// The Linux benchmark guest's initramfs: /init executable and
// /dev/console (5,1), read back with u-root's cpio reader.
func TestLinuxInitramfs(t *testing.T) {
	app := filepath.Join(t.TempDir(), "app")
	if err := os.WriteFile(app, []byte("\x7fELF not really"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := LinuxInitramfs(app)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := cpio.ReadAllRecords(cpio.Newc.Reader(bytes.NewReader(b)))
	if err != nil {
		t.Fatal(err)
	}
	var init, console bool
	for _, r := range recs {
		switch r.Name {
		case "init":
			init = r.Mode&0o777 == 0o755 && r.FileSize == uint64(len("\x7fELF not really"))
		case "dev/console":
			console = r.Mode&cpio.S_IFMT == cpio.S_IFCHR && r.Rmajor == 5 && r.Rminor == 1
		}
	}
	if !init || !console {
		t.Errorf("init ok %v, dev/console ok %v: %+v", init, console, recs)
	}
}

// The networked Linux guest's initramfs: /init, /app and the modules
// numbered in the order given, so that netinit's name order is theirs.
func TestLinuxNetInitramfs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	b, err := LinuxNetInitramfs(write("netinit", "init"), write("httpserver", "app"),
		[]string{write("virtio_net.ko", "net"), write("failover.ko", "fo")})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := cpio.ReadAllRecords(cpio.Newc.Reader(bytes.NewReader(b)))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, r := range recs {
		got[r.Name] = r.FileSize
	}
	for name, size := range map[string]uint64{"init": 4, "app": 3, "modules/00-virtio_net.ko": 3, "modules/01-failover.ko": 2} {
		if s, ok := got[name]; !ok || s != size {
			t.Errorf("%s: size %d (present %v), want %d; all: %v", name, s, ok, size, got)
		}
	}
	if _, err := LinuxNetInitramfs(write("i", "x"), write("a", "y"), []string{filepath.Join(dir, "missing.ko")}); err == nil {
		t.Error("a missing module: no error")
	}
}
