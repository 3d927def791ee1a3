package proc

import "github.com/gometal/gometal/kernel/vfs"

// A descriptor table (Linux's files_struct): each descriptor refers to
// an open-file description (vfs.File) with a close-on-exec flag of its
// own. Processes share one with CLONE_FILES (threads always do); fork
// copies it, each descriptor a new reference to its description
// (CopyFDTable). The Linux layer's descriptor calls act on the calling
// process's table (kernel/linux/fdtable_arm64.go).

// MaxFDs is RLIMIT_NOFILE (getrlimit reports it).
const MaxFDs = vfs.MaxFiles

// FDSlot is one descriptor.
type FDSlot struct {
	File    int32 // 1 + index into vfs.Files; 0: the descriptor is free
	Cloexec bool
}

// FDTable is one descriptor table and the processes that use it.
type FDTable struct {
	Slots [MaxFDs]FDSlot
	Refs  int32
}

// FDTables holds every process's table; a slot is free while Refs is 0.
var FDTables [MaxProcs]FDTable

// NewFDTable takes a free, empty table with one reference, or -1.
func NewFDTable() int32 {
	for i := range FDTables {
		if FDTables[i].Refs == 0 {
			FDTables[i] = FDTable{Refs: 1}
			return int32(i)
		}
	}
	return -1
}

// CopyFDTable makes a new table with every descriptor of src (fork):
// the copies share src's descriptions, as dup does; -1 when no table is
// free.
func CopyFDTable(src int32) int32 {
	n := NewFDTable()
	if n < 0 {
		return -1
	}
	for fd, s := range FDTables[src].Slots {
		if s.File != 0 {
			vfs.IncRef(s.File - 1)
			FDTables[n].Slots[fd] = s
		}
	}
	return n
}

// Lowest returns the lowest free descriptor >= min, or -1.
func (ft *FDTable) Lowest(min int) int {
	for i := min; i < MaxFDs; i++ {
		if ft.Slots[i].File == 0 {
			return i
		}
	}
	return -1
}
