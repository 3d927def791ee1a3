package linux

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// execve and execveat: the calling process runs another program (Linux's
// fs/exec.c, fs/binfmt_elf.c and fs/binfmt_script.c, for static arm64
// executables and #! scripts). Everything that can fail is done before
// the process is touched: the file is found and checked, its program
// loaded into a new address space, the new stack built there from the
// old memory's arguments; a failure drops the new space and answers
// with the caller untouched. Then the point of no return: the new space
// replaces the old, the other threads leave, close-on-exec descriptors
// close, caught signals go back to SIG_DFL, the registers start afresh
// at the entry point, and a vfork parent goes on.

// Linux's limits (include/uapi/linux/binfmts.h, fs/exec.c).
const (
	binprmBufSize = 256      // BINPRM_BUF_SIZE: a #! line is read from this much
	maxArgStrlen  = 32 << 12 // MAX_ARG_STRLEN: one argument or environment string
	maxArgStrings = 0x7FFFFFFF
	execArgBudget = mm.StackSize / 4 // argv+envp strings and pointers: a quarter of RLIMIT_STACK
	// maxScriptDepth is how many #! scripts may lead to the program:
	// exec_binprm gives up with ELOOP when a sixth handler would run
	// ("4 levels of binfmt rewrites", its comment says; five scripts
	// then the ELF, as Linux 6.1 as init runs them).
	maxScriptDepth = 5
)

// The one exec in progress (under the kernel lock): the path as given,
// and each #! line's interpreter path and argument.
var (
	execPath   [fs.PathMax]byte
	execInterp [maxScriptDepth][binprmBufSize]byte
	// execWalk is where the file the exec runs was found (its directory
	// and name): /proc/self/exe's answer. execFound says it was by a
	// walk (not fexecve's descriptor).
	execWalk  fs.Walk
	execFound bool
)

func sysExecve(t *sched.Thread, f *sched.Frame) uint64 {
	return execveAt(t, f, unix.AT_FDCWD, uintptr(f.X[0]), uintptr(f.X[1]), uintptr(f.X[2]), 0)
}

func sysExecveat(t *sched.Thread, f *sched.Frame) uint64 {
	return execveAt(t, f, int64(int32(f.X[0])), uintptr(f.X[1]), uintptr(f.X[2]), uintptr(f.X[3]), f.X[4])
}

// execArgs is what the new stack's argv starts with before the caller's
// argv: for a script, its interpreter, the #! line's argument and the
// script's path (binfmt_script replaces argv[0] with these); for a
// script run as another's interpreter, that one's interpreter and
// argument in front again.
type execArgs struct {
	prefix [2*maxScriptDepth + 1][]byte
	n      int
	skip   int // the caller's argv entries left out (argv[0] for a script)
	depth  int // scripts met
}

func execveAt(t *sched.Thread, f *sched.Frame, dirfd int64, pathAddr, argv, envp uintptr, flags uint64) uint64 {
	if flags&^uint64(unix.AT_EMPTY_PATH|unix.AT_SYMLINK_NOFOLLOW) != 0 {
		return errno(unix.EINVAL)
	}
	n, e := usermem.CopyInString(execPath[:], pathAddr)
	if e != 0 {
		return errno(e)
	}
	path := execPath[:n]
	var i, mnt int32
	execFound = false
	switch {
	case n == 0 && flags&unix.AT_EMPTY_PATH != 0:
		// The descriptor's own file (fexecve).
		fl, ok := getFD(uint64(dirfd))
		if !ok {
			return errno(unix.EBADF)
		}
		in, ok := fl.Impl.(*fs.Inode)
		if !ok {
			return errno(unix.EACCES)
		}
		i = in.Index()
		mnt = fs.MountOf(fl)
	case n == 0:
		return errno(unix.ENOENT)
	default:
		wf := fs.Follow
		if flags&unix.AT_SYMLINK_NOFOLLOW != 0 {
			wf = 0
		}
		if i, e = lookupAt(&execWalk, dirfd, pathAddr, wf); e != 0 {
			return errno(e)
		}
		execFound, mnt = true, execWalk.Mnt
		if fs.Inodes[i].IsSymlink() {
			return errno(unix.ELOOP)
		}
	}
	var args execArgs
	for {
		if e := checkExecutable(i, mnt); e != 0 {
			return errno(e)
		}
		img, pages, e := programImage(i)
		if e != 0 {
			return errno(e)
		}
		if len(img) >= 2 && img[0] == '#' && img[1] == '!' {
			interp, arg, ok := parseShebang(img, &execInterp[min(args.depth, maxScriptDepth-1)])
			releaseImage(pages)
			if !ok {
				return errno(unix.ENOEXEC)
			}
			if e := scriptArgs(&args, interp, arg, path); e != 0 {
				return errno(e)
			}
			execWalk.Root = rootPath()
			if i, e = fs.Lookup(&execWalk, cwdPath(), interp, fs.Follow); e != 0 {
				return errno(e)
			}
			execFound, mnt = true, execWalk.Mnt
			continue
		}
		r := execProgram(t, f, i, mnt, img, pages == 0, &args, argv, envp, path)
		releaseImage(pages)
		return r
	}
}

