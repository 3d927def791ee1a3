package linux

import (
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/usermem"
	"unsafe"

	"github.com/gometal/gometal/kernel/cpio"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// File-system syscalls over the read-only initramfs and the console.

// cwd is the app's working directory (absolute, cleaned).
var cwd [fs.PathMax]byte
var cwdLen = 1

func initCwd() {
	cwd[0] = '/'
	if c := fs.ConfigFile(".gometal/cwd"); len(c) > 0 {
		if n := fs.CleanPath(cwd[:], []byte("/"), c); n > 0 {
			cwdLen = n
		}
	}
}

// resolveAt turns (dirfd, path) into the absolute path it names in dst,
// walked by fs.Resolve with the symlinks among its directories expanded
// and a final one left as it is, and says how the path ended (a trailing
// slash, "." or "..": fs.Tail).
func resolveAt(dst *[fs.PathMax]byte, dirfd int64, upath uintptr) (int, fs.Tail, unix.Errno) {
	var raw [fs.PathMax]byte
	n, e := usermem.CopyInString(raw[:], upath)
	if e != 0 {
		return 0, 0, e
	}
	if n == 0 {
		return 0, 0, unix.ENOENT
	}
	var base []byte
	var dirBuf [fs.PathMax]byte
	if raw[0] == '/' || dirfd == unix.AT_FDCWD {
		base = cwd[:cwdLen]
	} else {
		d, ok := getFD(uint64(dirfd))
		if !ok {
			return 0, 0, unix.EBADF
		}
		dn, _ := fs.DirPath(d, &dirBuf)
		if dn < 0 {
			return 0, 0, unix.ENOTDIR
		}
		base = dirBuf[:dn]
	}
	return fs.Resolve(dst, base, raw[:n], false)
}

// lookupAt looks up a path resolveAt walked, following a final symlink
// if follow is set or a slash followed it (POSIX 4.13); after a slash (in
// the path or at the end of a symlink it followed) it must be a
// directory, which it reports in dir.
func lookupAt(path []byte, tail fs.Tail, follow bool, buf *[fs.PathMax]byte) (r fs.Ref, fp []byte, dir bool, e unix.Errno) {
	r, fp, ftail, e := fs.LookupFollow(path, follow || tail&fs.TailDir != 0, buf)
	dir = (tail|ftail)&fs.TailDir != 0
	if e == 0 && dir && !r.IsDir() {
		return r, fp, dir, unix.ENOTDIR
	}
	return r, fp, dir, e
}

// openOnlyFlags act at open and are not kept in the description's
// status flags (open(2): "file creation flags"); F_GETFL does not show them.
const openOnlyFlags = unix.O_CLOEXEC | unix.O_CREAT | unix.O_EXCL | unix.O_NOCTTY | unix.O_NOFOLLOW | unix.O_DIRECTORY | unix.O_TRUNC

// openNode makes a description for impl that keeps initramfs node nd
// (fs.Nodes) and gives it the lowest free descriptor.
func openNode(impl vfs.Impl, nd fs.Node, flags uint32, cloexec bool) uint64 {
	fd := freeFD(0)
	if fd < 0 {
		return errno(unix.EMFILE)
	}
	setFD(fd, fs.OpenNode(impl, nd, flags), cloexec)
	return uint64(fd)
}

func sysOpenat(t *sched.Thread, f *sched.Frame) uint64 {
	r := openat(t, f)
	if t.State != sched.Blocked {
		dropFIFOWait(t) // the open ended another way than opening the FIFO
	}
	return r
}

func openat(t *sched.Thread, f *sched.Frame) uint64 {
	var path [fs.PathMax]byte
	n, tail, e := resolveAt(&path, int64(f.X[0]), uintptr(f.X[1]))
	if e != 0 {
		return errno(e)
	}
	flags := uint32(f.X[2])
	if flags&unix.O_CREAT != 0 && tail != 0 {
		return errno(unix.EISDIR) // O_CREAT names a file: "x/" is a directory (open(2))
	}
	var final [fs.PathMax]byte
	// O_CREAT|O_EXCL never follows a final symlink: the name must be new
	// (open(2)), so a dangling symlink is EEXIST, not a file created at
	// its target.
	excl := flags&(unix.O_CREAT|unix.O_EXCL) == unix.O_CREAT|unix.O_EXCL
	r, fp, dir, e := lookupAt(path[:n], tail, flags&unix.O_NOFOLLOW == 0 && !excl, &final)
	created := false
	if e == unix.ENOENT && flags&unix.O_CREAT != 0 {
		if dir {
			return errno(unix.EISDIR) // through a symlink to "x/"
		}
		if !fs.DirExists(fs.ParentOf(fp)) {
			return errno(unix.ENOENT)
		}
		i, e := fs.TmpCreate(fp, unix.S_IFREG|uint32(f.X[3])&0o7777&^umask)
		if e != 0 {
			return errno(e)
		}
		r, created = fs.Ref{Tmp: i}, true
	} else if e != 0 {
		return errno(e)
	}
	if !created && excl {
		return errno(unix.EEXIST)
	}
	write := flags&unix.O_ACCMODE != unix.O_RDONLY
	if flags&unix.O_DIRECTORY != 0 && !r.IsDir() {
		return errno(unix.ENOTDIR)
	}
	if r.Mode()&cpio.S_IFMT == cpio.S_IFLNK {
		return errno(unix.ELOOP)
	}
	if r.IsDir() && write {
		return errno(unix.EISDIR)
	}
	if r.Tmp < 0 && r.Mode()&cpio.S_IFMT == unix.S_IFCHR {
		return openCharDev(r.Nd, flags)
	}
	if r.Tmp < 0 && (write || flags&unix.O_TRUNC != 0) {
		return errno(unix.EROFS) // the initramfs is read-only
	}
	cloexec := flags&unix.O_CLOEXEC != 0
	if r.Tmp < 0 {
		return openNode(fs.ArchiveImpl(&r.Nd), r.Nd, flags&^openOnlyFlags, cloexec)
	}
	nd := &fs.TmpNodes[r.Tmp]
	if nd.IsFIFO() {
		return openFIFO(t, nd, flags&^openOnlyFlags, cloexec)
	}
	if nd.Mode&unix.S_IFMT == unix.S_IFSOCK {
		return errno(unix.ENXIO) // a socket file is connected to, not opened (open(2))
	}
	fd := openFD(nd, flags&^openOnlyFlags, cloexec)
	if vfs.IsErr(fd) {
		return fd
	}
	nd.Opens++
	if flags&unix.O_TRUNC != 0 && write && !r.IsDir() {
		fs.TmpTruncate(nd, 0)
	}
	return fd
}

// umask is the app's file-creation mask.
var umask uint32 = 0o022

func sysRead(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok || !fl.Readable() {
		return errno(unix.EBADF)
	}
	return vfs.Read(t, fl, uintptr(f.X[1]), f.X[2], -1)
}

func sysWrite(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok || !fl.Writable() {
		return errno(unix.EBADF)
	}
	return writeFile(t, fl, uintptr(f.X[1]), f.X[2], -1)
}

// writeFile is vfs.Write, plus the SIGPIPE Linux sends with EPIPE
// (pipe(7), send(2) without MSG_NOSIGNAL).
func writeFile(t *sched.Thread, fl *vfs.File, buf uintptr, n uint64, off int64) uint64 {
	r := vfs.Write(t, fl, buf, n, off)
	if r == errno(unix.EPIPE) {
		postSignal(t, sigPIPE, userInfo(siUSER))
	}
	return r
}

// positional checks pread/pwrite's arguments: a non-negative offset, on
// an object with a position (ESPIPE for pipes, sockets, the console).
func positional(fl *vfs.File, off uint64) uint64 {
	if int64(off) < 0 {
		return errno(unix.EINVAL)
	}
	if fl.Impl.Seek(fl, 0, unix.SEEK_CUR) == errno(unix.ESPIPE) {
		return errno(unix.ESPIPE)
	}
	return 0
}

func sysPread64(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok || !fl.Readable() {
		return errno(unix.EBADF)
	}
	if e := positional(fl, f.X[3]); e != 0 {
		return e
	}
	return vfs.Read(t, fl, uintptr(f.X[1]), f.X[2], int64(f.X[3]))
}

func sysPwrite64(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok || !fl.Writable() {
		return errno(unix.EBADF)
	}
	if e := positional(fl, f.X[3]); e != 0 {
		return e
	}
	return writeFile(t, fl, uintptr(f.X[1]), f.X[2], int64(f.X[3]))
}

const iovMax = 1024

// vectorIO runs read or write over an iovec array, as one call: a read
// stops at the first short segment; a blocking write waits (vfs.Write)
// in whichever segment fills the object, and its next run skips the
// bytes already written (t.Progress counts across segments).
func vectorIO(t *sched.Thread, f *sched.Frame, write bool) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok || write && !fl.Writable() || !write && !fl.Readable() {
		return errno(unix.EBADF)
	}
	iov, cnt := uintptr(f.X[1]), f.X[2]
	if cnt > iovMax {
		return errno(unix.EINVAL)
	}
	skip := uint64(0)
	if t.Retried {
		skip = t.Progress
	}
	total := uint64(0)
	for i := uint64(0); i < cnt; i++ {
		var v [2]uint64
		if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&v), 16), iov+uintptr(16*i)) {
			return errno(unix.EFAULT)
		}
		if skip >= v[1] {
			// Written by an earlier run of this call.
			skip -= v[1]
			total += v[1]
			continue
		}
		base, n := uintptr(v[0]+skip), v[1]-skip
		total += skip
		skip = 0
		var r uint64
		switch {
		case write:
			// vfs.Write starts this segment afresh; what earlier runs
			// wrote is skipped above.
			t.Retried, t.Progress = false, 0
			r = writeFile(t, fl, base, n, -1)
		case total > 0:
			// A read that has bytes returns them rather than wait.
			if r = fl.Impl.Read(fl, base, n, -1); r == errno(unix.EAGAIN) {
				return total
			}
		default:
			r = vfs.Read(t, fl, base, n, -1)
		}
		if t.State != sched.Running {
			// Blocked: the next run skips everything moved so far
			// (vfs.Write left this segment's part in t.Progress).
			t.Progress += total
			return 0
		}
		if vfs.IsErr(r) {
			if total > 0 {
				return total
			}
			return r
		}
		total += r
		if r < n {
			break
		}
	}
	return total
}

