// Package elf reads the ELF-64 headers of the app the kernel loads
// (System V gABI "ELF-64 Object File Format"; AArch64 ELF ABI for EM and
// flags), in place and without allocating.
package elf

// Err is a parse result.
type Err uint8

const (
	OK Err = iota
	ErrTruncated
	ErrMagic
	ErrClass
	ErrEndian
	ErrVersion
	ErrMachine
	ErrType
	ErrPhdr
	ErrSegment
)

func (e Err) String() string {
	switch e {
	case OK:
		return "ok"
	case ErrTruncated:
		return "file too short for an ELF header"
	case ErrMagic:
		return "not an ELF file"
	case ErrClass:
		return "not a 64-bit ELF file"
	case ErrEndian:
		return "not little-endian"
	case ErrVersion:
		return "unknown ELF version"
	case ErrMachine:
		return "not an arm64 (EM_AARCH64) executable"
	case ErrType:
		return "not an executable (ET_EXEC or ET_DYN)"
	case ErrPhdr:
		return "program header table out of bounds"
	case ErrSegment:
		return "segment out of bounds"
	}
	return "ELF error"
}

const (
	ET_EXEC    = 2
	ET_DYN     = 3
	EM_AARCH64 = 183

	PT_LOAD      = 1
	PT_DYNAMIC   = 2
	PT_INTERP    = 3
	PT_NOTE      = 4
	PT_PHDR      = 6
	PT_TLS       = 7
	PT_GNU_STACK = 0x6474e551

	PF_X = 1
	PF_W = 2
	PF_R = 4

	ehdrSize = 64
	phdrSize = 56
)

// File is the ELF header fields the loader needs.
type File struct {
	Type, Machine    uint16
	Entry            uint64
	Phoff            uint64
	Phentsize, Phnum uint16
}

// Prog is a program header.
type Prog struct {
	Type, Flags                      uint32
	Off, Vaddr, Filesz, Memsz, Align uint64
}

func le16(b []byte, o int) uint16 { return uint16(b[o]) | uint16(b[o+1])<<8 }
func le32(b []byte, o int) uint32 { return uint32(le16(b, o)) | uint32(le16(b, o+2))<<16 }
func le64(b []byte, o int) uint64 { return uint64(le32(b, o)) | uint64(le32(b, o+4))<<32 }

// Parse validates the ELF header.
func Parse(b []byte) (File, Err) {
	var f File
	if len(b) < 4 || b[0] != 0x7f || b[1] != 'E' || b[2] != 'L' || b[3] != 'F' {
		return f, ErrMagic
	}
	if len(b) < ehdrSize {
		return f, ErrTruncated
	}
	if b[4] != 2 {
		return f, ErrClass
	}
	if b[5] != 1 {
		return f, ErrEndian
	}
	if b[6] != 1 || le32(b, 20) != 1 {
		return f, ErrVersion
	}
	f.Type = le16(b, 16)
	f.Machine = le16(b, 18)
	f.Entry = le64(b, 24)
	f.Phoff = le64(b, 32)
	f.Phentsize = le16(b, 54)
	f.Phnum = le16(b, 56)
	if f.Machine != EM_AARCH64 {
		return f, ErrMachine
	}
	if f.Type != ET_EXEC && f.Type != ET_DYN {
		return f, ErrType
	}
	if f.Phentsize != phdrSize || f.Phoff > uint64(len(b)) || uint64(f.Phnum)*phdrSize > uint64(len(b))-f.Phoff {
		return f, ErrPhdr
	}
	return f, OK
}

// Prog returns the i-th program header, checked against the file.
func (f *File) Prog(b []byte, i int) (Prog, Err) {
	var p Prog
	if i < 0 || i >= int(f.Phnum) {
		return p, ErrPhdr
	}
	o := int(f.Phoff) + i*phdrSize
	p.Type = le32(b, o)
	p.Flags = le32(b, o+4)
	p.Off = le64(b, o+8)
	p.Vaddr = le64(b, o+16)
	p.Filesz = le64(b, o+32)
	p.Memsz = le64(b, o+40)
	p.Align = le64(b, o+48)
	if p.Off > uint64(len(b)) || p.Filesz > uint64(len(b))-p.Off || p.Filesz > p.Memsz || p.Vaddr+p.Memsz < p.Vaddr {
		return p, ErrSegment
	}
	return p, OK
}

// HasInterp reports a PT_INTERP header: a dynamically linked program.
func (f *File) HasInterp(b []byte) bool {
	for i := 0; i < int(f.Phnum); i++ {
		if p, err := f.Prog(b, i); err == OK && p.Type == PT_INTERP {
			return true
		}
	}
	return false
}
