package kernel

import (
	"gometal/kernel/usermem"
	"unsafe"

	"gometal/kernel/cpio"
	"gometal/kernel/vfs"
	"gometal/sched"

	"golang.org/x/sys/unix"
)

// File-system syscalls over the read-only initramfs and the console.

const pathMax = 4096

// cwd is the app's working directory (absolute, cleaned).
var cwd [pathMax]byte
var cwdLen = 1

func initCwd() {
	cwd[0] = '/'
	if c := readConfigFile(".gometal/cwd"); len(c) > 0 {
		if n := cleanPath(cwd[:], []byte("/"), c); n > 0 {
			cwdLen = n
		}
	}
}

// resolveAt turns (dirfd, path) into an absolute, cleaned path in dst
// with the symlinks among its directories expanded. A trailing slash asks
// for a directory, so a final symlink is followed too (POSIX 4.13).
func resolveAt(dst *[pathMax]byte, dirfd int64, upath uintptr) (int, unix.Errno) {
	var raw [pathMax]byte
	n, e := usermem.CopyInString(raw[:], upath)
	if e != 0 {
		return 0, e
	}
	if n == 0 {
		return 0, unix.ENOENT
	}
	var base []byte
	var dirBuf [pathMax]byte
	if raw[0] == '/' || dirfd == unix.AT_FDCWD {
		base = cwd[:cwdLen]
	} else {
		d, ok := getFD(uint64(dirfd))
		if !ok {
			return 0, unix.EBADF
		}
		dn, _ := dirPath(d, &dirBuf)
		if dn < 0 {
			return 0, unix.ENOTDIR
		}
		base = dirBuf[:dn]
	}
	m := cleanPath(dst[:], base, raw[:n])
	if m < 0 {
		return 0, unix.ENAMETOOLONG
	}
	return expandPath(dst, m, raw[n-1] == '/')
}

// fsRef names a node in either layer: the tmpfs (tmp >= 0) or the
// initramfs.
type fsRef struct {
	tmp int32
	nd  fsNode
}

func (r *fsRef) mode() uint32 {
	if r.tmp >= 0 {
		return tmpNodes[r.tmp].mode
	}
	return r.nd.mode
}

func (r *fsRef) isDir() bool { return r.mode()&cpio.S_IFMT == cpio.S_IFDIR }

// lookupAny finds a path in the tmpfs, then in the initramfs.
func lookupAny(path []byte) (fsRef, bool) {
	if i := tmpLookup(path); i >= 0 {
		return fsRef{tmp: i}, true
	}
	nd, ok := lookupPath(path)
	return fsRef{tmp: -1, nd: nd}, ok
}

// lookupFollow looks up an absolute path whose directories resolveAt
// has already expanded, following a final symlink if follow is set; buf
// receives the final path, which it returns.
func lookupFollow(path []byte, follow bool, buf *[pathMax]byte) (fsRef, []byte, unix.Errno) {
	n, e := expandPath(buf, copy(buf[:], path), follow)
	cur := buf[:n]
	if e != 0 {
		return fsRef{tmp: -1}, cur, e
	}
	r, ok := lookupAny(cur)
	if !ok {
		return r, cur, unix.ENOENT
	}
	return r, cur, 0
}

// expandPath replaces symlinks among the directories of buf[:n] (and the
// final component too if followFinal) by their targets, in place. It stops
// quietly at a component that does not exist: the caller's lookup or
// create decides what that means.
func expandPath(buf *[pathMax]byte, n int, followFinal bool) (int, unix.Errno) {
	for depth := 0; depth < maxSymlinks; depth++ {
		cur := buf[:n]
		expanded := false
		for i := 1; i <= len(cur); i++ {
			if i < len(cur) && cur[i] != '/' {
				continue
			}
			if i == len(cur) && !followFinal {
				break
			}
			r, ok := lookupAny(cur[:i])
			if !ok {
				return n, 0
			}
			if r.mode()&cpio.S_IFMT == cpio.S_IFLNK {
				m, e := expandLink(buf, cur[:i], linkTarget(&r), cur[i:])
				if e != 0 {
					return n, e
				}
				n, expanded = m, true
				break
			}
			if i < len(cur) && !r.isDir() {
				return n, unix.ENOTDIR // a file where a directory must be
			}
		}
		if !expanded {
			return n, 0
		}
	}
	return n, unix.ELOOP
}

