package linker

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
)

// Image header layout (Documentation/arch/arm64/booting.rst, "Call the
// kernel image"): code0, code1, text_offset, image_size, flags, res2-4,
// magic "ARM\x64", res5.
const (
	imageHeaderSize = 64
	imageMagic      = 0x644d5241
	// flags: little-endian (bit 0 = 0), 4 KiB pages (bits 1-2 = 01),
	// placement anywhere (bit 3 = 1).
	imageFlags     = 0b1010
	branchOpcode   = 0x14000000 // B imm26
	branchRange    = 1 << 27
	imageSizeAlign = 0x1000
)

// ELFToImage lays the kernel ELF's PT_LOAD segments out flat from the
// first one's address and writes the Image header over the ELF header
// that starts it. textOffset is the board's.
func ELFToImage(kernel []byte, textOffset uint64) ([]byte, error) {
	f, err := elf.NewFile(bytes.NewReader(kernel))
	if err != nil {
		return nil, fmt.Errorf("kernel is not an ELF file: %v", err)
	}
	if f.Machine != elf.EM_AARCH64 {
		return nil, fmt.Errorf("kernel is %v, not arm64", f.Machine)
	}
	var loads []*elf.Prog
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			loads = append(loads, p)
		}
	}
	if len(loads) == 0 {
		return nil, fmt.Errorf("kernel has no PT_LOAD segments")
	}
	base := loads[0].Vaddr
	var fileEnd, memEnd uint64
	for _, p := range loads {
		if p.Vaddr < base {
			return nil, fmt.Errorf("kernel segments out of order")
		}
		fileEnd = max(fileEnd, p.Vaddr+p.Filesz-base)
		memEnd = max(memEnd, p.Vaddr+p.Memsz-base)
	}
	img := make([]byte, fileEnd)
	for _, p := range loads {
		if _, err := p.ReadAt(img[p.Vaddr-base:p.Vaddr-base+p.Filesz], 0); err != nil {
			return nil, fmt.Errorf("reading kernel segment at %#x: %v", p.Vaddr, err)
		}
	}
	off := f.Entry - base
	if f.Entry < base+imageHeaderSize || off >= fileEnd || off%4 != 0 || off >= branchRange {
		return nil, fmt.Errorf("kernel entry %#x is not inside the image", f.Entry)
	}
	var h [imageHeaderSize]byte
	le := binary.LittleEndian
	le.PutUint32(h[0:], branchOpcode|uint32(off/4))
	le.PutUint64(h[8:], textOffset)
	le.PutUint64(h[16:], (memEnd+imageSizeAlign-1)&^(imageSizeAlign-1))
	le.PutUint64(h[24:], imageFlags)
	le.PutUint32(h[56:], imageMagic)
	copy(img, h[:])
	return img, nil
}
