package linux

import (
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/socket"
	"github.com/gometal/gometal/kernel/tty"
	"github.com/gometal/gometal/kernel/usermem"
	"unsafe"

	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// File-system syscalls over kernel/fs and the console.

// cwd is the app's working directory: an inode, held (fs.Hold) so that
// it lives on if removed, as Linux's cwd holds its dentry; a path may
// reach it that is longer than PATH_MAX.
// fsCtx is the calling process's file-system context: its working
// directory and umask (proc.FSContext, Linux's current->fs).
func fsCtx() *proc.FSContext { return &proc.FSContexts[procOf(current()).FS] }

// initCwd starts the app where the CLI's /.gometal/cwd says (gometal
// exec: the package's directory, as go test runs a test binary there).
func initCwd() {
	cwd, mnt := int32(fs.RootIno), int32(fs.RootMount)
	if c := fs.ConfigFile(".gometal/cwd"); len(c) > 0 {
		var w fs.Walk
		if i, e := fs.Lookup(&w, fs.RootPath(), c, fs.Follow); e == 0 && fs.Inodes[i].IsDir() {
			cwd, mnt = i, w.Mnt // inside a mount made at boot (a share) too
		} else if kernel.Info("the working directory in /.gometal/cwd is not a directory; starting in /") {
			kernel.InfoEnd()
		}
	}
	fs.Hold(cwd)
	fs.UseMount(mnt)
	fsCtx().Cwd, fsCtx().CwdMnt = cwd, mnt
}

// cwdPath is the working directory as a place in the mount tree.
func cwdPath() fs.Path { c := fsCtx(); return fs.Path{Mnt: c.CwdMnt, Ino: c.Cwd} }

// rootPath is the process's root (chroot), the tree's when it has none.
func rootPath() fs.Path { return rootOf(fsCtx()) }

func rootOf(c *proc.FSContext) fs.Path {
	if c.Root == 0 {
		return fs.RootPath()
	}
	return fs.Path{Mnt: c.RootMnt, Ino: c.Root}
}

// holdCwd and dropCwd count context c's working directory (and root,
// after a chroot) as users of their inodes and mounts (a busy mount
// cannot be unmounted).
func holdCwd(c *proc.FSContext) {
	fs.Hold(c.Cwd)
	fs.UseMount(c.CwdMnt)
	if c.Root != 0 {
		fs.Hold(c.Root)
		fs.UseMount(c.RootMnt)
	}
}

func dropCwd(c *proc.FSContext) {
	fs.UnuseMount(c.CwdMnt)
	fs.Drop(c.Cwd)
	if c.Root != 0 {
		fs.UnuseMount(c.RootMnt)
		fs.Drop(c.Root)
	}
}

// resolveAt walks (dirfd, path) as fs.Resolve walks (flags say how the
// last component is treated) and records where it ended in w.
func resolveAt(w *fs.Walk, dirfd int64, upath uintptr, flags fs.WalkFlags) unix.Errno {
	var raw [fs.PathMax]byte
	n, e := usermem.CopyInString(raw[:], upath)
	if e != 0 {
		return e
	}
	if n == 0 {
		return unix.ENOENT
	}
	base := cwdPath()
	if raw[0] != '/' && dirfd != unix.AT_FDCWD {
		d, ok := getFD(uint64(dirfd))
		if !ok {
			return unix.EBADF
		}
		if base.Ino = fs.DirOf(d); base.Ino < 0 {
			return unix.ENOTDIR
		}
		base.Mnt = fs.MountOf(d)
	}
	w.Root = rootPath()
	return fs.Resolve(w, base, raw[:n], flags)
}

// lookupAt walks (dirfd, path) to an inode that must exist (and be a
// directory if a slash followed it): fs.Lookup over a user path.
func lookupAt(w *fs.Walk, dirfd int64, upath uintptr, flags fs.WalkFlags) (int32, unix.Errno) {
	if e := resolveAt(w, dirfd, upath, flags&^fs.ForCreate); e != 0 {
		return -1, e
	}
	return w.Found()
}

// openOnlyFlags act at open and are not kept in the description's
// status flags (open(2): "file creation flags"); F_GETFL does not show them.
const openOnlyFlags = unix.O_CLOEXEC | unix.O_CREAT | unix.O_EXCL | unix.O_NOCTTY | unix.O_NOFOLLOW | unix.O_DIRECTORY | unix.O_TRUNC

func sysOpenat(t *sched.Thread, f *sched.Frame) uint64 {
	r := openat(t, f)
	if t.State != sched.Blocked {
		dropFIFOWait(t) // the open ended another way than opening the FIFO
	}
	return r
}

func openat(t *sched.Thread, f *sched.Frame) uint64 {
	flags := uint32(f.X[2])
	// O_CREAT|O_EXCL never follows a final symlink: the name must be new
	// (open(2)), so a dangling symlink is EEXIST, not a file created at
	// its target.
	excl := flags&(unix.O_CREAT|unix.O_EXCL) == unix.O_CREAT|unix.O_EXCL
	var wf fs.WalkFlags
	if flags&unix.O_NOFOLLOW == 0 && !excl {
		wf = fs.Follow
	}
	var w fs.Walk
	if e := resolveAt(&w, int64(f.X[0]), uintptr(f.X[1]), wf); e != 0 {
		return errno(e)
	}
	if flags&unix.O_CREAT != 0 && w.Tail != 0 {
		return errno(unix.EISDIR) // O_CREAT names a file: "x/" is a directory (open(2))
	}
	i := w.Node
	switch {
	case i < 0 && flags&unix.O_CREAT != 0:
		var e unix.Errno
		if i, e = fs.Create(&w, unix.S_IFREG|uint32(f.X[3])&0o7777&^fsCtx().Umask); e != 0 {
			return errno(e)
		}
	case excl:
		return errno(unix.EEXIST)
	default:
		var e unix.Errno
		if i, e = w.Found(); e != 0 {
			return errno(e)
		}
	}
	nd := &fs.Inodes[i]
	write := flags&unix.O_ACCMODE != unix.O_RDONLY
	switch mode := nd.Mode & unix.S_IFMT; {
	case mode == unix.S_IFLNK && flags&unix.O_NOFOLLOW == 0 && fs.IsSynth(i):
		return openMagic(i, flags) // the walk stopped at /proc/PID/fd/N of a pipe
	case flags&unix.O_DIRECTORY != 0 && mode != unix.S_IFDIR:
		return errno(unix.ENOTDIR)
	case mode == unix.S_IFLNK:
		return errno(unix.ELOOP) // O_NOFOLLOW on a symlink
	case mode == unix.S_IFDIR && (write || flags&(unix.O_CREAT|unix.O_TRUNC) != 0):
		return errno(unix.EISDIR) // O_TRUNC asks to write too (build_open_flags)
	case mode == unix.S_IFCHR:
		r := openCharDev(i, flags)
		if fl, ok := getFD(r); ok && !vfs.IsErr(r) {
			fs.FileMnt[fl.Index()] = w.Mnt // where /proc/PID/fd finds its node
		}
		return r
	case mode == unix.S_IFBLK:
		r := blockOpen(i, flags)
		if fl, ok := getFD(r); ok && !vfs.IsErr(r) {
			fs.FileMnt[fl.Index()] = w.Mnt
		}
		return r
	case mode == unix.S_IFIFO:
		return openFIFO(t, nd, flags&^openOnlyFlags, flags&unix.O_CLOEXEC != 0)
	case mode == unix.S_IFSOCK:
		return errno(unix.ENXIO) // a socket file is connected to, not opened (open(2))
	case fs.IsSynth(i) && !fs.Inodes[i].Synth.Writable && (write || flags&unix.O_TRUNC != 0):
		return errno(unix.EACCES) // /proc's files are read-only here (comm too)
	case (write || flags&unix.O_TRUNC != 0) && fs.ReadOnlyAt(fs.Path{Mnt: w.Mnt, Ino: i}) != 0:
		return errno(unix.EROFS) // sb_permission and mnt_want_write: a file on a read-only mount
	case nd.Running > 0 && write:
		return errno(unix.ETXTBSY)
	}
	fd := freeFD(0)
	if fd < 0 {
		return errno(unix.EMFILE)
	}
	if flags&unix.O_TRUNC != 0 && write {
		if e := fs.Truncate(nd, 0); e != 0 {
			return errno(e)
		}
	}
	fi := fs.Open(fs.Path{Mnt: w.Mnt, Ino: i}, flags&^openOnlyFlags)
	if fi < 0 {
		return errno(unix.ENFILE)
	}
	setFD(fd, fi, flags&unix.O_CLOEXEC != 0)
	return uint64(fd)
}

// umask is the app's file-creation mask.
// umaskDefault is init's umask, as Linux starts it (init_fs).
const umaskDefault = 0o022

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
		postSignal(t, sigPIPE, userInfo(t, siUSER))
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
	// A seqpacket socket's readv or writev moves one record across all
	// the iovecs, as its recvmsg and sendmsg do.
	if k, ok := fl.Impl.(*socket.Socket); ok && k.Records() {
		if f.X[2] > iovMax {
			return errno(unix.EINVAL)
		}
		if write {
			return sendRecordMsg(t, fl, k, uintptr(f.X[1]), f.X[2], 0, nil)
		}
		r, _ := recvRecordMsg(t, fl, k, uintptr(f.X[1]), f.X[2], 0, nil)
		return r
	}
	return iovecIO(t, fl, uintptr(f.X[1]), f.X[2], write)
}

