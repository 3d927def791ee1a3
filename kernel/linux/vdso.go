package linux

// The vDSO: one page the kernel maps into the app and names in the auxv
// (AT_SYSINFO_EHDR), holding a minimal ELF shared object that exports
// __kernel_clock_gettime at version LINUX_2.6.39, which is what the Go
// runtime looks for on linux/arm64 (runtime/vdso_linux_arm64.go). With it
// the runtime reads the clock from EL0 (CNTVCT_EL0 and a data word the
// kernel fills) instead of trapping on every nanotime; without it every
// scheduling decision costs a syscall.
//
// This file lays the page out; it is pure so the host test can read the
// result with debug/elf and with the runtime's own lookup. The code
// itself is vdsoClockGettime in vdso_arm64.s, copied into the page.
//
// Page layout: ELF header, program headers (PT_LOAD over the whole page,
// PT_DYNAMIC), then .hash, .dynsym, .dynstr, .gnu.version,
// .gnu.version_d, .dynamic, .shstrtab, the section headers, the data
// words and the code.

// ELF constants (the ELF gABI and include/uapi/linux/elf.h); debug/elf
// cannot be used in the kernel (its package initializers never run).
const (
	elfHeaderSize   = 64
	elfPhdrSize     = 56
	elfShdrSize     = 64
	elfSymSize      = 24
	elfDynSize      = 16
	elfVerdefSize   = 20
	elfVerdauxSize  = 8
	etDyn           = 3
	emAArch64       = 183
	ptLoad          = 1
	ptDynamic       = 2
	pfR             = 4
	pfX             = 1
	dtNull          = 0
	dtHash          = 4
	dtStrtab        = 5
	dtSymtab        = 6
	dtStrsz         = 10
	dtSyment        = 11
	dtVersym        = 0x6ffffff0
	dtVerdef        = 0x6ffffffc
	dtVerdefnum     = 0x6ffffffd
	shtProgbits     = 1
	shtStrtab       = 3
	shtHash         = 5
	shtDynamic      = 6
	shtDynsym       = 11
	shtGNUVerdef    = 0x6ffffffd
	shtGNUVersym    = 0x6fffffff
	shfAlloc        = 2
	shfExecinstr    = 4
	stbGlobal       = 1
	sttFunc         = 2
	verFlgBase      = 1
	vdsoTextSection = 7 // section index of .text (st_shndx of the symbol)
)

// vdsoVA is where the vDSO page is mapped in every app (just below the
// signal trampoline, above the stack).
const vdsoVA = 0x0000_FFFF_FFFF_A000

// VDSOPage and SigTrampPage are the app addresses of the two pages the
// kernel maps into every app that its ELF does not name: the profile
// reader (cmd/gometal) names a PC in them, whose copy of these values a
// test checks.
const (
	VDSOPage     = vdsoVA
	SigTrampPage = sigTrampVA
)

// What the page offers, and where its data and code live.
const (
	vdsoSOName      = "linux-vdso.so.1"
	vdsoVersion     = "LINUX_2.6.39"
	vdsoClockSym    = "__kernel_clock_gettime"
	vdsoDataOff     = 0x800 // data words: clock multiplier, wall-clock offset
	vdsoCodeOff     = 0x900
	vdsoCodeMax     = 0x300 // bytes of code copied (the function and its literal pool)
	vdsoPageSize    = 0x1000
	vdsoDataMult    = 0 // ns = (CNTVCT * mult) >> 32
	vdsoDataWallOff = 8 // CLOCK_REALTIME = CLOCK_MONOTONIC + this (ns)
)

// strtab: "\0linux-vdso.so.1\0LINUX_2.6.39\0__kernel_clock_gettime\0"
const (
	vdsoStrSOName  = 1
	vdsoStrVersion = vdsoStrSOName + len(vdsoSOName) + 1
	vdsoStrSym     = vdsoStrVersion + len(vdsoVersion) + 1
	vdsoStrSize    = vdsoStrSym + len(vdsoClockSym) + 1
)

// shstrtab: "\0.hash\0.dynsym\0.dynstr\0.gnu.version\0.gnu.version_d\0.dynamic\0.text\0.shstrtab\0"
var vdsoSectionNames = [...]string{"", ".hash", ".dynsym", ".dynstr", ".gnu.version", ".gnu.version_d", ".dynamic", ".text", ".shstrtab"}