func sysReadv(t *sched.Thread, f *sched.Frame) uint64  { return vectorIO(t, f, false) }
func sysWritev(t *sched.Thread, f *sched.Frame) uint64 { return vectorIO(t, f, true) }

func sysLseek(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	return fl.Impl.Seek(fl, int64(f.X[1]), int(f.X[2]))
}

func putStat(addr uintptr, st *unix.Stat_t) uint64 {
	if !usermem.CopyOut(addr, usermem.BytesOf(unsafe.Pointer(st), unsafe.Sizeof(*st))) {
		return errno(unix.EFAULT)
	}
	return 0
}

func sysFstat(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	st := fl.Impl.Stat(fl)
	return putStat(uintptr(f.X[1]), &st)
}

func sysNewfstatat(t *sched.Thread, f *sched.Frame) uint64 {
	flags := f.X[3]
	var st unix.Stat_t
	if flags&unix.AT_EMPTY_PATH != 0 {
		var first [1]byte
		if usermem.CopyIn(first[:], uintptr(f.X[1])) && first[0] == 0 {
			fl, ok := getFD(f.X[0])
			if !ok {
				return errno(unix.EBADF)
			}
			st = fl.Impl.Stat(fl)
			return putStat(uintptr(f.X[2]), &st)
		}
	}
	var path [fs.PathMax]byte
	n, tail, e := resolveAt(&path, int64(f.X[0]), uintptr(f.X[1]))
	if e != 0 {
		return errno(e)
	}
	var final [fs.PathMax]byte
	r, _, _, e := lookupAt(path[:n], tail, flags&unix.AT_SYMLINK_NOFOLLOW == 0, &final)
	if e != 0 {
		return errno(e)
	}
	if r.Tmp >= 0 {
		fs.TmpStat(&st, &fs.TmpNodes[r.Tmp])
	} else {
		fs.FillStat(&st, &r.Nd)
	}
	return putStat(uintptr(f.X[2]), &st)
}

