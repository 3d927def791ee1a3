//go:build !arm64

package fs

// resetTables empties the file system, as the kernel's tables are at
// boot, so that a test can Init it again.
func resetTables() {
	Inodes = [MaxInodes]Inode{}
	dentries = [MaxDentries]dentry{}
	buckets = [hashBuckets]int32{}
	storedHash = [storedBuckets]int32{}
	namePages = [len(namePages)]uintptr{}
	namesUsed = [len(namesUsed)]uint16{}
	dataPages, maxDataPages, cachePages = 0, 0, 0
	Supers = [MaxSupers]Super{}
	Mounts = [MaxMounts]Mount{}
	FileMnt = [len(FileMnt)]int32{}
	inos, inodeHint, dentryHint = 0, RootIno, 0
}

// HostReset empties the file system and unpacks an empty initramfs
// with a limit of limit bytes (host tests of the packages above).
func HostReset(limit uint64) bool {
	resetTables()
	Archive = nil
	_, ok := Init(limit)
	return ok
}

// HostForget drops the entries of backed directory dir, to be read from
// its store again at its next lookup (reclaimTrees' work, on demand).
func HostForget(dir int32) {
	removeTree(dir)
	Inodes[dir].Filled = false
}
