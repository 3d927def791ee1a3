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

// resolveAt turns (dirfd, path) into an absolute path in dst.
func resolveAt(dst []byte, dirfd int64, upath uintptr) (int, unix.Errno) {
	var raw [pathMax]byte
	n, e := copyInString(raw[:], upath)
	if e != 0 {
		return 0, e
	}
	base := cwd[:cwdLen]
	if n > 0 && raw[0] != '/' && dirfd != unix.AT_FDCWD {
		d, ok := getFD(uint64(dirfd))
		if !ok {
			return 0, unix.EBADF
		}
		if d.kind != kindDir {
			return 0, unix.ENOTDIR
		}
		var dirPath [pathMax]byte
		dirPath[0] = '/'
		dn := 1 + copy(dirPath[1:], d.node.name)
		m := cleanPath(dst, dirPath[:dn], raw[:n])
		if m < 0 {
			return 0, unix.ENAMETOOLONG
		}
		return m, 0
	}
	m := cleanPath(dst, base, raw[:n])
	if m < 0 {
		return 0, unix.ENAMETOOLONG
	}
	return m, 0
}

// lookupFollow looks a path up, following a final symlink.
func lookupFollow(path []byte, follow bool) (fsNode, unix.Errno) {
	var buf [pathMax]byte
	for depth := 0; depth < 8; depth++ {
		nd, ok := lookupPath(path)
		if !ok {
			return nd, unix.ENOENT
		}
		if !follow || nd.mode&cpio.S_IFMT != cpio.S_IFLNK {
			return nd, 0
		}
		// Resolve the target relative to the link's directory.
		var dir [pathMax]byte
		dn := copy(dir[:], path)
		for dn > 1 && dir[dn-1] != '/' {
			dn--
		}
		m := cleanPath(buf[:], dir[:dn], nd.data)
		if m < 0 {
			return nd, unix.ENAMETOOLONG
		}
		path = buf[:m]
	}
	return fsNode{}, unix.ELOOP
}

func sysOpenat(t *sched.Thread, f *sched.Frame) uint64 {
	var path [pathMax]byte
	n, e := resolveAt(path[:], int64(f.X[0]), uintptr(f.X[1]))
	if e != 0 {
		return errno(e)
	}
	flags := uint32(f.X[2])
	if string(path[:n]) == "/dev/null" {
		fd, fl := allocFD(0)
		if fl == nil {
			return errno(unix.EMFILE)
		}
		fl.kind = kindNull
		fl.flags = flags &^ unix.O_CLOEXEC
		fl.cloexec = flags&unix.O_CLOEXEC != 0
		return uint64(fd)
	}
	nd, e := lookupFollow(path[:n], flags&unix.O_NOFOLLOW == 0)
	if e != 0 {
		if e == unix.ENOENT && flags&unix.O_CREAT != 0 {
			return errno(unix.EROFS)
		}
		return errno(e)
	}
	if flags&(unix.O_CREAT|unix.O_EXCL) == unix.O_CREAT|unix.O_EXCL {
		return errno(unix.EEXIST)
	}
	if flags&unix.O_ACCMODE != unix.O_RDONLY || flags&unix.O_TRUNC != 0 {
		return errno(unix.EROFS)
	}
	isDir := nd.mode&cpio.S_IFMT == cpio.S_IFDIR
	if flags&unix.O_DIRECTORY != 0 && !isDir {
		return errno(unix.ENOTDIR)
	}
	if nd.mode&cpio.S_IFMT == cpio.S_IFLNK {
		return errno(unix.ELOOP)
	}
	fd, fl := allocFD(0)
	if fl == nil {
		return errno(unix.EMFILE)
	}
	fl.kind = kindFile
	if isDir {
		fl.kind = kindDir
	}
	fl.node = nd
	fl.flags = flags &^ (unix.O_CLOEXEC | unix.O_CREAT | unix.O_EXCL | unix.O_NOCTTY | unix.O_NOFOLLOW | unix.O_DIRECTORY)
	fl.cloexec = flags&unix.O_CLOEXEC != 0
	return uint64(fd)
}

// readInto reads from a file into app memory at buf; off < 0 means "at the
// file position, and advance it".
func readInto(t *sched.Thread, fl *file, buf uintptr, n uint64, off int64) uint64 {
	switch fl.kind {
	case kindConsole:
		if off >= 0 {
			return errno(unix.ESPIPE)
		}
		return consoleRead(t, fl, buf, n)
	case kindNull:
		return 0
	case kindDir:
		return errno(unix.EISDIR)
	case kindEventfd:
		return eventfdRead(t, fl, buf, n)
	case kindPipeRead:
		if off >= 0 {
			return errno(unix.ESPIPE)
		}
		return pipeRead(t, fl, buf, n)
	case kindPipeWrite:
		return errno(unix.EBADF)
	case kindSocket:
		return sockRead(t, fl, buf, n)
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
	case kindNull:
		return n
	case kindEventfd:
		return eventfdWrite(t, fl, buf, n)
	case kindPipeWrite:
		return pipeWrite(t, fl, buf, n)
	case kindSocket:
		return sockWrite(t, fl, buf, n)
	case kindFile, kindDir, kindPipeRead:
		return errno(unix.EBADF)
	}
	return errno(unix.EINVAL)
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
	if fl.kind != kindFile {
		return errno(unix.ESPIPE)
	}
	return readInto(t, fl, uintptr(f.X[1]), f.X[2], int64(f.X[3]))
}

