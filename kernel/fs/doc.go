// Package fs owns the app's file system: the read-only initramfs, served
// straight out of the cpio archive the bootloader left in memory
// (initramfs.go, its open files in archivefile.go); the writable tmpfs
// layered over it (tmpfs.go, its nodes as open files in tmpfile.go); and
// the path walk over both, with symlinks (walk.go, path.go). Its files
// are vfs.Impls over fixed tables, so nothing allocates; it knows no
// descriptors, user paths or processes (the Linux layer above resolves
// those). Builds on the host: go test ./kernel/fs.
package fs
