package kernel

import (
	"unsafe"

	"gometal/kernel/cpio"
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
	n, e := copyInString(raw[:], upath)
	if e != 0 {
		return 0, e
	}
	if n == 0 {
		return 0, unix.ENOENT
	}
	var base []byte
	var dirPath [pathMax]byte
	if raw[0] == '/' || dirfd == unix.AT_FDCWD {
		base = cwd[:cwdLen]
	} else {
		d, ok := getFD(uint64(dirfd))
		if !ok {
			return 0, unix.EBADF
		}
		switch d.kind {
		case kindDir:
			dirPath[0] = '/'
			base = dirPath[:1+copy(dirPath[1:], d.node.name)]
		case kindTmpDir:
			base = dirPath[:copy(dirPath[:], tmpNodes[d.tmp].name())]
		default:
			return 0, unix.ENOTDIR
		}
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
	fd, fl := allocFD(0)
	if fl == nil {
		return errno(unix.EMFILE)
	}
	fl.flags = flags &^ openOnlyFlags
	setCloexec(fd, flags&unix.O_CLOEXEC != 0)
	if r.tmp >= 0 {
		fl.kind = kindTmpFile
		if r.isDir() {
			fl.kind = kindTmpDir
		}
		fl.tmp = r.tmp
		tmpNodes[r.tmp].opens++
		if flags&unix.O_TRUNC != 0 && write && !r.isDir() {
			tmpTruncate(&tmpNodes[r.tmp], 0)
		}
		return uint64(fd)
	}
	fl.kind = kindFile
	if r.isDir() {
		fl.kind = kindDir
	}
	fl.node = r.nd
	return uint64(fd)
}

// umask is the app's file-creation mask.
var umask uint32 = 0o022

// readInto reads from a file into app memory at buf; off < 0 means "at the
// file position, and advance it".
func readInto(t *sched.Thread, fl *file, buf uintptr, n uint64, off int64) uint64 {
	switch fl.kind {
	case kindConsole:
		if off >= 0 {
			return errno(unix.ESPIPE)
		}
		return consoleRead(t, fl, buf, n)
	case kindMemDev:
		return memDevRead(fl, buf, n)
	case kindDir:
		return errno(unix.EISDIR)
	case kindEventfd:
		return eventfdRead(t, fl, buf, n)
	case kindTimerfd:
		return timerfdRead(t, fl, buf, n)
	case kindPipeRead:
		if off >= 0 {
			return errno(unix.ESPIPE)
		}
		return pipeRead(t, fl, buf, n)
	case kindPipeWrite:
		return errno(unix.EBADF)
	case kindSocket:
		return sockRead(t, fl, buf, n)
	case kindTmpDir:
		return errno(unix.EISDIR)
	case kindTmpFile:
		pos := off
		if off < 0 {
			pos = fl.pos
		}
		r := tmpRead(&tmpNodes[fl.tmp], buf, n, pos)
		if off < 0 && int64(r) > 0 {
			fl.pos += int64(r)
		}
		return r
	case kindFile:
		pos := off
		if off < 0 {
			pos = fl.pos
		}
		if pos >= int64(len(fl.node.data)) {
			return 0
		}
		d := fl.node.data[pos:]
		if uint64(len(d)) > n {
			d = d[:n]
		}
		if !copyOut(buf, d) {
			return errno(unix.EFAULT)
		}
		if off < 0 {
			fl.pos += int64(len(d))
		}
		return uint64(len(d))
	}
	return errno(unix.EINVAL)
}

// writeFrom writes app memory to a file.
func writeFrom(t *sched.Thread, fl *file, buf uintptr, n uint64) uint64 {
	switch fl.kind {
	case kindConsole:
		var chunk [256]byte
		done := uint64(0)
		for done < n {
			m := n - done
			if m > uint64(len(chunk)) {
				m = uint64(len(chunk))
			}
			if !copyIn(chunk[:m], buf+uintptr(done)) {
				if done > 0 {
					return done
				}
				return errno(unix.EFAULT)
			}
			putBytes(chunk[:m])
			done += m
		}
		return n
	case kindMemDev:
		return memDevWrite(fl, n)
	case kindEventfd:
		return eventfdWrite(t, fl, buf, n)
	case kindPipeWrite:
		return pipeWrite(t, fl, buf, n)
	case kindSocket:
		return sockWrite(t, fl, buf, n)
	case kindTmpFile:
		return tmpWriteAt(fl, buf, n, -1)
	case kindFile, kindDir, kindPipeRead, kindTmpDir:
		return errno(unix.EBADF)
	case kindTimerfd:
		return errno(unix.EINVAL)
	}
	return errno(unix.EINVAL)
}

// tmpWriteAt writes to a tmpfs file at off, or at the file position (or
// the end, with O_APPEND) when off < 0.
func tmpWriteAt(fl *file, buf uintptr, n uint64, off int64) uint64 {
	nd := &tmpNodes[fl.tmp]
	pos := off
	if off < 0 {
		pos = fl.pos
		if fl.flags&unix.O_APPEND != 0 {
			pos = nd.size
		}
	}
	r := tmpWrite(nd, buf, n, pos)
	if off < 0 && int64(r) > 0 {
		fl.pos = pos + int64(r)
	}
	return r
}

func sysRead(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok || fl.flags&unix.O_ACCMODE == unix.O_WRONLY {
		return errno(unix.EBADF)
	}
	return readInto(t, fl, uintptr(f.X[1]), f.X[2], -1)
}

func sysWrite(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok || fl.flags&unix.O_ACCMODE == unix.O_RDONLY && fl.kind != kindEventfd {
		return errno(unix.EBADF)
	}
	return writeFrom(t, fl, uintptr(f.X[1]), f.X[2])
}

func sysPread64(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	if int64(f.X[3]) < 0 {
		return errno(unix.EINVAL)
	}
	if fl.kind != kindFile && fl.kind != kindTmpFile {
		return errno(unix.ESPIPE)
	}
	return readInto(t, fl, uintptr(f.X[1]), f.X[2], int64(f.X[3]))
}

func sysPwrite64(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	if int64(f.X[3]) < 0 {
		return errno(unix.EINVAL)
	}
	switch fl.kind {
	case kindTmpFile:
		if fl.flags&unix.O_ACCMODE == unix.O_RDONLY {
			return errno(unix.EBADF)
		}
		return tmpWriteAt(fl, uintptr(f.X[1]), f.X[2], int64(f.X[3]))
	case kindFile, kindDir, kindTmpDir:
		return errno(unix.EBADF)
	}
	return errno(unix.ESPIPE)
}

const iovMax = 1024

// vectorIO runs read or write over an iovec array.
func vectorIO(t *sched.Thread, f *sched.Frame, write bool) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	iov, cnt := uintptr(f.X[1]), f.X[2]
	if cnt > iovMax {
		return errno(unix.EINVAL)
	}
	total := uint64(0)
	for i := uint64(0); i < cnt; i++ {
		var v [2]uint64
		if !copyIn(bytesOf(unsafe.Pointer(&v), 16), iov+uintptr(16*i)) {
			return errno(unix.EFAULT)
		}
		if v[1] == 0 {
			continue
		}
		var r uint64
		if write {
			r = writeFrom(t, fl, uintptr(v[0]), v[1])
		} else {
			r = readInto(t, fl, uintptr(v[0]), v[1], -1)
		}
		if int64(r) < 0 || t.State != sched.Running {
			if total > 0 && t.State == sched.Running {
				return total
			}
			return r
		}
		total += r
		if r < v[1] {
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
	off := int64(f.X[1])
	switch fl.kind {
	case kindFile, kindTmpFile:
		size := int64(len(fl.node.data))
		if fl.kind == kindTmpFile {
			size = tmpNodes[fl.tmp].size
		}
		var base int64
		switch f.X[2] {
		case unix.SEEK_SET:
		case unix.SEEK_CUR:
			base = fl.pos
		case unix.SEEK_END:
			base = size
		default:
			return errno(unix.EINVAL)
		}
		if base+off < 0 {
			return errno(unix.EINVAL)
		}
		fl.pos = base + off
		return uint64(fl.pos)
	case kindDir, kindTmpDir:
		if f.X[2] == unix.SEEK_SET && off == 0 {
			fl.pos = 0
			return 0
		}
		return errno(unix.EINVAL)
	}
	return errno(unix.ESPIPE)
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

func statOfFile(st *unix.Stat_t, fl *file) {
	switch fl.kind {
	case kindFile, kindDir:
		fillStat(st, &fl.node)
	case kindTmpFile, kindTmpDir:
		tmpStat(st, &tmpNodes[fl.tmp])
	case kindConsole:
		st.Mode = unix.S_IFCHR | 0o620
		st.Rdev = 5<<8 | 1 // /dev/console
		st.Nlink = 1
		st.Blksize = 1024
	case kindMemDev:
		fillStat(st, &fl.node)
	case kindSocket:
		sockStat(st)
	case kindPipeRead, kindPipeWrite:
		st.Mode = unix.S_IFIFO | 0o600
		st.Nlink = 1
		st.Blksize = 4096
	default: // anonymous inodes: eventfd, epoll
		st.Mode = 0o600
		st.Nlink = 1
	}
}

func putStat(addr uintptr, st *unix.Stat_t) uint64 {
	if !copyOut(addr, bytesOf(unsafe.Pointer(st), unsafe.Sizeof(*st))) {
		return errno(unix.EFAULT)
	}
	return 0
}

func sysFstat(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	var st unix.Stat_t
	statOfFile(&st, fl)
	return putStat(uintptr(f.X[1]), &st)
}

func sysNewfstatat(t *sched.Thread, f *sched.Frame) uint64 {
	flags := f.X[3]
	var st unix.Stat_t
	if flags&unix.AT_EMPTY_PATH != 0 {
		var first [1]byte
		if copyIn(first[:], uintptr(f.X[1])) && first[0] == 0 {
			fl, ok := getFD(f.X[0])
			if !ok {
				return errno(unix.EBADF)
			}
			statOfFile(&st, fl)
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
	if !copyOut(uintptr(f.X[2]), target) {
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
	var dirPath [pathMax]byte
	var dn int
	switch fl.kind {
	case kindDir:
		dirPath[0] = '/'
		dn = 1 + copy(dirPath[1:], fl.node.name)
	case kindTmpDir:
		dn = copy(dirPath[:], tmpNodes[fl.tmp].name())
	default:
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
		if !copyOut(buf+uintptr(written), rec[:reclen]) {
			return false
		}
		written += reclen
		return true
	}
	full := false
	if fl.kind == kindDir {
		dir := fl.node.name
		for fl.pos < tmpfsPos && !full {
			e, next, err := cpio.Next(initrd, int(fl.pos))
			if err != cpio.OK {
				fl.pos = tmpfsPos
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
			fl.pos = int64(next)
		}
	} else if fl.pos < tmpfsPos {
		fl.pos = tmpfsPos
	}
	for !full && fl.pos >= tmpfsPos && fl.pos-tmpfsPos < maxTmpNodes {
		i := fl.pos - tmpfsPos
		n := &tmpNodes[i]
		if n.used && !n.unlinked && isChildPath(dirPath[:dn], n.name()) {
			p := n.name()
			base := p[len(parentOf(p)):]
			if len(base) > 0 && base[0] == '/' {
				base = base[1:]
			}
			if !emit(n.ino, fl.pos+1, dirType(n.mode), base) {
				full = true
				break
			}
		}
		fl.pos++
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
	if !copyOut(uintptr(f.X[0]), buf[:n+1]) {
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
	switch fl.kind {
	case kindDir:
		cwd[0] = '/'
		cwdLen = 1 + copy(cwd[1:], fl.node.name)
	case kindTmpDir:
		cwdLen = copy(cwd[:], tmpNodes[fl.tmp].name())
	default:
		return errno(unix.ENOTDIR)
	}
	return 0
}

// ioctl: the console answers the terminal queries Go and its tests make.
func sysIoctl(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	if fl.kind != kindConsole {
		return errno(unix.ENOTTY)
	}
	switch f.X[1] {
	case unix.TCGETS:
		var tio unix.Termios
		tio.Iflag = unix.ICRNL
		tio.Oflag = unix.OPOST | unix.ONLCR
		tio.Cflag = unix.CS8 | unix.CREAD | unix.B115200
		tio.Lflag = unix.ISIG
		if !copyOut(uintptr(f.X[2]), bytesOf(unsafe.Pointer(&tio), unsafe.Sizeof(tio))) {
			return errno(unix.EFAULT)
		}
		return 0
	case unix.TIOCGWINSZ:
		ws := unix.Winsize{Row: 24, Col: 80}
		if !copyOut(uintptr(f.X[2]), bytesOf(unsafe.Pointer(&ws), unsafe.Sizeof(ws))) {
			return errno(unix.EFAULT)
		}
		return 0
	case unix.TCSETS, unix.TCSETSW, unix.TCSETSF:
		return 0
	}
	return errno(unix.ENOTTY)
}