func sysPwrite64(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	if fl.kind == kindFile {
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
	case kindFile:
		var base int64
		switch f.X[2] {
		case unix.SEEK_SET:
		case unix.SEEK_CUR:
			base = fl.pos
		case unix.SEEK_END:
			base = int64(len(fl.node.data))
		default:
			return errno(unix.EINVAL)
		}
		if base+off < 0 {
			return errno(unix.EINVAL)
		}
		fl.pos = base + off
		return uint64(fl.pos)
	case kindDir:
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
	case kindConsole:
		st.Mode = unix.S_IFCHR | 0o620
		st.Rdev = 5<<8 | 1 // /dev/console
		st.Nlink = 1
		st.Blksize = 1024
	case kindNull:
		st.Mode = unix.S_IFCHR | 0o666
		st.Rdev = 1<<8 | 3
		st.Nlink = 1
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
	n, e := resolveAt(path[:], int64(f.X[0]), uintptr(f.X[1]))
	if e != 0 {
		return errno(e)
	}
	nd, e := lookupFollow(path[:n], flags&unix.AT_SYMLINK_NOFOLLOW == 0)
	if e != 0 {
		return errno(e)
	}
	fillStat(&st, &nd)
	return putStat(uintptr(f.X[2]), &st)
}

func sysFaccessat(t *sched.Thread, f *sched.Frame) uint64 {
	var path [pathMax]byte
	n, e := resolveAt(path[:], int64(f.X[0]), uintptr(f.X[1]))
	if e != 0 {
		return errno(e)
	}
	if _, e := lookupFollow(path[:n], true); e != 0 {
		return errno(e)
	}
	if f.X[2]&unix.W_OK != 0 {
		return errno(unix.EROFS)
	}
	return 0
}

func sysReadlinkat(t *sched.Thread, f *sched.Frame) uint64 {
	var path [pathMax]byte
	n, e := resolveAt(path[:], int64(f.X[0]), uintptr(f.X[1]))
	if e != 0 {
		return errno(e)
	}
	var target []byte
	if string(path[:n]) == "/proc/self/exe" {
		target = []byte("/init")
	} else {
		nd, ok := lookupPath(path[:n])
		if !ok {
			return errno(unix.ENOENT)
		}
		if nd.mode&cpio.S_IFMT != cpio.S_IFLNK {
			return errno(unix.EINVAL)
		}
		target = nd.data
	}
	if uint64(len(target)) > f.X[3] {
		target = target[:f.X[3]]
	}
	if !copyOut(uintptr(f.X[2]), target) {
		return errno(unix.EFAULT)
	}
	return uint64(len(target))
}

func sysGetdents64(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	if fl.kind != kindDir {
		return errno(unix.ENOTDIR)
	}
	buf, size := uintptr(f.X[1]), f.X[2]
	written := uint64(0)
	dir := fl.node.name
	for {
		off := int(fl.pos)
		e, next, err := cpio.Next(initrd, off)
		if err != cpio.OK {
			break
		}
		name := trimName(e.Name)
		if !isChild(dir, name) {
			fl.pos = int64(next)
			continue
		}
		base := name[len(dir):]
		if len(dir) > 0 {
			base = base[1:]
		}
		// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
		reclen := (19 + uint64(len(base)) + 1 + 7) &^ 7
		if written+reclen > size {
			if written == 0 {
				return errno(unix.EINVAL)
			}
			break
		}
		var rec [19 + 256 + 8]byte
		if len(base) > 255 {
			base = base[:255]
		}
		put64(rec[:], 0, uint64(e.Ino)+3)
		put64(rec[:], 8, uint64(next))
		rec[16] = byte(reclen)
		rec[17] = byte(reclen >> 8)
		rec[18] = dirType(e.Mode)
		copy(rec[19:], base)
		if !copyOut(buf+uintptr(written), rec[:reclen]) {
			return errno(unix.EFAULT)
		}
		written += reclen
		fl.pos = int64(next)
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
	n, e := resolveAt(path[:], unix.AT_FDCWD, uintptr(f.X[0]))
	if e != 0 {
		return errno(e)
	}
	nd, e := lookupFollow(path[:n], true)
	if e != 0 {
		return errno(e)
	}
	if nd.mode&cpio.S_IFMT != cpio.S_IFDIR {
		return errno(unix.ENOTDIR)
	}
	cwdLen = copy(cwd[:], path[:n])
	return 0
}

func sysFchdir(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	if fl.kind != kindDir {
		return errno(unix.ENOTDIR)
	}
	cwd[0] = '/'
	cwdLen = 1 + copy(cwd[1:], fl.node.name)
	return 0
}

func sysReadOnlyFS(t *sched.Thread, f *sched.Frame) uint64 { return errno(unix.EROFS) }

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
