package linux

import (
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/usermem"
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/kernel/cpio"
	"github.com/gometal/gometal/kernel/elf"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// The loader: /init's PT_LOAD segments into the app's address space and
// the Linux initial stack (argc, argv, envp, auxv; System V AArch64 ABI
// §"Process initialization", as fs/binfmt_elf.c lays it out).

// exitCannotRun is the status when /init cannot be started at all (as a
// shell reports a command it cannot execute).
const exitCannotRun = 126

// unpackFailed says why the initramfs could not become the file system,
// and stops: the app cannot run without it.
func unpackFailed(ue *fs.UnpackError) {
	if ue.Err != cpio.OK {
		kernel.Puts("gometal: the initramfs is not a cpio newc archive: ")
		kernel.Puts(ue.Err.String())
	} else {
		kernel.Puts("gometal: cannot unpack the initramfs at ")
		kernel.PutBytes(ue.Entry)
		kernel.Puts(": ")
		if ue.Errno == unix.ENOSPC {
			kernel.Puts("more files than the kernel's table holds (")
			kernel.PutDec(fs.MaxInodes)
			kernel.Puts(" inodes; ")
			kernel.PutDec(int64(ue.Count))
			kernel.Puts(" entries made)")
		} else {
			kernel.Puts("errno ")
			kernel.PutDec(int64(ue.Errno))
		}
	}
	kernel.Puts("\n")
	appExit(exitCannotRun)
}

// loadInit loads /init and returns its first thread, ready to enter.
func loadInit() *sched.Thread {
	t := newInitProcess()
	initConsoleFDs()
	kernel.InitConsoleIRQ()
	initNetSockets()
	// The loader writes the stack through usermem, into /init's space.
	usermem.Use(sched.SelfID(), &mm.Spaces[t.Space])
	if ue, ok := fs.Init(kernel.TmpfsLimit()); !ok {
		unpackFailed(&ue)
	}
	bootConsoleNode()
	writeResolvConf()
	mountProc()
	mountDevpts()
	makeDiskNodes()
	mountDisks()
	mountShares()
	initCwd()
	initFileMaps()
	var w fs.Walk
	i, e := fs.Lookup(&w, fs.RootPath(), []byte("/init"), fs.Follow)
	img := []byte(nil)
	if e == 0 {
		img = fs.ArchiveData(i)
	}
	if img == nil {
		kernel.Puts("gometal: the initramfs has no /init (a regular file)\n")
		appExit(exitCannotRun)
	}
	if !makeKernelPages() {
		kernel.Panic("out of memory making the signal trampoline and the vDSO")
	}
	img2, fail := loadProgram(&mm.Spaces[t.Space], img, true, imageFile{})
	if fail.What != loadOK {
		kernel.Puts("gometal: /init ")
		fail.report()
		kernel.Puts("\n")
		appExit(exitCannotRun)
	}
	mm.Spaces[t.Space].Brk = img2.BrkBase
	setExe(proc.Init, i)
	setExePath(proc.Init, &w)
	lx(t).TimerSlack, lx(t).DefaultSlack = timerSlackNanos, timerSlackNanos
	sp, ok := buildStack(&img2)
	if !ok {
		kernel.Puts("gometal: argv/envp do not fit on the initial stack\n")
		appExit(exitCannotRun)
	}
	t.Ctx.PC = img2.Entry
	t.Ctx.SP = uint64(sp)
	t.Ctx.PSTATE = 0 // EL0t, interrupts unmasked
	armStateDump()
	return t
}

// newInitProcess makes PID 1 and its first thread, with a new address
// space, descriptor table, file-system context and handler table. Its
// parent is the kernel; its process group and session are 0, as Linux
// starts init. The loader then works as that thread (the core's
// current), as Linux's kernel_init runs as PID 1 before it execs init.
func newInitProcess() *sched.Thread {
	t := newThread()
	if t == nil {
		kernel.Panic("no thread slot for /init")
	}
	p := proc.New(t.TID, proc.NoParent)
	if p != proc.Init || t.TID != appPID {
		kernel.Panic("/init is not the first process")
	}
	lx(t).Proc = p
	t.TGID = t.TID
	pp := &proc.Procs[p]
	pp.Threads = 1
	proc.SetComm(p, []byte("/init"))
	lx(t).Comm = pp.Comm
	traceProc(t)
	pp.MM = mm.NewSpace(&mm.Pages)
	pp.Files = proc.NewFDTable()
	pp.FS = proc.NewFSContext(proc.FSContext{Cwd: fs.RootIno, Umask: umaskDefault})
	pp.SigHand = newSigHand()
	if pp.MM < 0 || pp.Files < 0 || pp.FS < 0 || pp.SigHand < 0 {
		kernel.Panic("out of memory creating /init's process")
	}
	t.Space = pp.MM
	kernel.ThisCPU().Current = sched.Index(t)
	return t
}

func protOfFlags(fl uint32) mm.Prot {
	var p mm.Prot
	if fl&elf.PF_R != 0 {
		p |= mm.ProtRead
	}
	if fl&elf.PF_W != 0 {
		p |= mm.ProtWrite
	}
	if fl&elf.PF_X != 0 {
		p |= mm.ProtExec
	}
	return p
}

// loadSegment maps a PT_LOAD segment into s, moved by bias: the pages
// holding file bytes are filled now; the rest of the segment (bss) is
// left to demand paging, which supplies zeroed pages on first touch.
// With c (img's entry in the program page cache), a segment the program
// cannot write maps the cache's frames of the file instead of copies, as
// Linux's elf_map maps the file's pages: the whole page that holds a
// byte of the segment, so its first and last pages show the file's bytes
// around the segment (zeroes past the file's end). The last page of one
// with more memory than file bytes (a bss in a read-only segment, which
// must read as zeroes) is copied still.
func loadSegment(s *mm.Space, img []byte, p *elf.Prog, bias uint64, c *imageEntry) bool {
	vaddr := p.Vaddr + bias
	start, end, ok := segmentPages(p, bias)
	if !ok {
		return false
	}
	prot := protOfFlags(p.Flags)
	if !s.VMAs.Add(start, end, prot, 0) {
		return false
	}
	// Shared only where the file's pages line up with the segment's
	// (p_offset ≡ p_vaddr modulo the page size, as the ELF ABI asks of
	// a loadable segment).
	share := c != nil && prot&mm.ProtWrite == 0 && uintptr(p.Off)&mm.PageMask == uintptr(vaddr)&mm.PageMask
	segLo, segHi := uintptr(vaddr), uintptr(vaddr+p.Filesz)
	fileEnd := mm.PageUp(segHi)
	for va := start; va < fileEnd; va += mm.PageSize {
		pa, _, ok := s.PT.Lookup(va)
		if !ok && share && (va+mm.PageSize <= segHi || p.Memsz == p.Filesz) {
			if mapCached(s, c, img, (uintptr(p.Off)-(segLo-va))/mm.PageSize, va, prot) {
				continue
			}
		}
		if ok && mm.Pages.Refs(pa) > 1 {
			// An earlier segment mapped the cache's frame here: this
			// one writes into the page, so it gets a copy of its own.
			np := mm.Pages.Get()
			if np == 0 {
				return false
			}
			*mm.PageBytes(np) = *mm.PageBytes(pa)
			s.PT.Map(&mm.Pages, va, np, prot) // the table is there: cannot fail
			mm.Pages.Unref(pa)
			pa = np
		}
		if !ok {
			if pa = mm.Pages.Get(); pa == 0 || !s.PT.Map(&mm.Pages, va, pa, prot) {
				if pa != 0 {
					mm.Pages.Put(pa)
				}
				return false
			}
			s.Resident++
			s.Peak = max(s.Peak, s.Resident)
		}
		// Copy the part of the file image that lands in this page.
		lo, hi := va, va+mm.PageSize
		if lo < segLo {
			lo = segLo
		}
		if hi > segHi {
			hi = segHi
		}
		if lo < hi {
			src := img[uintptr(p.Off)+(lo-segLo) : uintptr(p.Off)+(hi-segLo)]
			copy(mm.PageBytes(pa)[lo-va:], src)
		}
	}
	return true
}

// segmentPages is the page range segment p occupies moved by bias;
// false when it wraps, is empty, or lies outside the app's half (page 0
// included).
func segmentPages(p *elf.Prog, bias uint64) (start, end uintptr, ok bool) {
	vaddr := p.Vaddr + bias
	if vaddr < bias || vaddr+p.Memsz < vaddr {
		return 0, 0, false
	}
	start = mm.PageDown(uintptr(vaddr))
	end = mm.PageUp(uintptr(vaddr + p.Memsz))
	return start, end, end > start && end <= mm.UserTop && start >= mm.PageSize
}

// mapCached maps at va, with rights prot, the cache's frame of the file's
// page pg, counting s's use of it; false if the cache cannot give it
// (the caller copies the page instead).
func mapCached(s *mm.Space, c *imageEntry, img []byte, pg, va uintptr, prot mm.Prot) bool {
	fr := c.frame(img, pg)
	if fr == 0 || !mm.Pages.Ref(fr) {
		return false
	}
	if !s.PT.Map(&mm.Pages, va, fr, prot) {
		mm.Pages.Unref(fr)
		return false
	}
	s.Resident++
	s.Peak = max(s.Peak, s.Resident)
	return true
}

// Auxiliary vector keys (include/uapi/linux/auxvec.h).
const (
	atNull        = 0
	atPhdr        = 3
	atPhent       = 4
	atPhnum       = 5
	atPagesz      = 6
	atBase        = 7
	atEntry       = 9
	atUID         = 11
	atEUID        = 12
	atGID         = 13
	atEGID        = 14
	atPlatform    = 15
	atHwcap       = 16
	atClktck      = 17
	atSecure      = 23
	atRandom      = 25
	atHwcap2      = 26
	atExecfn      = 31
	atSysinfoEhdr = 33 // the vDSO's ELF header
)

const maxArgs = 1024

// buildStack lays out /init's initial stack, with the arguments and
// environment the CLI put in the initramfs, and returns SP.
func buildStack(img *program) (uintptr, bool) {
	top := uintptr(mm.StackTop)
	if !usermem.Cur().VMAs.Add(top-mm.StackSize, top, mm.ProtRead|mm.ProtWrite, mm.VMAStack) {
		return 0, false
	}
	argvData := fs.ConfigFile(".gometal/argv")
	envData := fs.ConfigFile(".gometal/envp")
	if len(argvData) == 0 {
		argvData = []byte("/init\x00")
	}
	sp := top
	// Strings first, at the top: argv, envp, platform, execfn.
	push := func(b []byte) (uintptr, bool) {
		sp -= uintptr(len(b))
		return sp, usermem.CopyOut(sp, b)
	}
	strsEnd := sp
	argStart, ok1 := push(argvData)
	envStart, ok2 := push(envData)
	platform, ok3 := push([]byte("aarch64\x00"))
	sp &^= 15
	var rnd [16]byte
	fillRandom(rnd[:])
	random, ok4 := push(rnd[:])
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return 0, false
	}
	_ = strsEnd
	s := usermem.Cur()
	s.ArgStart, s.ArgEnd = argStart, argStart+uintptr(len(argvData))
	s.EnvStart, s.EnvEnd = envStart, envStart+uintptr(len(envData))
	// Pointer arrays: count the strings first.
	argc := countStrings(argvData)
	envc := countStrings(envData)
	if argc+envc > maxArgs*8 {
		return 0, false
	}
	auxv := img.auxv(platform, random, argStart)
	words := 1 + argc + 1 + envc + 1 + len(auxv)
	sp -= uintptr(words) * 8
	sp &^= 15
	w := sp
	if !usermem.WriteU64(w, uint64(argc)) {
		return 0, false
	}
	w += 8
	w, ok1 = writePointers(w, argStart, argvData)
	w, ok2 = writePointers(w, envStart, envData)
	if !ok1 || !ok2 {
		return 0, false
	}
	if !usermem.CopyOut(w, usermem.BytesOf(unsafe.Pointer(&auxv), unsafe.Sizeof(auxv))) {
		return 0, false
	}
	return sp, true
}

