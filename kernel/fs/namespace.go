package fs

import (
	"github.com/gometal/gometal/kernel/clock"

	"golang.org/x/sys/unix"
)

// Changes to the namespace, each on the Walk that found its path, and
// answered as Linux answers them (the checks and their order follow
// fs/namei.c: do_mkdirat, do_unlinkat, do_rmdir, do_renameat2,
// do_linkat).

// Create makes a new inode of mode under the name a walk ended at
// (open with O_CREAT, mkdir, mknod, symlink, bind of an AF_UNIX
// socket): EEXIST if the name exists, ENOENT in a removed directory.
func Create(w *Walk, mode uint32) (int32, unix.Errno) { return createNode(w, mode, nil) }

// createNode is Create, and Symlink's with target (a store makes a symlink
// with its target at once).
func createNode(w *Walk, mode uint32, target []byte) (int32, unix.Errno) {
	switch {
	case w.Node >= 0:
		return -1, unix.EEXIST
	case w.nameLen == 0:
		return -1, unix.ENOENT
	case removed(w.Dir):
		return -1, unix.ENOENT
	case readOnly(w.Dir) != 0 && mode&unix.S_IFMT == unix.S_IFREG:
		return -1, unix.EACCES // an O_CREAT open: lookup_open with no ->create
	case readOnly(w.Dir) != 0:
		return -1, unix.EPERM
	case ReadOnlyAt(w.DirPath()) != 0:
		return -1, unix.EROFS // after EEXIST, as filename_create checks mnt_want_write's answer
	}
	if wr := WriterOf(w.Dir); wr != nil {
		return createStored(wr, w, mode, target)
	}
	i, e := makeNode(w.Dir, w.Name(), mode)
	if e == 0 {
		touch(w.Dir)
	}
	return i, e
}

// makeNode makes a new inode of mode named nm in directory dir, with no
// checks but for room (Create's, and the unpacker's).
func makeNode(dir int32, nm []byte, mode uint32) (int32, unix.Errno) {
	i, e := newInode(Inodes[dir].Super, mode)
	if e != 0 {
		return -1, e
	}
	if _, e := addName(dir, nm, i); e != 0 {
		Supers[Inodes[i].Super].Inodes--
		Inodes[i] = Inode{}
		return -1, e
	}
	return i, 0
}

// touch marks directory i changed (its entries did).
func touch(i int32) { Inodes[i].Mtime = clock.Realtime() }

// Unlink removes the name a walk (without Follow) ended at: a file, or
// with rmdir an empty directory (unlinkat(2), AT_REMOVEDIR). A path that
// does not end in a name, or ends in a slash, is answered as Linux's
// do_rmdir and do_unlinkat answer it. An inode still open lives on,
// nameless, until its last description goes.
func Unlink(w *Walk, rmdir bool) unix.Errno {
	switch {
	case rmdir && w.Tail&TailDot != 0:
		return unix.EINVAL
	case rmdir && w.Tail&TailDotDot != 0:
		return unix.ENOTEMPTY
	case !rmdir && w.Tail&(TailDot|TailDotDot) != 0:
		return unix.EISDIR
	case w.Node < 0:
		return unix.ENOENT
	case w.nameLen == 0: // the root
		if rmdir {
			return unix.EBUSY
		}
		return unix.EISDIR
	case ReadOnlyAt(w.DirPath()) != 0:
		return unix.EROFS // do_unlinkat and do_rmdir ask mnt_want_write before the lookup
	}
	n := &Inodes[w.Node]
	switch {
	case mountpoint(w):
		return unix.EBUSY // a mountpoint (the walk went on to the root mounted there)
	case readOnly(w.Dir) != 0:
		return unix.EPERM
	case !rmdir && w.Tail&TailDir != 0 && !n.IsDir():
		return unix.ENOTDIR
	case rmdir && !n.IsDir():
		return unix.ENOTDIR
	case rmdir && n.entries > 0:
		return unix.ENOTEMPTY
	case !rmdir && n.IsDir():
		return unix.EISDIR
	}
	if wr := WriterOf(w.Dir); wr != nil {
		if e := wr.Remove(w.Dir, nameArg(&storeName, w.Name()), rmdir); e != 0 {
			return e
		}
		storeUnlinked(n)
	}
	k := lookupName(w.Dir, w.Name())
	i := w.Node
	dropName(k)
	rehomeStored(i, w.Dir)
	touch(w.Dir)
	return 0
}