// checkExecutable answers as Linux's may_open and do_open_execat do for
// a file to run: a directory or anything not a regular file is EACCES,
// and so is a file with no execute bit (for root too), or one on a
// mount mnt made noexec (path_noexec).
func checkExecutable(i, mnt int32) unix.Errno {
	n := &fs.Inodes[i]
	if n.Mode&unix.S_IFMT != unix.S_IFREG || n.Mode&0o111 == 0 || fs.Mounts[mnt].Flags&unix.MS_NOEXEC != 0 {
		return unix.EACCES
	}
	return 0
}

// programImage returns file i's bytes as one slice: the archive's own
// for a file the initramfs brought, else its page-cache frames mapped
// in order in the exec window (pages > 0: release it with releaseImage),
// each read from the store first if it is not cached, and counted while
// mapped so that nothing reclaims it; ENOMEM when there is no room,
// EIO when a backed file's store cannot be read.
func programImage(i int32) ([]byte, int, unix.Errno) {
	n := &fs.Inodes[i]
	if a := fs.ArchiveData(i); a != nil || n.Size == 0 {
		return a, 0, 0
	}
	pages := int(mm.PageUp(uintptr(n.Size)) / mm.PageSize)
	for k := 0; k < pages; k++ {
		pa, r := fs.MapPage(i, uintptr(k)*mm.PageSize)
		e := unix.Errno(0)
		switch {
		case r != mm.FaultOK:
			e = unix.EIO // a store that cannot be read (or no page for a hole)
		case !mm.Pages.Ref(pa):
			e = unix.ENOMEM
		case !kernel.MapExecFrame(k, pa):
			mm.Pages.Unref(pa)
			e = unix.ENOMEM
		}
		if e != 0 {
			releaseImage(k)
			return nil, 0, e
		}
	}
	mm.PublishWindow()
	return unsafe.Slice((*byte)(cpu.Ptr(kernel.ExecImage)), n.Size), pages, 0
}

func releaseImage(pages int) {
	if pages > 0 {
		kernel.UnmapExecImage(pages)
	}
}

// parseShebang reads a #! line as binfmt_script's load_script does,
// from the file's first 256 bytes (zeros past a shorter file): the line
// ends at a newline, or, with none, at the buffer's end if the
// interpreter's name ended before it (else the name may be cut: ENOEXEC);
// trailing blanks go; the name runs to the first blank or NUL, and the
// argument, if any, from the next non-blank to the line's end. Both are
// copied to execInterp.
func parseShebang(img []byte, into *[binprmBufSize]byte) (interp, arg []byte, ok bool) {
	at := func(j int) byte {
		if j < len(img) {
			return img[j]
		}
		return 0
	}
	blank := func(c byte) bool { return c == ' ' || c == '\t' }
	nextNonBlank := func(first, last int) int {
		for ; first <= last; first++ {
			if !blank(at(first)) {
				return first
			}
		}
		return -1
	}
	nextTerminator := func(first, last int) int {
		for ; first <= last; first++ {
			if c := at(first); blank(c) || c == 0 {
				return first
			}
		}
		return -1
	}
	bufEnd := binprmBufSize - 1
	iEnd := -1
	for j := 0; j < binprmBufSize; j++ {
		if at(j) == '\n' {
			iEnd = j
			break
		}
	}
	if iEnd < 0 {
		if iEnd = nextNonBlank(2, bufEnd); iEnd < 0 || nextTerminator(iEnd, bufEnd) < 0 {
			return nil, nil, false
		}
		iEnd = bufEnd
	}
	for iEnd > 2 && blank(at(iEnd-1)) {
		iEnd--
	}
	iName := nextNonBlank(2, iEnd)
	if iName < 0 || iName == iEnd {
		return nil, nil, false
	}
	iSep := nextTerminator(iName, iEnd)
	nameEnd := iEnd
	if iSep >= 0 {
		nameEnd = iSep
	}
	nb := copy(into[:], img[iName:min(nameEnd, len(img))])
	interp = into[:nb]
	if iSep >= 0 && at(iSep) != 0 {
		if iArg := nextNonBlank(iSep, iEnd); iArg >= 0 && iArg < iEnd {
			end := iArg
			for end < iEnd && at(end) != 0 {
				end++
			}
			na := copy(into[nb:], img[iArg:min(end, len(img))])
			arg = into[nb : nb+na]
		}
	}
	return interp, arg, true
}