// iovecIO is vectorIO on description fl with cnt iovecs at iov (also
// sendmsg's and recvmsg's on a stream socket).
func iovecIO(t *sched.Thread, fl *vfs.File, iov uintptr, cnt uint64, write bool) uint64 {
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
			// As for a write: what earlier runs read is skipped above.
			t.Retried, t.Progress = false, 0
			r = vfs.Read(t, fl, base, n, -1)
		}
		if t.State != sched.Running {
			// Blocked: the next run skips everything moved so far
			// (vfs.Write or vfs.Read left this segment's part in t.Progress).
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
	st := fileStat(fl)
	return putStat(uintptr(f.X[1]), &st)
}

func sysNewfstatat(t *sched.Thread, f *sched.Frame) uint64 {
	flags := f.X[3]
	var st unix.Stat_t
	if flags&unix.AT_EMPTY_PATH != 0 && emptyPath(uintptr(f.X[1])) {
		fl, ok := getFD(f.X[0])
		if !ok {
			return errno(unix.EBADF)
		}
		st = fileStat(fl)
		return putStat(uintptr(f.X[2]), &st)
	}
	var wf fs.WalkFlags
	if flags&unix.AT_SYMLINK_NOFOLLOW == 0 {
		wf = fs.Follow
	}
	var w fs.Walk
	i, e := lookupAt(&w, int64(f.X[0]), uintptr(f.X[1]), wf)
	if e != 0 {
		return errno(e)
	}
	if mf, ok := magicFile(i); ok && wf == fs.Follow {
		st = fileStat(mf) // what /proc/PID/fd/N names
		return putStat(uintptr(f.X[2]), &st)
	}
	fs.Inodes[i].StatTo(&st)
	return putStat(uintptr(f.X[2]), &st)
}