// elfHash is the System V ABI symbol hash (DT_HASH and vd_hash).
func elfHash(s string) uint32 {
	var h uint32
	for i := 0; i < len(s); i++ {
		h = h<<4 + uint32(s[i])
		if g := h & 0xf0000000; g != 0 {
			h ^= g >> 24
		}
		h &^= 0xf0000000
	}
	return h
}

func align8(n int) int { return (n + 7) &^ 7 }

// buildVDSO writes the vDSO image into page (vdsoPageSize bytes, zeroed):
// code is the machine code of __kernel_clock_gettime (at most
// vdsoCodeMax bytes), mult and wallOff its data words.
func buildVDSO(page []byte, code []byte, mult uint64, wallOff int64) {
	// Offsets of the parts, in order.
	phOff := elfHeaderSize
	hashOff := phOff + 2*elfPhdrSize
	symOff := align8(hashOff + 5*4) // nbucket, nchain, bucket[1], chain[2]
	strOff := symOff + 2*elfSymSize
	versymOff := strOff + vdsoStrSize
	verdefOff := align8(versymOff + 2*2)
	dynOff := align8(verdefOff + 2*(elfVerdefSize+elfVerdauxSize))
	const ndyn = 9
	shstrOff := dynOff + ndyn*elfDynSize
	shstrSize := 0
	for _, n := range vdsoSectionNames {
		shstrSize += len(n) + 1
	}
	shOff := align8(shstrOff + shstrSize)

	// ELF header.
	copy(page, "\x7fELF")
	page[4] = 2 // ELFCLASS64
	page[5] = 1 // ELFDATA2LSB
	page[6] = 1 // EV_CURRENT
	put16(page, 16, etDyn)
	put16(page, 18, emAArch64)
	put32(page, 20, 1)
	put64(page, 24, vdsoCodeOff) // e_entry: unused, but plausible
	put64(page, 32, uint64(phOff))
	put64(page, 40, uint64(shOff))
	put16(page, 52, elfHeaderSize)
	put16(page, 54, elfPhdrSize)
	put16(page, 56, 2)
	put16(page, 58, elfShdrSize)
	put16(page, 60, uint16(len(vdsoSectionNames)))
	put16(page, 62, uint16(len(vdsoSectionNames)-1)) // e_shstrndx

	// PT_LOAD: the whole page, read and execute, at vaddr 0 (so the
	// runtime's load offset is the page's address).
	ph := page[phOff:]
	put32(ph, 0, ptLoad)
	put32(ph, 4, pfR|pfX)
	put64(ph, 32, vdsoPageSize) // p_filesz
	put64(ph, 40, vdsoPageSize) // p_memsz
	put64(ph, 48, vdsoPageSize) // p_align
	ph = page[phOff+elfPhdrSize:]
	put32(ph, 0, ptDynamic)
	put32(ph, 4, pfR)
	put64(ph, 8, uint64(dynOff))
	put64(ph, 16, uint64(dynOff))
	put64(ph, 24, uint64(dynOff))
	put64(ph, 32, ndyn*elfDynSize)
	put64(ph, 40, ndyn*elfDynSize)
	put64(ph, 48, 8)

	// .hash: one bucket holding symbol 1; chains end at once.
	put32(page, hashOff, 1)    // nbucket
	put32(page, hashOff+4, 2)  // nchain (= number of symbols)
	put32(page, hashOff+8, 1)  // bucket[0]
	put32(page, hashOff+12, 0) // chain[0]
	put32(page, hashOff+16, 0) // chain[1]

	// .dynsym: the null symbol, then the function.
	sym := page[symOff+elfSymSize:]
	put32(sym, 0, uint32(vdsoStrSym))
	sym[4] = stbGlobal<<4 | sttFunc
	put16(sym, 6, vdsoTextSection)
	put64(sym, 8, vdsoCodeOff)
	put64(sym, 16, uint64(len(code)))

	// .dynstr
	copy(page[strOff+vdsoStrSOName:], vdsoSOName)
	copy(page[strOff+vdsoStrVersion:], vdsoVersion)
	copy(page[strOff+vdsoStrSym:], vdsoClockSym)

	// .gnu.version: the function is version 2 (LINUX_2.6.39).
	put16(page, versymOff+2, 2)

	// .gnu.version_d: version 1 is the object itself (VER_FLG_BASE),
	// version 2 is LINUX_2.6.39.
	putVerdef(page, verdefOff, verFlgBase, 1, elfHash(vdsoSOName), vdsoStrSOName, true)
	putVerdef(page, verdefOff+elfVerdefSize+elfVerdauxSize, 0, 2, elfHash(vdsoVersion), vdsoStrVersion, false)

	// .dynamic
	dyn := [ndyn][2]uint64{
		{dtHash, uint64(hashOff)},
		{dtStrtab, uint64(strOff)},
		{dtSymtab, uint64(symOff)},
		{dtStrsz, uint64(vdsoStrSize)},
		{dtSyment, elfSymSize},
		{dtVersym, uint64(versymOff)},
		{dtVerdef, uint64(verdefOff)},
		{dtVerdefnum, 2},
		{dtNull, 0},
	}
	for i, d := range dyn {
		put64(page, dynOff+i*elfDynSize, d[0])
		put64(page, dynOff+i*elfDynSize+8, d[1])
	}

	// .shstrtab and the section headers.
	nameOff := [len(vdsoSectionNames)]int{}
	at := 1
	for i, n := range vdsoSectionNames {
		if i == 0 {
			continue
		}
		nameOff[i] = at
		copy(page[shstrOff+at:], n)
		at += len(n) + 1
	}
	sections := [len(vdsoSectionNames)]struct {
		typ, flags      uint32
		off, size       int
		link, info, ent uint32
	}{
		{},
		{shtHash, shfAlloc, hashOff, 5 * 4, 2, 0, 4},
		{shtDynsym, shfAlloc, symOff, 2 * elfSymSize, 3, 1, elfSymSize},
		{shtStrtab, shfAlloc, strOff, vdsoStrSize, 0, 0, 0},
		{shtGNUVersym, shfAlloc, versymOff, 2 * 2, 2, 0, 2},
		{shtGNUVerdef, shfAlloc, verdefOff, 2 * (elfVerdefSize + elfVerdauxSize), 3, 2, 0},
		{shtDynamic, shfAlloc, dynOff, ndyn * elfDynSize, 3, 0, elfDynSize},
		{shtProgbits, shfAlloc | shfExecinstr, vdsoCodeOff, len(code), 0, 0, 0},
		{shtStrtab, 0, shstrOff, shstrSize, 0, 0, 0},
	}
	for i, s := range sections {
		sh := page[shOff+i*elfShdrSize:]
		put32(sh, 0, uint32(nameOff[i]))
		put32(sh, 4, s.typ)
		put64(sh, 8, uint64(s.flags))
		if s.flags&shfAlloc != 0 {
			put64(sh, 16, uint64(s.off)) // sh_addr = offset: loaded at 0
		}
		put64(sh, 24, uint64(s.off))
		put64(sh, 32, uint64(s.size))
		put32(sh, 40, s.link)
		put32(sh, 44, s.info)
		put64(sh, 48, 8) // sh_addralign
		put64(sh, 56, uint64(s.ent))
	}

	// Data and code.
	put64(page, vdsoDataOff+vdsoDataMult, mult)
	put64(page, vdsoDataOff+vdsoDataWallOff, uint64(wallOff))
	copy(page[vdsoCodeOff:vdsoCodeOff+vdsoCodeMax], code)
}

// putVerdef writes one Elf64_Verdef with its single Elf64_Verdaux right
// after it; more says whether another definition follows.
func putVerdef(b []byte, off int, flags, ndx uint16, hash uint32, name int, more bool) {
	put16(b, off, 1) // vd_version
	put16(b, off+2, flags)
	put16(b, off+4, ndx)
	put16(b, off+6, 1) // vd_cnt
	put32(b, off+8, hash)
	put32(b, off+12, elfVerdefSize) // vd_aux
	if more {
		put32(b, off+16, elfVerdefSize+elfVerdauxSize) // vd_next
	}
	put32(b, off+elfVerdefSize, uint32(name)) // vda_name
}

// vdsoMult is the multiplier for ns = (ticks * mult) >> 32 at counter
// frequency freq.
func vdsoMult(freq uint64) uint64 { return (uint64(1e9) << 32) / freq }