// scriptArgs puts a script's interpreter, its argument and the script's
// path in front of the argv (whose argv[0] is dropped), as
// load_script does: remove_arg_zero, then push the script's path, the
// argument and the interpreter. For a script that is another script's
// interpreter, the argv's first entry is that interpreter's name, which
// load_script drops and pushes back as the script's path: so the new
// interpreter and argument go in front of what is there. Past
// maxScriptDepth scripts the answer is ELOOP.
func scriptArgs(a *execArgs, interp, arg, path []byte) unix.Errno {
	if a.depth == maxScriptDepth {
		return unix.ELOOP
	}
	a.depth++
	if a.n == 0 {
		a.prefix[0] = path
		a.n = 1
		a.skip = 1
	}
	k := 1
	if arg != nil {
		k = 2
	}
	copy(a.prefix[k:a.n+k], a.prefix[:a.n])
	a.prefix[0] = interp
	if arg != nil {
		a.prefix[1] = arg
	}
	a.n += k
	return 0
}

// execProgram loads img (file i) into a new address space with a stack
// holding args, argv and envp from the caller's memory, and if all of it
// worked, makes it t's process's program. path is the file as given
// (AT_EXECFN, comm); archived says img is the initramfs's own bytes
// (programImage made no copy).
func execProgram(t *sched.Thread, f *sched.Frame, i, mnt int32, img []byte, archived bool, args *execArgs, argv, envp uintptr, path []byte) uint64 {
	ns := mm.NewSpace(&mm.Pages)
	if ns < 0 {
		return errno(unix.ENOMEM)
	}
	s := &mm.Spaces[ns]
	drop := func() { s.Put() } // no core holds it: torn down at once
	var file imageFile
	if !archived {
		file = imageFile{Ino: i, Mnt: mnt}
	}
	pr, fail := loadProgram(s, img, archived, file)
	if fail.What != loadOK {
		drop()
		return errno(fail.errno())
	}
	s.Brk = pr.BrkBase
	sp, e := execStack(s, &pr, args, argv, envp, path)
	if e != 0 {
		drop()
		return errno(e)
	}

	// The point of no return, once t is its process's only thread (Linux's
	// de_thread): the others are sent to exit, and t waits until they
	// have, then runs the call again. Until then they could still signal
	// threads of the process or touch its descriptors, which are the new
	// program's after this.
	p := lx(t).Proc
	pp := procOf(t)
	if lx(t).Dying {
		// Another thread's execve or the group's end came first: t
		// leaves on its way out.
		drop()
		return errno(unix.EINTR)
	}
	if pp.Threads > 1 {
		drop()
		endOthers(p, t)
		sched.BlockOn(t, &lprocs[p].ThreadsGone, sched.WaitExec, childWaitEvents, 0, 0)
		return 0
	}
	old := pp.MM
	pp.MM, t.Space = ns, ns
	mm.Spaces[old].Put() // a vfork parent keeps it
	unshareFiles(p)
	closeOnExec(filesOf(t))
	resetHandlers(p)
	l := lx(t)
	l.AltSP, l.AltSize, l.AltFlags = 0, 0, 0 // no alternate stack (AltSize 0)
	l.ClearTID = 0
	l.KeepCaps = false // prctl(2): reset by execve
	pp.Execed = true
	proc.SetComm(p, path)
	l.Comm = pp.Comm
	traceProc(t)
	setExe(p, i)
	lprocs[p].ExeLen = 0
	if execFound {
		setExePath(p, &execWalk)
	}
	*f = sched.Frame{Kind: f.Kind}
	f.PC = pr.Entry
	f.SP = uint64(sp)
	procStats.Execs++
	vforkDone(p)
	return 0
}

