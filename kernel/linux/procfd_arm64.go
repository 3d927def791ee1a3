package linux

import (
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/procfs"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// /proc/PID/fd/N of a file that has no path (a pipe, a socket, an
// eventfd): Linux's link leads to the open file itself (proc_fd_link,
// nd_jump_link), so open(2) of it opens that file again — a pipe as a
// FIFO's end, in the access mode asked (the way a shell's /dev/stdin
// reaches a pipe) — and stat(2) describes it. Here the walk ends at such
// a link (fs.SynthJump) and these finish the call.

// procJump is fs.SynthJump.
func procJump(i int32) bool {
	_, ok := magicFile(i)
	return ok
}

// magicFile is the open description /proc/PID/fd/N (inode i) names when
// it has no path to follow.
func magicFile(i int32) (*vfs.File, bool) {
	s := fs.Inodes[i].Synth
	if s.Kind != procfs.KFd {
		return nil, false
	}
	p := proc.ByPID(s.PID)
	if p < 0 || proc.Procs[p].State != proc.Live {
		return nil, false
	}
	fi := proc.FDTables[proc.Procs[p].Files].Slots[s.Arg].File
	if fi == 0 {
		return nil, false
	}
	f := &vfs.Files[fi-1]
	switch f.Impl.Kind() {
	case vfs.KindFile, vfs.KindDir, vfs.KindConsole:
		return nil, false // a path: the link is followed as any
	}
	return f, true
}

// openMagic opens what magic link i names: a pipe as a new end of it
// (O_RDONLY a reader, O_WRONLY a writer, O_RDWR both, as fifo_open
// does), anything else ENXIO, as Linux answers for a socket.
func openMagic(i int32, flags uint32) uint64 {
	f, ok := magicFile(i)
	if !ok {
		return errno(unix.ENOENT)
	}
	p, ok := vfs.PipeOf(f)
	if !ok {
		return errno(unix.ENXIO)
	}
	cloexec := flags&unix.O_CLOEXEC != 0
	flags &^= openOnlyFlags
	switch flags & unix.O_ACCMODE {
	case unix.O_RDONLY:
		p.AddEnd(false)
		return openFIFOEnd(p, p.Reader(), flags, cloexec, false, false)
	case unix.O_WRONLY:
		p.AddEnd(true)
		return openFIFOEnd(p, p.Writer(), flags, cloexec, true, false)
	}
	p.AddEnd(false)
	p.AddEnd(true)
	return openFIFOEnd(p, p.Both(), flags, cloexec, false, true)
}