// faccessat(dirfd, path, mode) and faccessat2 with flags: the file must
// exist; as every process may do what root may, any mode is granted but
// for what root is refused too (fs/open.c do_faccessat, and
// generic_permission's CAP_DAC_OVERRIDE rule): X_OK on a regular file
// with no execute bit or on a noexec mount is EACCES, W_OK on a
// read-only mount EROFS.
func sysFaccessat(t *sched.Thread, f *sched.Frame) uint64 { return faccessat(f, 0) }

func sysFaccessat2(t *sched.Thread, f *sched.Frame) uint64 { return faccessat(f, f.X[3]) }

func faccessat(f *sched.Frame, flags uint64) uint64 {
	const validFlags = unix.AT_EACCESS | unix.AT_SYMLINK_NOFOLLOW | unix.AT_EMPTY_PATH
	if f.X[2]&^7 != 0 || flags&^uint64(validFlags) != 0 {
		return errno(unix.EINVAL)
	}
	wf := fs.Follow
	if flags&unix.AT_SYMLINK_NOFOLLOW != 0 {
		wf = 0
	}
	var w fs.Walk
	i, e := lookupAt(&w, int64(f.X[0]), uintptr(f.X[1]), wf)
	if e != 0 {
		return errno(e)
	}
	n := &fs.Inodes[i]
	switch reg := n.Mode&unix.S_IFMT == unix.S_IFREG; {
	case f.X[2]&unix.X_OK != 0 && reg && (n.Mode&0o111 == 0 || fs.Mounts[w.Mnt].Flags&unix.MS_NOEXEC != 0):
		return errno(unix.EACCES)
	case f.X[2]&unix.W_OK != 0 && (reg || n.IsDir() || n.IsSymlink()) && fs.ReadOnlyAt(w.NodePath()) != 0:
		return errno(unix.EROFS)
	}
	return 0
}

