package proc

// A file-system context (Linux's fs_struct): the working directory and
// the umask. Processes share one with CLONE_FS; fork copies it.

// FSContext is one context and the processes that use it. Cwd is an
// inode of kernel/fs that the context holds (fs.Hold).
type FSContext struct {
	Cwd int32
	// CwdMnt is the mount Cwd was reached through (kernel/fs's Path:
	// ".." and getcwd leave a mount through its mountpoint).
	CwdMnt int32
	// Root and RootMnt are the process's root directory (chroot(2)),
	// held like Cwd; Root 0 is the tree's root, held by nothing.
	Root, RootMnt int32
	Umask         uint32
	Refs          int32
}

// FSContexts holds every process's context; a slot is free while Refs
// is 0.
var FSContexts [MaxProcs]FSContext

// NewFSContext takes a free slot holding c with one reference, or -1.
// The caller holds c.Cwd for it.
func NewFSContext(c FSContext) int32 {
	for i := range FSContexts {
		if FSContexts[i].Refs == 0 {
			c.Refs = 1
			FSContexts[i] = c
			return int32(i)
		}
	}
	return -1
}