func countStrings(b []byte) int {
	n := 0
	for _, c := range b {
		if c == 0 {
			n++
		}
	}
	return n
}

// writePointers writes one pointer per NUL-terminated string in data
// (which lives at base in the app), then a NULL.
func writePointers(w uintptr, base uintptr, data []byte) (uintptr, bool) {
	start := 0
	for i, c := range data {
		if c == 0 {
			if !usermem.WriteU64(w, uint64(base)+uint64(start)) {
				return w, false
			}
			w += 8
			start = i + 1
		}
	}
	return w + 8, usermem.WriteU64(w, 0)
}

// AT_HWCAP bits (arch/arm64/include/uapi/asm/hwcap.h); x/sys/unix does
// not carry them.
const (
	hwcapFP       = 1 << 0
	hwcapASIMD    = 1 << 1
	hwcapEVTSTRM  = 1 << 2
	hwcapAES      = 1 << 3
	hwcapPMULL    = 1 << 4
	hwcapSHA1     = 1 << 5
	hwcapSHA2     = 1 << 6
	hwcapCRC32    = 1 << 7
	hwcapATOMICS  = 1 << 8
	hwcapASIMDRDM = 1 << 12
	hwcapSHA3     = 1 << 17
	hwcapASIMDDP  = 1 << 20
	hwcapSHA512   = 1 << 21
)

