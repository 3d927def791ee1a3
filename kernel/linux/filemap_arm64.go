package linux

import (
	"github.com/gometal/gometal/kernel/elf"
	"github.com/gometal/gometal/kernel/mm"
)

// A program's read-only segments mapped from its file's pages in the
// page cache, as Linux's load_elf_binary maps every PT_LOAD with elf_map
// (MAP_PRIVATE of the file): a VMA with the file (mm.VMA.File), faulted
// in on first touch from the cache (mm's fileFault, 64 KiB around each
// fault), shared by every process that runs the program, never copied.
//
// Why: each execve copied the whole program into new frames. Under QEMU's
// TCG that cost far more than the copy (imagecache_arm64.go says why:
// QEMU keys its translated code by physical address, so a program in new
// frames is translated again, and frames that held code cost an
// invalidation when next written). go build execs the compiler once a
// package, a 20 MiB binary from the share: copied 120 times in a cold
// build, where Linux maps the same page-cache frames each time.
//
// A writable segment (data, bss) is still copied (loadSegment): its
// pages are the process's own from the start, and the part of its last
// file page past the segment's file bytes must read as zeros, which a
// private file mapping would have to copy anyway (Linux's padzero).

// segmentsApart reports whether ef's PT_LOAD segments, in ascending
// order, never share a page: then each is a VMA of its own, and mapping
// one from the file cannot hide bytes an earlier one copied into a page
// they share (loadSegment handles that sharing; a file mapping does not).
func segmentsApart(ef *elf.File, img []byte) bool {
	var last uintptr
	for i := 0; i < int(ef.Phnum); i++ {
		p, err := ef.Prog(img, i)
		if err != elf.OK {
			return false
		}
		if p.Type != elf.PT_LOAD || p.Memsz == 0 {
			continue
		}
		start := mm.PageDown(uintptr(p.Vaddr))
		if start < last {
			return false
		}
		last = mm.PageUp(uintptr(p.Vaddr + p.Memsz))
	}
	return true
}

// fileSegment reports whether segment p may map its file's pages: it is
// not writable, has no bss (Memsz past Filesz must read as zeros), and
// its offset and address agree modulo the page size (as the ELF ABI asks
// of a loadable segment).
func fileSegment(p *elf.Prog) bool {
	return p.Flags&elf.PF_W == 0 && p.Memsz == p.Filesz && p.Filesz > 0 &&
		uintptr(p.Off)&mm.PageMask == uintptr(p.Vaddr)&mm.PageMask
}

// loadFileSegment maps segment p of file f, moved by bias, as a private
// file mapping: the pages that hold its bytes, the file's bytes around
// it in its first and last page too (zeros past the file's end), as
// elf_map maps them. Nothing is read yet: the first touch of each page
// faults it in from the page cache (programImage has just read the whole
// file there, so the faults find it).
func loadFileSegment(s *mm.Space, p *elf.Prog, bias uint64, f imageFile) bool {
	start, end, ok := segmentPages(p, bias)
	if !ok {
		return false
	}
	return s.VMAs.AddVMA(mm.VMA{
		Start: start, End: end, Prot: protOfFlags(p.Flags),
		File: f.Ino, Mnt: f.Mnt, Off: mm.PageDown(uintptr(p.Off)),
	})
}