// endOthers makes every thread of p but t (nil: none) leave: they exit
// on their way back to EL0. execve's de_thread, where the process lives
// on in t, and endGroup's, where it ends.
func endOthers(p int32, t *sched.Thread) {
	for i := range sched.Active() {
		o := &sched.Threads[i]
		if o == t || !liveIn(o, p) {
			continue
		}
		lx(o).Dying = true
		dieWake(o)
	}
}

// unshareFiles gives p a descriptor table of its own if it shares one
// (CLONE_FILES), as exec's unshare_files does, before close-on-exec.
func unshareFiles(p int32) {
	pp := &proc.Procs[p]
	if proc.FDTables[pp.Files].Refs == 1 {
		return
	}
	if n := proc.CopyFDTable(pp.Files); n >= 0 {
		proc.FDTables[pp.Files].Refs--
		pp.Files = n
	}
}

// closeOnExec closes the descriptors marked close-on-exec.
func closeOnExec(ft *proc.FDTable) {
	for fd := range ft.Slots {
		if ft.Slots[fd].File != 0 && ft.Slots[fd].Cloexec {
			closeFD(fd)
		}
	}
}

// resetHandlers gives p a handler table of its own (CLONE_SIGHAND) in
// which every caught signal is back to SIG_DFL and every flag and mask
// is cleared; ignored ones stay ignored (flush_signal_handlers).
func resetHandlers(p int32) {
	pp := &proc.Procs[p]
	if sigHands[pp.SigHand].Refs > 1 {
		if n := copySigHand(pp.SigHand); n >= 0 {
			sigHands[pp.SigHand].Refs--
			pp.SigHand = n
		}
	}
	lockSignals() // an unlocked tgkill reads the handlers
	a := &sigHands[pp.SigHand].Actions
	for sig := range a {
		h := a[sig].handler
		if h != sigIGN {
			h = sigDFL
		}
		a[sig] = sigaction{handler: h}
	}
	unlockSignals()
}

// execStack lays out the new program's stack in s: the strings (the
// prefix, then the caller's argv from its skip-th entry, then envp, read
// from the caller's memory; then the platform, the random bytes, the
// file name), the pointer arrays, argc and the auxiliary vector, as
// fs/exec.c and create_elf_tables lay them out. E2BIG past Linux's
// limits, EFAULT for a bad pointer.
func execStack(s *mm.Space, pr *program, a *execArgs, argv, envp uintptr, path []byte) (uintptr, unix.Errno) {
	top := uintptr(mm.StackTop)
	if !s.VMAs.Add(top-mm.StackSize, top, mm.ProtRead|mm.ProtWrite, mm.VMAStack) {
		return 0, unix.ENOMEM
	}
	old := usermem.Cur()
	// Count and size the caller's strings first: E2BIG before anything
	// is copied, as Linux's count() and bprm_stack_limits decide.
	argc, argBytes, e := countUserStrings(old, argv, a.skip)
	if e != 0 {
		return 0, e
	}
	envc, envBytes, e := countUserStrings(old, envp, 0)
	if e != 0 {
		return 0, e
	}
	total := argBytes + envBytes + uintptr(len(path)) + 1
	for k := 0; k < a.n; k++ {
		total += uintptr(len(a.prefix[k])) + 1
	}
	argc += a.n
	if total+uintptr(argc+envc+2)*8 > execArgBudget {
		return 0, unix.E2BIG
	}
	// Where everything goes, from the top down, before anything is
	// copied: the strings, then (16-byte aligned) the random bytes, then
	// argc, the two pointer arrays and the auxiliary vector.
	execfn := top - uintptr(len(path)) - 1
	envStart := execfn - envBytes
	userArgStart := envStart - argBytes
	var prefixAt [len(a.prefix)]uintptr
	at := userArgStart
	for k := a.n - 1; k >= 0; k-- {
		at -= uintptr(len(a.prefix[k])) + 1
		prefixAt[k] = at
	}
	const platformName = "aarch64"
	platform := at - uintptr(len(platformName)) - 1
	random := (platform - 16) &^ 15
	auxv := pr.auxv(platform, random, execfn)
	words := uintptr(1 + argc + 1 + envc + 1 + len(auxv))
	sp := (random - words*8) &^ 15
	argvAt := sp + 8
	envpAt := argvAt + uintptr(argc+1)*8

	// putString copies b and its NUL to dst in s.
	putString := func(dst uintptr, b []byte) bool {
		return usermem.CopyOutTo(s, dst, b) && usermem.CopyOutTo(s, dst+uintptr(len(b)), []byte{0})
	}
	putWord := func(dst uintptr, v uint64) bool {
		return usermem.CopyOutTo(s, dst, usermem.BytesOf(unsafe.Pointer(&v), 8))
	}
	var rnd [16]byte
	fillRandom(rnd[:])
	ok := putString(execfn, path) && putString(platform, []byte(platformName)) &&
		usermem.CopyOutTo(s, random, rnd[:]) && putWord(sp, uint64(argc))
	for k := 0; k < a.n && ok; k++ {
		ok = putString(prefixAt[k], a.prefix[k]) && putWord(argvAt+uintptr(k)*8, uint64(prefixAt[k]))
	}
	ok = ok && copyUserStrings(old, s, argv, a.skip, userArgStart, argvAt+uintptr(a.n)*8) &&
		copyUserStrings(old, s, envp, 0, envStart, envpAt)
	if !ok || !usermem.CopyOutTo(s, envpAt+uintptr(envc+1)*8, usermem.BytesOf(unsafe.Pointer(&auxv), unsafe.Sizeof(auxv))) {
		return 0, unix.EFAULT
	}
	s.ArgStart, s.ArgEnd = at, envStart
	s.EnvStart, s.EnvEnd = envStart, execfn
	return sp, 0
}

