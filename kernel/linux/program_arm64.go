package linux

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/elf"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// A program loaded into an address space: what /init's start and every
// execve share (fs/binfmt_elf.c, load_elf_binary, for static
// executables: no PT_INTERP).

// program is what the initial stack's auxiliary vector says of the
// loaded image, all with the load bias added.
type program struct {
	Entry     uint64
	PhdrVA    uint64
	Phent     uint16
	Phnum     uint16
	Base      uint64 // the load bias: 0 for ET_EXEC
	BrkBase   uintptr
	StackSize uintptr
}

// dynBase is where a static PIE (ET_DYN, no interpreter) is loaded:
// Linux's ELF_ET_DYN_BASE on arm64, two thirds of the 48-bit user space
// (arch/arm64/include/asm/elf.h), without its randomization.
const dynBase = 0x0000_AAAA_AAAA_0000

// loadFailure says why loadProgram failed: what, and for a bad ELF the
// parser's reason.
type loadFailure struct {
	What uint8
	ELF  elf.Err
}

// What loadProgram may fail for.
const (
	loadOK      = iota
	loadNotELF  // not a loadable arm64 ELF executable (ELF says why)
	loadDynamic // has PT_INTERP
	loadBadPhdr // a program header is bad (ELF says why)
	loadNoFit   // a segment fits neither memory nor the address space
)

// errno is what execve answers for the failure (fs/binfmt_elf.c: a
// malformed or foreign image is ENOEXEC, a lack of memory ENOMEM).
func (l loadFailure) errno() unix.Errno {
	if l.What == loadNoFit {
		return unix.ENOMEM
	}
	return unix.ENOEXEC
}

// report says it on the console after "gometal: /init " (no string is
// built: kernel rule 1).
func (l loadFailure) report() {
	switch l.What {
	case loadNotELF:
		kernel.Puts("is not a loadable arm64 ELF executable: ")
		kernel.Puts(l.ELF.String())
	case loadDynamic:
		kernel.Puts("is dynamically linked; build it with CGO_ENABLED=0")
	case loadBadPhdr:
		kernel.Puts("has a bad program header: ")
		kernel.Puts(l.ELF.String())
	case loadNoFit:
		kernel.Puts("has a segment that does not fit in memory or the address space")
	}
}

// imageFile is the file a program is loaded from when its pages are in
// the page cache (a file of a disk, a share or tmpfs, not the
// initramfs's archive): its inode's slot and the mount it was reached
// through. Ino 0: none.
type imageFile struct{ Ino, Mnt int32 }

// loadProgram maps img's PT_LOAD segments, the signal trampoline and the
// vDSO into the empty space s. archived says img is the initramfs's own
// bytes of the file, which never change: its read-only segments then map
// the program page cache's frames (imagecache_arm64.go). Otherwise, with
// f, the read-only segments map f's own pages in the page cache
// (filemap_arm64.go's loadFileSegment), as Linux's elf_map does.
func loadProgram(s *mm.Space, img []byte, archived bool, f imageFile) (program, loadFailure) {
	var pr program
	var c *imageEntry
	if archived {
		c = imageEntryFor(img)
	}
	ef, err := elf.Parse(img)
	if err != elf.OK {
		return pr, loadFailure{loadNotELF, err}
	}
	if ef.HasInterp(img) {
		return pr, loadFailure{What: loadDynamic}
	}
	if ef.Type == elf.ET_DYN {
		pr.Base = dynBase
	}
	if f.Ino != 0 && !segmentsApart(&ef, img) {
		f.Ino = 0 // segments share a page: copy them, as loadSegment can
	}
	var end uintptr
	for i := 0; i < int(ef.Phnum); i++ {
		p, err := ef.Prog(img, i)
		if err != elf.OK {
			return pr, loadFailure{loadBadPhdr, err}
		}
		if p.Type != elf.PT_LOAD {
			continue
		}
		if p.Off <= ef.Phoff && ef.Phoff < p.Off+p.Filesz {
			pr.PhdrVA = p.Vaddr + ef.Phoff - p.Off + pr.Base
		}
		if f.Ino != 0 && fileSegment(&p) {
			if !loadFileSegment(s, &p, pr.Base, f) {
				return pr, loadFailure{What: loadNoFit}
			}
		} else if !loadSegment(s, img, &p, pr.Base, c) {
			return pr, loadFailure{What: loadNoFit}
		}
		if e := mm.PageUp(uintptr(p.Vaddr + pr.Base + p.Memsz)); e > end {
			end = e
		}
	}
	if !mapKernelPages(s) {
		return pr, loadFailure{What: loadNoFit}
	}
	cpu.ICacheInvalidate() // the program's text was written through the direct map
	pr.Entry = ef.Entry + pr.Base
	pr.Phent, pr.Phnum = ef.Phentsize, ef.Phnum
	pr.BrkBase = end
	return pr, loadFailure{}
}