// maxSymlinks bounds symlink expansions in one lookup (Linux: 40).
const maxSymlinks = 40

func linkTarget(r *fsRef) []byte {
	if r.tmp >= 0 {
		return tmpNodes[r.tmp].link[:tmpNodes[r.tmp].linkLen]
	}
	return r.nd.data
}

// expandLink writes into buf the path that replaces link (an absolute
// path whose target is target) followed by rest.
func expandLink(buf *[pathMax]byte, link, target, rest []byte) (int, unix.Errno) {
	dir := parentOf(link) // read by cleanPath before buf is overwritten
	var joined [pathMax]byte
	jn := copy(joined[:], target)
	if jn+len(rest) > len(joined) {
		return 0, unix.ENAMETOOLONG
	}
	jn += copy(joined[jn:], rest)
	var next [pathMax]byte
	m := cleanPath(next[:], dir, joined[:jn])
	if m < 0 {
		return 0, unix.ENAMETOOLONG
	}
	return copy(buf[:], next[:m]), 0
}

// openOnlyFlags act at open and are not kept in the description's
// status flags (open(2): "file creation flags"); F_GETFL does not show them.
const openOnlyFlags = unix.O_CLOEXEC | unix.O_CREAT | unix.O_EXCL | unix.O_NOCTTY | unix.O_NOFOLLOW | unix.O_DIRECTORY | unix.O_TRUNC