func sysReadlinkat(t *sched.Thread, f *sched.Frame) uint64 {
	// A trailing slash follows the link: then it names no symlink.
	var w fs.Walk
	i, e := lookupAt(&w, int64(f.X[0]), uintptr(f.X[1]), 0)
	if e != 0 {
		return errno(e)
	}
	if !fs.Inodes[i].IsSymlink() {
		return errno(unix.EINVAL)
	}
	target := fs.Inodes[i].Link()
	if len(target) == 0 && fs.IsSynth(i) {
		return errno(unix.ENOENT) // a /proc link of a process gone
	}
	if uint64(len(target)) > f.X[3] {
		target = target[:f.X[3]]
	}
	if !usermem.CopyOut(uintptr(f.X[2]), target) {
		return errno(unix.EFAULT)
	}
	return uint64(len(target))
}

// sysGetdents64 lists a directory from its description's position on:
// ".", "..", then its entries in the order they were made (fs.Entry);
// each record's d_off is the position after it, which lseek accepts.
func sysGetdents64(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	dir := fs.DirOf(fl)
	if dir < 0 {
		return errno(unix.ENOTDIR)
	}
	if e := fs.Fill(dir); e != 0 {
		return errno(e) // a backed directory whose store cannot be read
	}
	buf, size := uintptr(f.X[1]), f.X[2]
	written := uint64(0)
	for {
		i, name, next, ok := fs.Entry(dir, fl.Pos)
		if !ok {
			break
		}
		// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
		reclen := (19 + uint64(len(name)) + 1 + 7) &^ 7
		if written+reclen > size {
			if written == 0 {
				return errno(unix.EINVAL) // the buffer is too small for one record
			}
			break
		}
		var rec [19 + fs.NameMax + 1 + 7]byte
		put64(rec[:], 0, fs.Inodes[i].Ino)
		put64(rec[:], 8, uint64(next))
		rec[16] = byte(reclen)
		rec[17] = byte(reclen >> 8)
		rec[18] = dirType(fs.Inodes[i].Mode)
		copy(rec[19:], name)
		if !usermem.CopyOut(buf+uintptr(written), rec[:reclen]) {
			if written == 0 {
				return errno(unix.EFAULT)
			}
			break
		}
		written += reclen
		fl.Pos = next
	}
	return written
}

// dirType is getdents' d_type for a file of mode: the file-type bits
// shifted down, as Linux's fs_umode_to_dtype does (S_DT in
// include/linux/fs_types.h: DT_DIR is S_IFDIR>>12, and so on for every
// type).
func dirType(mode uint32) byte { return byte(mode & unix.S_IFMT >> 12) }