// hwcaps derives AT_HWCAP/AT_HWCAP2 from the ID registers the way Linux
// does (arch/arm64/kernel/cpufeature.c), for the features Go checks.
func hwcaps() (uint64, uint64) {
	isar0 := cpu.ReadIDAA64ISAR0()
	pfr0 := cpu.ReadIDAA64PFR0()
	var h uint64
	field := func(r uint64, shift uint) uint64 { return (r >> shift) & 0xF }
	if field(pfr0, 16) != 0xF {
		h |= hwcapFP
	}
	if field(pfr0, 20) != 0xF {
		h |= hwcapASIMD
	}
	h |= hwcapEVTSTRM
	if a := field(isar0, 4); a >= 1 {
		h |= hwcapAES
		if a >= 2 {
			h |= hwcapPMULL
		}
	}
	if field(isar0, 8) >= 1 {
		h |= hwcapSHA1
	}
	if s := field(isar0, 12); s >= 1 {
		h |= hwcapSHA2
		if s >= 2 {
			h |= hwcapSHA512
		}
	}
	if field(isar0, 16) >= 1 {
		h |= hwcapCRC32
	}
	if field(isar0, 20) >= 2 {
		h |= hwcapATOMICS
	}
	if field(isar0, 28) >= 1 {
		h |= hwcapASIMDRDM
	}
	if field(isar0, 32) >= 1 {
		h |= hwcapSHA3
	}
	if field(isar0, 44) >= 1 {
		h |= hwcapASIMDDP
	}
	// HWCAP_CPUID is deliberately absent: it promises that EL0 reads of
	// ID registers are emulated, which gometal does not do.
	return h, 0
}
