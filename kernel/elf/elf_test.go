package elf

import (
	delf "debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func build(t *testing.T, goarch string) []byte {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\nfunc main() { println(\"hi\") }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\ngo 1.26\n"), 0o644)
	out := filepath.Join(dir, "app")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+goarch, "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAgainstDebugELF(t *testing.T) {
	b := build(t, "arm64")
	f, err := Parse(b)
	if err != OK {
		t.Fatal(err)
	}
	ref, err2 := delf.NewFile(bytesReader(b))
	if err2 != nil {
		t.Fatal(err2)
	}
	if f.Entry != ref.Entry || f.Type != uint16(ref.Type) || int(f.Phnum) != len(ref.Progs) {
		t.Fatalf("header: %+v vs entry %#x type %v progs %d", f, ref.Entry, ref.Type, len(ref.Progs))
	}
	for i, rp := range ref.Progs {
		p, err := f.Prog(b, i)
		if err != OK {
			t.Fatalf("prog %d: %v", i, err)
		}
		if p.Type != uint32(rp.Type) || p.Flags != uint32(rp.Flags) || p.Off != rp.Off || p.Vaddr != rp.Vaddr ||
			p.Filesz != rp.Filesz || p.Memsz != rp.Memsz || p.Align != rp.Align {
			t.Errorf("prog %d: %+v vs %+v", i, p, rp.ProgHeader)
		}
	}
	if f.HasInterp(b) {
		t.Error("static Go binary reported as dynamic")
	}
}

func TestRejects(t *testing.T) {
	if _, err := Parse(build(t, "amd64")); err != ErrMachine {
		t.Errorf("amd64: %v", err)
	}
	if _, err := Parse([]byte("#!/bin/sh\n")); err != ErrMagic {
		t.Errorf("script: %v", err)
	}
	b := build(t, "arm64")
	for n := 0; n < 4096; n++ {
		exercise(b[:n])
	}
	bad := append([]byte{}, b...)
	bad[56], bad[57] = 0xff, 0xff // phnum
	if _, err := Parse(bad); err != ErrPhdr {
		t.Errorf("huge phnum: %v", err)
	}
}

func exercise(b []byte) {
	f, err := Parse(b)
	if err != OK {
		return
	}
	for i := 0; i < int(f.Phnum); i++ {
		f.Prog(b, i)
	}
	f.HasInterp(b)
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, b []byte) { exercise(b) })
}