// sysGetcwd is getcwd(2): the working directory's path, built up from
// its name through its parents; ENAMETOOLONG past PATH_MAX (Go's
// os.Getwd then walks "..", as it does on Linux), ENOENT once removed,
// ERANGE if the caller's buffer is too small.
func sysGetcwd(t *sched.Thread, f *sched.Frame) uint64 {
	var buf [fs.PathMax]byte
	// Past the root (a chroot's), the path is the tree's with Linux's
	// "(unreachable)" before it (d_path's answer since 2.6.36).
	const unreachable = "(unreachable)"
	n, reachable, e := fs.PathFrom(rootPath(), cwdPath(), buf[len(unreachable):len(buf)-1])
	if e != 0 {
		return errno(e)
	}
	if reachable {
		copy(buf[:], buf[len(unreachable):len(unreachable)+n])
	} else {
		copy(buf[:], unreachable)
		n += len(unreachable)
	}
	if f.X[1] < uint64(n)+1 {
		return errno(unix.ERANGE)
	}
	buf[n] = 0
	if !usermem.CopyOut(uintptr(f.X[0]), buf[:n+1]) {
		return errno(unix.EFAULT)
	}
	return uint64(n + 1)
}

func sysChdir(t *sched.Thread, f *sched.Frame) uint64 {
	var w fs.Walk
	i, e := lookupAt(&w, unix.AT_FDCWD, uintptr(f.X[0]), fs.Follow)
	if e != 0 {
		return errno(e)
	}
	if !fs.Inodes[i].IsDir() {
		return errno(unix.ENOTDIR)
	}
	setCwd(w.NodePath())
	return 0
}

// setCwd makes directory p the working directory, holding it instead of
// the old one.
func setCwd(p fs.Path) {
	c := fsCtx()
	old := *c
	c.Cwd, c.CwdMnt = p.Ino, p.Mnt
	holdCwd(c)
	dropCwd(&old)
}

// sysChroot makes a directory the process's root (chroot(2)): "/" and
// ".." stop there for it and those sharing its context; the working
// directory stays where it is, as on Linux. EPERM without
// CAP_SYS_CHROOT (root here).
func sysChroot(t *sched.Thread, f *sched.Frame) uint64 {
	var w fs.Walk
	i, e := lookupAt(&w, unix.AT_FDCWD, uintptr(f.X[0]), fs.Follow)
	switch {
	case e != 0:
		return errno(e)
	case !fs.Inodes[i].IsDir():
		return errno(unix.ENOTDIR)
	case !procOf(t).Cred.Privileged():
		return errno(unix.EPERM)
	}
	c := fsCtx()
	old := *c
	c.Root, c.RootMnt = i, w.Mnt
	holdCwd(c)
	dropCwd(&old)
	return 0
}

func sysFchdir(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	i := fs.DirOf(fl)
	if i < 0 {
		return errno(unix.ENOTDIR)
	}
	setCwd(fs.Path{Mnt: fs.MountOf(fl), Ino: i})
	return 0
}

// ioctl: the object answers (the console: terminal requests, its job
// control here: ctty_arm64.go), or ENOTTY.
func sysIoctl(t *sched.Thread, f *sched.Frame) uint64 {
	fl, ok := getFD(f.X[0])
	if !ok {
		return errno(unix.EBADF)
	}
	if p, ok := fl.Impl.(*tty.Pty); ok && f.X[1] == unix.TIOCGPTPEER {
		// ptm_open_peer: the slave, opened with the flags given and
		// O_NOCTTY; pty_open's lock check holds for it too.
		return openPts(p.N(), uint32(f.X[2])|unix.O_NOCTTY, uint32(f.X[2])&unix.O_CLOEXEC != 0)
	}
	if fl.Impl.Kind() == vfs.KindConsole {
		if r, handled := consoleIoctl(t, fl, f.X[1], uintptr(f.X[2])); handled {
			return r
		}
	}
	return fl.Impl.Ioctl(fl, f.X[1], uintptr(f.X[2]))
}
