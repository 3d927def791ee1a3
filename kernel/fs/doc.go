// Package fs owns the app's file system: the read-only initramfs, served
// straight out of the cpio archive the bootloader left in memory
// (initramfs.go, its open files in archivefile.go); the writable tmpfs
// layered over it (tmpfs.go: nodes and their data; tmpnames.go: the
// names, several per file with hard links; tmpfile.go: nodes as open
// files; fifo.go: FIFOs' pipes); and the path walk over both, with
// symlinks, as Linux walks paths (walk.go, path.go). Its files are
// vfs.Impls over fixed tables, so nothing allocates; it knows no
// descriptors, user memory or processes (the Linux layer above resolves
// those, and makes a FIFO's open wait). Builds on the host: go test
// ./kernel/fs.
package fs