func sysOpenat(t *sched.Thread, f *sched.Frame) uint64 {
	var path [pathMax]byte
	n, e := resolveAt(&path, int64(f.X[0]), uintptr(f.X[1]))
	if e != 0 {
		return errno(e)
	}
	flags := uint32(f.X[2])
	var final [pathMax]byte
	r, fp, e := lookupFollow(path[:n], flags&unix.O_NOFOLLOW == 0, &final)
	created := false
	if e == unix.ENOENT && flags&unix.O_CREAT != 0 {
		if !dirExists(parentOf(fp)) {
			return errno(unix.ENOENT)
		}
		i, e := tmpCreate(fp, unix.S_IFREG|uint32(f.X[3])&0o7777&^umask)
		if e != 0 {
			return errno(e)
		}
		r, created = fsRef{tmp: i}, true
	} else if e != 0 {
		return errno(e)
	}
	if !created && flags&(unix.O_CREAT|unix.O_EXCL) == unix.O_CREAT|unix.O_EXCL {
		return errno(unix.EEXIST)
	}
	write := flags&unix.O_ACCMODE != unix.O_RDONLY
	if flags&unix.O_DIRECTORY != 0 && !r.isDir() {
		return errno(unix.ENOTDIR)
	}
	if r.mode()&cpio.S_IFMT == cpio.S_IFLNK {
		return errno(unix.ELOOP)
	}
	if r.isDir() && write {
		return errno(unix.EISDIR)
	}
	if r.tmp < 0 && r.mode()&cpio.S_IFMT == unix.S_IFCHR {
		return openCharDev(r.nd, flags)
	}
	if r.tmp < 0 && (write || flags&unix.O_TRUNC != 0) {
		return errno(unix.EROFS) // the initramfs is read-only
	}
	cloexec := flags&unix.O_CLOEXEC != 0
	if r.tmp < 0 {
		return openArchive(r.nd, flags&^openOnlyFlags, cloexec)
	}
	nd := &tmpNodes[r.tmp]
	fd := openFD(nd, flags&^openOnlyFlags, cloexec)
	if vfs.IsErr(fd) {
		return fd
	}
	nd.opens++
	if flags&unix.O_TRUNC != 0 && write && !r.isDir() {
		tmpTruncate(nd, 0)
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

func fillStat(st *unix.Stat_t, nd *fsNode) {
	st.Dev = 1
	st.Ino = uint64(nd.ino)
	st.Mode = nd.mode
	st.Rdev = uint64(nd.rdev)
	st.Nlink = nd.nlink
	if st.Nlink == 0 {
		st.Nlink = 1
	}
	st.Size = int64(len(nd.data))
	st.Blksize = 4096
	st.Blocks = (st.Size + 511) / 512
	st.Mtim.Sec = int64(nd.mtime)
	st.Atim = st.Mtim
	st.Ctim = st.Mtim
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
	var path [pathMax]byte
	n, e := resolveAt(&path, int64(f.X[0]), uintptr(f.X[1]))
	if e != 0 {
		return errno(e)
	}
	var final [pathMax]byte
	r, _, e := lookupFollow(path[:n], flags&unix.AT_SYMLINK_NOFOLLOW == 0, &final)
	if e != 0 {
		return errno(e)
	}
	if r.tmp >= 0 {
		tmpStat(&st, &tmpNodes[r.tmp])
	} else {
		fillStat(&st, &r.nd)
	}
	return putStat(uintptr(f.X[2]), &st)
}

func sysFaccessat(t *sched.Thread, f *sched.Frame) uint64 {
	var path [pathMax]byte
	n, e := resolveAt(&path, int64(f.X[0]), uintptr(f.X[1]))
	if e != 0 {
		return errno(e)
	}
	var final [pathMax]byte
	r, _, e := lookupFollow(path[:n], true, &final)
	if e != 0 {
		return errno(e)
	}
	if f.X[2]&unix.W_OK != 0 && r.tmp < 0 {
		return errno(unix.EROFS)
	}
	return 0
}

func sysReadlinkat(t *sched.Thread, f *sched.Frame) uint64 {
	var path [pathMax]byte
	n, e := resolveAt(&path, int64(f.X[0]), uintptr(f.X[1]))
	if e != 0 {
		return errno(e)
	}
	var target []byte
	if string(path[:n]) == "/proc/self/exe" {
		target = []byte("/init")
	} else {
		r, ok := lookupAny(path[:n])
		if !ok {
			return errno(unix.ENOENT)
		}
		if r.mode()&cpio.S_IFMT != cpio.S_IFLNK {
			return errno(unix.EINVAL)
		}
		target = linkTarget(&r)
	}
	if uint64(len(target)) > f.X[3] {
		target = target[:f.X[3]]
	}
	if !usermem.CopyOut(uintptr(f.X[2]), target) {
		return errno(unix.EFAULT)
	}
	return uint64(len(target))
}

// Directory positions: archive offsets for initramfs entries, then
// tmpfsPos+index for tmpfs entries, so one directory can list both layers.
const tmpfsPos = 1 << 40

func sysGetdents64(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	var dirBuf [pathMax]byte
	dn, archive := dirPath(fl, &dirBuf)
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
		dir := archiveNodes[fl.Index()].name
		for fl.Pos < tmpfsPos && !full {
			e, next, err := cpio.Next(initrd, int(fl.Pos))
			if err != cpio.OK {
				fl.Pos = tmpfsPos
				break
			}
			name := trimName(e.Name)
			if isChild(dir, name) {
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
	for !full && fl.Pos >= tmpfsPos && fl.Pos-tmpfsPos < maxTmpNodes {
		i := fl.Pos - tmpfsPos
		n := &tmpNodes[i]
		if n.used && !n.unlinked && isChildPath(dirBuf[:dn], n.name()) {
			p := n.name()
			base := p[len(parentOf(p)):]
			if len(base) > 0 && base[0] == '/' {
				base = base[1:]
			}
			if !emit(n.ino, fl.Pos+1, dirType(n.mode), base) {
				full = true
				break
			}
		}
		fl.Pos++
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
	}
	return unix.DT_UNKNOWN
}

func sysGetcwd(t *sched.Thread, f *sched.Frame) uint64 {
	if f.X[1] < uint64(cwdLen)+1 {
		return errno(unix.ERANGE)
	}
	var buf [pathMax + 1]byte
	n := copy(buf[:], cwd[:cwdLen])
	buf[n] = 0
	if !usermem.CopyOut(uintptr(f.X[0]), buf[:n+1]) {
		return errno(unix.EFAULT)
	}
	return uint64(n + 1)
}

func sysChdir(t *sched.Thread, f *sched.Frame) uint64 {
	var path [pathMax]byte
	n, e := resolveAt(&path, unix.AT_FDCWD, uintptr(f.X[0]))
	if e != 0 {
		return errno(e)
	}
	var final [pathMax]byte
	r, fp, e := lookupFollow(path[:n], true, &final)
	if e != 0 {
		return errno(e)
	}
	if !r.isDir() {
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
	n, _ := dirPath(fl, &cwd) // writes only a directory's path
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