func sysFaccessat(t *sched.Thread, f *sched.Frame) uint64 {
	var path [fs.PathMax]byte
	n, tail, e := resolveAt(&path, int64(f.X[0]), uintptr(f.X[1]))
	if e != 0 {
		return errno(e)
	}
	var final [fs.PathMax]byte
	r, _, _, e := lookupAt(path[:n], tail, true, &final)
	if e != 0 {
		return errno(e)
	}
	if f.X[2]&unix.W_OK != 0 && r.Tmp < 0 {
		return errno(unix.EROFS)
	}
	return 0
}

func sysReadlinkat(t *sched.Thread, f *sched.Frame) uint64 {
	var target []byte
	if procSelfExe(uintptr(f.X[1])) {
		target = []byte("/init") // os.Executable asks; there is no /proc
	} else {
		var path, final [fs.PathMax]byte
		n, tail, e := resolveAt(&path, int64(f.X[0]), uintptr(f.X[1]))
		if e != 0 {
			return errno(e)
		}
		// A trailing slash follows the link: then it names no symlink.
		r, _, _, e := lookupAt(path[:n], tail, false, &final)
		if e != 0 {
			return errno(e)
		}
		if r.Mode()&cpio.S_IFMT != cpio.S_IFLNK {
			return errno(unix.EINVAL)
		}
		target = fs.LinkTarget(&r)
	}
	if uint64(len(target)) > f.X[3] {
		target = target[:f.X[3]]
	}
	if !usermem.CopyOut(uintptr(f.X[2]), target) {
		return errno(unix.EFAULT)
	}
	return uint64(len(target))
}