// Rename moves the name from ended at to the name to ended at (rename(2);
// both walks without Follow). The target is replaced if it exists and
// may be; a directory keeps everything below it, since a name is one
// entry in one directory.
func Rename(from, to *Walk) unix.Errno {
	switch {
	case from.Tail&(TailDot|TailDotDot) != 0 || to.Tail&(TailDot|TailDotDot) != 0:
		return unix.EBUSY // no name to move or replace (do_renameat2)
	case from.Node < 0:
		return unix.ENOENT
	case from.nameLen == 0 || to.nameLen == 0:
		return unix.EBUSY // the root
	}
	src := &Inodes[from.Node]
	switch {
	case from.DirMnt != to.DirMnt:
		return unix.EXDEV // between mounts (do_renameat2)
	case ReadOnlyAt(from.DirPath()) != 0:
		return unix.EROFS
	case mountpoint(from) || to.Node >= 0 && mountpoint(to):
		return unix.EBUSY
	case readOnly(from.Dir) != 0:
		return unix.EPERM
	}
	if (from.Tail|to.Tail)&TailDir != 0 && !src.IsDir() {
		return unix.ENOTDIR
	}
	if removed(to.Dir) {
		return unix.ENOENT
	}
	if src.IsDir() {
		// Not into itself: the target's directory may not be the source
		// or below it.
		for d := to.Dir; d >= 0; {
			if d == from.Node {
				return unix.EINVAL
			}
			p := Parent(d)
			if p == d {
				break // the root of its instance (rename does not cross mounts)
			}
			d = p
		}
	}
	if to.Node == from.Node {
		return 0 // two names of one file: rename(2) does nothing
	}
	if to.Node >= 0 {
		dst := &Inodes[to.Node]
		switch {
		case dst.IsDir() && !src.IsDir():
			return unix.EISDIR
		case !dst.IsDir() && src.IsDir():
			return unix.ENOTDIR
		case dst.IsDir() && dst.entries > 0:
			return unix.ENOTEMPTY
		}
	}
	if wr := WriterOf(from.Dir); wr != nil {
		if e := wr.Rename(from.Dir, nameArg(&storeName, from.Name()), to.Dir, nameArg(&storeName2, to.Name())); e != 0 {
			return e
		}
		if src.storeDir == from.Dir {
			src.storeDir = to.Dir // the directory a file's path goes through (StoredPath)
		}
	}
	if to.Node >= 0 {
		storeUnlinked(&Inodes[to.Node])
		dropName(lookupName(to.Dir, to.Name()))
		rehomeStored(to.Node, to.Dir)
	}
	moveName(lookupName(from.Dir, from.Name()), to.Dir, to.Name())
	touch(from.Dir)
	touch(to.Dir)
	return 0
}

// mountpoint says whether the name a walk ended at is covered by a
// mount (the walk went on to the mount's root).
func mountpoint(w *Walk) bool {
	return w.Mnt != w.DirMnt || Inodes[w.Node].covered > 0
}

// Link makes the name a walk ended at another name of inode i (link(2)):
// a directory cannot be linked (EPERM).
func Link(i int32, w *Walk) unix.Errno {
	switch {
	case Inodes[i].IsDir():
		return unix.EPERM
	case w.Node >= 0:
		return unix.EEXIST
	case Inodes[i].Super != Inodes[w.Dir].Super:
		return unix.EXDEV // between instances (do_linkat compares the mounts)
	case ReadOnlyAt(w.DirPath()) != 0:
		return unix.EROFS
	case readOnly(w.Dir) != 0:
		return unix.EPERM
	case w.Tail != 0:
		return unix.ENOENT // a new name cannot end in "/" (do_linkat)
	case w.nameLen == 0 || removed(w.Dir):
		return unix.ENOENT
	}
	if wr := WriterOf(w.Dir); wr != nil {
		if e := wr.Link(i, w.Dir, nameArg(&storeName, w.Name())); e != 0 {
			return e
		}
		Inodes[i].storeLinks++
	}
	if _, e := addName(w.Dir, w.Name(), i); e != 0 {
		return e
	}
	touch(w.Dir)
	return 0
}

// Symlink makes a symlink whose target is target under the name a walk
// ended at (symlink(2)).
func Symlink(w *Walk, target []byte) unix.Errno {
	if len(target) >= PathMax {
		return unix.ENAMETOOLONG
	}
	i, e := createNode(w, unix.S_IFLNK|0o777, target)
	if e != 0 || Inodes[i].Store != 0 {
		return e // a store's symlink has its target (MakeStored)
	}
	if e := Inodes[i].SetLink(target); e != 0 {
		dropName(lookupName(w.Dir, w.Name()))
		return e
	}
	return 0
}
