package linux

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"testing"
)

func buildTestVDSO(t *testing.T) []byte {
	t.Helper()
	page := make([]byte, vdsoPageSize)
	code := bytes.Repeat([]byte{0x1f, 0x20, 0x03, 0xd5}, 16) // NOPs
	buildVDSO(page, code, vdsoMult(62_500_000), 1234)
	return page
}

// The page is a well-formed ELF shared object to the standard library's
// reader: one exported function at the code offset, version LINUX_2.6.39.
func TestVDSOIsAnELFDebugElfReads(t *testing.T) {
	f, err := elf.NewFile(bytes.NewReader(buildTestVDSO(t)))
	if err != nil {
		t.Fatal(err)
	}
	if f.Type != elf.ET_DYN || f.Machine != elf.EM_AARCH64 || f.Class != elf.ELFCLASS64 {
		t.Errorf("type %v machine %v class %v", f.Type, f.Machine, f.Class)
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	if len(syms) != 1 || syms[0].Name != vdsoClockSym || syms[0].Value != vdsoCodeOff ||
		elf.ST_TYPE(syms[0].Info) != elf.STT_FUNC || elf.ST_BIND(syms[0].Info) != elf.STB_GLOBAL {
		t.Fatalf("dynamic symbols: %+v", syms)
	}
	if syms[0].Version != vdsoVersion {
		t.Errorf("symbol version %q, want %q", syms[0].Version, vdsoVersion)
	}
	text := f.Section(".text")
	if text == nil || text.Addr != vdsoCodeOff {
		t.Errorf(".text: %+v", text)
	}
	var load, dyn bool
	for _, p := range f.Progs {
		switch p.Type {
		case elf.PT_LOAD:
			load = p.Vaddr == 0 && p.Off == 0 && p.Memsz == vdsoPageSize && p.Flags == elf.PF_R|elf.PF_X
		case elf.PT_DYNAMIC:
			dyn = true
		}
	}
	if !load || !dyn {
		t.Errorf("program headers: PT_LOAD ok %v, PT_DYNAMIC %v", load, dyn)
	}
}

// The hashes the Go runtime looks the symbol and its version up with
// (runtime/vdso_linux_arm64.go) are what elfHash computes, and the
// runtime's DT_HASH walk finds the symbol.
func TestVDSOLookupAsTheGoRuntimeDoesIt(t *testing.T) {
	if h := elfHash(vdsoClockSym); h != 0xb0cd725 {
		t.Errorf("elfHash(%s) = %#x, want the runtime's 0xb0cd725", vdsoClockSym, h)
	}
	if h := elfHash(vdsoVersion); h != 0x75fcb89 {
		t.Errorf("elfHash(%s) = %#x, want the runtime's 0x75fcb89", vdsoVersion, h)
	}
	page := buildTestVDSO(t)
	le := binary.LittleEndian
	f, _ := elf.NewFile(bytes.NewReader(page))
	hashOff, _ := f.DynValue(elf.DT_HASH)
	symOff, _ := f.DynValue(elf.DT_SYMTAB)
	strOff, _ := f.DynValue(elf.DT_STRTAB)
	if len(hashOff) != 1 || len(symOff) != 1 || len(strOff) != 1 {
		t.Fatalf("DT_HASH %v DT_SYMTAB %v DT_STRTAB %v", hashOff, symOff, strOff)
	}
	h := page[hashOff[0]:]
	nbucket := le.Uint32(h)
	bucket := le.Uint32(h[8+4*(0xb0cd725%nbucket):])
	sym := page[symOff[0]+uint64(bucket)*elfSymSize:]
	name := page[strOff[0]+uint64(le.Uint32(sym)):]
	name = name[:bytes.IndexByte(name, 0)]
	if string(name) != vdsoClockSym || le.Uint64(sym[8:]) != vdsoCodeOff {
		t.Errorf("hash lookup found %q at %#x", name, le.Uint64(sym[8:]))
	}
	if m := le.Uint64(page[vdsoDataOff+vdsoDataMult:]); m != 16<<32 {
		t.Errorf("multiplier for 62.5 MHz = %d, want 16<<32 (16 ns per tick)", m)
	}
}
