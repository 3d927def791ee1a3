package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"64M": 64 << 20, "64MiB": 64 << 20, "1g": 1 << 30, "4096K": 4 << 20, "3145728": 3 << 20, "2T": 2 << 40,
	} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1M", "0", "1M", "64Q", "17T", "99999999999999999999"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
}

// needE2fs skips, naming the reason, where e2fsprogs is missing (make
// deps installs it).
func needE2fs(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := e2fsTool(tool); err != nil {
			t.Skipf("%s: %v", t.Name(), err)
		}
	}
}

// A disk made from a directory holds its tree, as e2fsprogs' own debugfs
// reads it, and e2fsck finds it clean.
func TestDiskCreateFrom(t *testing.T) {
	needE2fs(t, "mke2fs", "e2fsck", "debugfs")
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	if err := os.MkdirAll(filepath.Join(tree, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "sub", "hello.txt"), []byte("hello, disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(dir, "disk.img")
	if rc := run([]string{"disk", "create", "-size", "16M", "-from", tree, "-label", "data", img}); rc != 0 {
		t.Fatalf("disk create: exit %d", rc)
	}
	if st, err := os.Stat(img); err != nil || st.Size() != 16<<20 {
		t.Fatalf("image: %v, size %d; want 16 MiB", err, st.Size())
	}
	debugfs, _ := e2fsTool("debugfs")
	out, err := exec.Command(debugfs, "-R", "cat /sub/hello.txt", img).Output()
	if err != nil || string(out) != "hello, disk\n" {
		t.Fatalf("debugfs cat: %q, %v", out, err)
	}
	out, _ = exec.Command(debugfs, "-R", "stats", img).CombinedOutput()
	for _, want := range []string{"Filesystem volume name:   data", "has_journal", "extent", "metadata_csum"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("debugfs stats lacks %q:\n%s", want, out)
		}
	}
	if rc := run([]string{"disk", "check", img}); rc != 0 {
		t.Fatalf("disk check: exit %d", rc)
	}
	// Never overwritten without -force, and a bad -from loses nothing.
	if rc := run([]string{"disk", "create", "-size", "16M", img}); rc != exitUsage {
		t.Fatalf("create over an existing image: exit %d, want %d", rc, exitUsage)
	}
	if rc := run([]string{"disk", "create", "-size", "16M", "-from", filepath.Join(dir, "none"), "-force", img}); rc != exitUsage {
		t.Fatalf("create -from a missing directory: exit %d", rc)
	}
	if out, err := exec.Command(debugfs, "-R", "cat /sub/hello.txt", img).Output(); err != nil || string(out) != "hello, disk\n" {
		t.Fatalf("the image changed after refused creates: %q, %v", out, err)
	}
}

// A tree larger than the disk is a clear error, and no image is left.
func TestDiskCreateTooSmall(t *testing.T) {
	needE2fs(t, "mke2fs")
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	os.Mkdir(tree, 0o755)
	big := make([]byte, 8<<20) // not zeros: mke2fs -d leaves holes for those
	for i := range big {
		big[i] = byte(i*7 + i>>9)
	}
	if err := os.WriteFile(filepath.Join(tree, "big"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join(dir, "small.img")
	if rc := run([]string{"disk", "create", "-size", "4M", "-from", tree, img}); rc == 0 {
		t.Fatal("an 8 MiB tree fit a 4 MiB disk")
	}
	if _, err := os.Stat(img); !os.IsNotExist(err) {
		t.Fatalf("a failed create left %s (%v)", img, err)
	}
}

// A corrupt image is reported not clean, with e2fsck's exit status.
func TestDiskCheckCorrupt(t *testing.T) {
	needE2fs(t, "mke2fs", "e2fsck")
	img := filepath.Join(t.TempDir(), "disk.img")
	if rc := run([]string{"disk", "create", "-size", "8M", img}); rc != 0 {
		t.Fatalf("disk create: exit %d", rc)
	}
	f, err := os.OpenFile(img, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The superblock is at byte 1024; its magic at offset 56 (ext4's
	// struct ext4_super_block, s_magic).
	f.WriteAt([]byte{0, 0}, 1024+56)
	f.Close()
	if rc := run([]string{"disk", "check", img}); rc == 0 {
		t.Fatal("a superblock with no magic checked clean")
	}
}