// auxv is the auxiliary vector for the loaded program, with the
// addresses of strings already on its stack.
func (pr *program) auxv(platform, random, execfn uintptr) [38]uint64 {
	hwcap, hwcap2 := hwcaps()
	return [...]uint64{
		atPhdr, pr.PhdrVA,
		atPhent, uint64(pr.Phent),
		atPhnum, uint64(pr.Phnum),
		atPagesz, mm.PageSize,
		atBase, 0, // no interpreter
		atEntry, pr.Entry,
		atUID, 0, atEUID, 0, atGID, 0, atEGID, 0,
		atPlatform, uint64(platform),
		atHwcap, hwcap,
		atHwcap2, hwcap2,
		atClktck, 100,
		atSecure, 0,
		atRandom, uint64(random),
		atExecfn, uint64(execfn),
		atSysinfoEhdr, vdsoVA,
		atNull, 0,
	}
}

// The kernel's pages every program maps: the signal trampoline (with
// the exit stub) and the vDSO, made once and shared by every address
// space, as Linux's vdso and vvar pages are.
var sigTrampPA, vdsoPA uintptr

// makeKernelPages builds them (boot, once the clock is set).
func makeKernelPages() bool {
	if sigTrampPA = makeSigTrampoline(); sigTrampPA == 0 {
		return false
	}
	vdsoPA = makeVDSO()
	return vdsoPA != 0
}

// mapKernelPages maps them into s.
func mapKernelPages(s *mm.Space) bool {
	return s.MapFixedPage(sigTrampVA, sigTrampPA, mm.ProtRead|mm.ProtExec) &&
		s.MapFixedPage(vdsoVA, vdsoPA, mm.ProtRead|mm.ProtExec)
}

// setExe makes inode i the program process p runs (execve, /init),
// letting go of the one it ran: writing to a running program's file is
// ETXTBSY, as Linux's deny_write_access makes it.
func setExe(p int32, i int32) {
	dropExe(p)
	fs.Inodes[i].Running++
	fs.Hold(i)
	lprocs[p].Exe = i + 1
}

// dropExe lets go of p's program file (exec, exit).
func dropExe(p int32) {
	if e := lprocs[p].Exe - 1; e >= 0 {
		fs.Inodes[e].Running--
		fs.Drop(e)
		lprocs[p].Exe = 0
	}
}

// inheritExe gives fork's child c its parent p's program file.
func inheritExe(c, p int32) {
	if e := lprocs[p].Exe - 1; e >= 0 {
		fs.Inodes[e].Running++
		fs.Hold(e)
		lprocs[c].Exe = e + 1
	}
	lprocs[c].ExePath, lprocs[c].ExeLen = lprocs[p].ExePath, lprocs[p].ExeLen
}

// setExePath records where the walk w found p's program: the absolute
// path of its directory, then its name (as Linux's d_path of the exe).
func setExePath(p int32, w *fs.Walk) {
	lp := &lprocs[p]
	buf := lp.ExePath[:]
	n, e := fs.PathOf(w.DirPath(), buf)
	name := w.Name()
	if e != 0 || n+1+len(name) > len(buf) {
		lp.ExeLen = 0
		return
	}
	if n > 1 { // not the root
		buf[n] = '/'
		n++
	}
	n += copy(buf[n:], name)
	lp.ExeLen = int32(n)
}