// procSelfExe reports whether the app's path at addr is /proc/self/exe.
func procSelfExe(addr uintptr) bool {
	var b [len("/proc/self/exe") + 1]byte
	n, e := usermem.CopyInString(b[:], addr)
	return e == 0 && string(b[:n]) == "/proc/self/exe"
}

// Directory positions: archive offsets for initramfs entries, then
// tmpfsPos+index for tmpfs entries, so one directory can list both layers.
const tmpfsPos = 1 << 40

func sysGetdents64(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	var dirBuf [fs.PathMax]byte
	dn, archive := fs.DirPath(fl, &dirBuf)
	if dn < 0 {
		return errno(unix.ENOTDIR)
	}
	buf, size := uintptr(f.X[1]), f.X[2]
	written := uint64(0)
	emit := func(ino uint64, next int64, typ byte, name []byte) bool {
		// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
		if len(name) > 255 {
			name = name[:255]
		}
		reclen := (19 + uint64(len(name)) + 1 + 7) &^ 7
		if written+reclen > size {
			return false
		}
		var rec [19 + 256 + 8]byte
		put64(rec[:], 0, ino)
		put64(rec[:], 8, uint64(next))
		rec[16] = byte(reclen)
		rec[17] = byte(reclen >> 8)
		rec[18] = typ
		copy(rec[19:], name)
		if !usermem.CopyOut(buf+uintptr(written), rec[:reclen]) {
			return false
		}
		written += reclen
		return true
	}
	full := false
	if archive {
		dir := fs.Nodes[fl.Index()].Name
		for fl.Pos < tmpfsPos && !full {
			e, next, err := cpio.Next(fs.Archive, int(fl.Pos))
			if err != cpio.OK {
				fl.Pos = tmpfsPos
				break
			}
			name := fs.TrimName(e.Name)
			if fs.IsChild(dir, name) {
				base := name[len(dir):]
				if len(dir) > 0 {
					base = base[1:]
				}
				if !emit(uint64(e.Ino)+3, int64(next), dirType(e.Mode), base) {
					full = true
					break
				}
			}
			fl.Pos = int64(next)
		}
	} else if fl.Pos < tmpfsPos {
		fl.Pos = tmpfsPos
	}
	for !full && fl.Pos >= tmpfsPos {
		k, base, n := fs.TmpChild(dirBuf[:dn], int(fl.Pos-tmpfsPos))
		if k < 0 {
			fl.Pos = tmpfsPos + fs.MaxTmpNames
			break
		}
		if !emit(n.Ino, tmpfsPos+int64(k)+1, dirType(n.Mode), base) {
			full = true
			break
		}
		fl.Pos = tmpfsPos + int64(k) + 1
	}
	if full && written == 0 {
		return errno(unix.EINVAL)
	}
	return written
}

func dirType(mode uint32) byte {
	switch mode & cpio.S_IFMT {
	case cpio.S_IFDIR:
		return unix.DT_DIR
	case cpio.S_IFLNK:
		return unix.DT_LNK
	case cpio.S_IFREG:
		return unix.DT_REG
	case unix.S_IFIFO:
		return unix.DT_FIFO
	case unix.S_IFSOCK:
		return unix.DT_SOCK
	}
	return unix.DT_UNKNOWN
}

func sysGetcwd(t *sched.Thread, f *sched.Frame) uint64 {
	if f.X[1] < uint64(cwdLen)+1 {
		return errno(unix.ERANGE)
	}
	var buf [fs.PathMax + 1]byte
	n := copy(buf[:], cwd[:cwdLen])
	buf[n] = 0
	if !usermem.CopyOut(uintptr(f.X[0]), buf[:n+1]) {
		return errno(unix.EFAULT)
	}
	return uint64(n + 1)
}

func sysChdir(t *sched.Thread, f *sched.Frame) uint64 {
	var path [fs.PathMax]byte
	n, tail, e := resolveAt(&path, unix.AT_FDCWD, uintptr(f.X[0]))
	if e != 0 {
		return errno(e)
	}
	var final [fs.PathMax]byte
	r, fp, _, e := lookupAt(path[:n], tail, true, &final)
	if e != 0 {
		return errno(e)
	}
	if !r.IsDir() {
		return errno(unix.ENOTDIR)
	}
	cwdLen = copy(cwd[:], fp)
	return 0
}

func sysFchdir(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	n, _ := fs.DirPath(fl, &cwd) // writes only a directory's path
	if n < 0 {
		return errno(unix.ENOTDIR)
	}
	cwdLen = n
	return 0
}

// ioctl: the object answers (the console: terminal requests), or
// ENOTTY.
func sysIoctl(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	return fl.Impl.Ioctl(fl, f.X[1], uintptr(f.X[2]))
}
