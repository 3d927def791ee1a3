// Package fs owns the app's file system: one tree of names over inodes,
// as Linux's dcache and tmpfs make one. At boot the initramfs is unpacked
// into it (unpack.go), its files read straight out of the cpio archive
// until first written (data.go); everything the app makes lives in
// pages, under a size limit. Inodes (inode.go) are what names lead to;
// dentries (dentry.go) are the names, several per file with hard links,
// one per directory; the path walk (walk.go) goes one component at a
// time with symlinks, as Linux walks paths, and the namespace changes
// (namespace.go) act on where a walk ended. Each inode is the vfs.Impl of
// its open descriptions (file.go); a FIFO names a pipe (fifo.go). Its
// tables are fixed, so nothing allocates; it knows no descriptors, user
// memory or processes (the Linux layer above resolves those, keeps the
// working directory as an inode, and makes a FIFO's open wait). Builds
// on the host: go test ./kernel/fs.
package fs