// countUserStrings counts the strings of a NULL-terminated pointer array
// at arr in space s from its skip-th, and their bytes with NULs. A NULL
// arr is an empty array (Linux accepts it, with a warning).
func countUserStrings(s *mm.Space, arr uintptr, skip int) (n int, bytes uintptr, e unix.Errno) {
	if arr == 0 {
		return 0, 0, 0
	}
	for k := 0; ; k++ {
		var p uint64
		if !usermem.CopyInFrom(s, usermem.BytesOf(unsafe.Pointer(&p), 8), arr+uintptr(k)*8) {
			return 0, 0, unix.EFAULT
		}
		if p == 0 {
			return n, bytes, 0
		}
		if k >= maxArgStrings {
			return 0, 0, unix.E2BIG
		}
		l, e := userStrlen(s, uintptr(p))
		if e != 0 {
			return 0, 0, e
		}
		if k < skip {
			continue
		}
		n++
		bytes += l + 1
		if bytes > execArgBudget {
			return 0, 0, unix.E2BIG
		}
	}
}

// userStrlen is the length of the string at addr in s: EFAULT for a bad
// address, E2BIG past MAX_ARG_STRLEN.
func userStrlen(s *mm.Space, addr uintptr) (uintptr, unix.Errno) {
	var buf [256]byte
	var n uintptr
	for {
		// A chunk up to the end of the page, so that a string ending
		// just before an unmapped page is read.
		c := min(uintptr(len(buf)), mm.PageSize-(addr+n)&mm.PageMask)
		if !usermem.CopyInFrom(s, buf[:c], addr+n) {
			return 0, unix.EFAULT
		}
		for j := uintptr(0); j < c; j++ {
			if buf[j] == 0 {
				return n + j, 0
			}
		}
		n += c
		if n >= maxArgStrlen {
			return 0, unix.E2BIG
		}
	}
}

// copyUserStrings copies the strings of the array at arr in from (from
// its skip-th) one after another to dst in to, NULs included, and each
// one's new address to the pointer array at ptrs in to, with the NULL
// that ends it.
func copyUserStrings(from, to *mm.Space, arr uintptr, skip int, dst, ptrs uintptr) bool {
	putPtr := func(v uint64) bool {
		ok := usermem.CopyOutTo(to, ptrs, usermem.BytesOf(unsafe.Pointer(&v), 8))
		ptrs += 8
		return ok
	}
	if arr == 0 {
		return putPtr(0)
	}
	var buf [256]byte
	for k := 0; ; k++ {
		var p uint64
		if !usermem.CopyInFrom(from, usermem.BytesOf(unsafe.Pointer(&p), 8), arr+uintptr(k)*8) {
			return false
		}
		if p == 0 {
			return putPtr(0)
		}
		l, e := userStrlen(from, uintptr(p))
		if e != 0 {
			return false
		}
		if k < skip {
			continue
		}
		if !putPtr(uint64(dst)) {
			return false
		}
		for off := uintptr(0); off <= l; {
			c := min(uintptr(len(buf)), l+1-off)
			if !usermem.CopyInFrom(from, buf[:c], uintptr(p)+off) || !usermem.CopyOutTo(to, dst, buf[:c]) {
				return false
			}
			off += c
			dst += c
		}
	}
}
