package fs

import "github.com/gometal/gometal/kernel/vfs"

// FIFOs (fifo(7)): an inode of type S_IFIFO names a pipe that exists
// while some description has one of its ends open; opens of the FIFO
// while it exists share it. Its descriptions are pipe ends (vfs), so
// reads, writes, readiness and the last close are a pipe's. How an open
// waits for its partner is the Linux layer's (it blocks a thread).

// fifoSeq numbers FIFOs, so that a pipe left from an unlinked FIFO is
// never taken for that of a new one in the same slot.
var fifoSeq uint64

// FIFOPipe returns the pipe of FIFO n, making it if no end is open, or
// nil when the pipe table is full.
func FIFOPipe(n *Inode) *vfs.Pipe {
	if n.fifoTag == 0 {
		fifoSeq++
		n.fifoTag = fifoSeq
	}
	if n.fifoPipe > 0 {
		if p := vfs.PipeAt(n.fifoPipe - 1); p.IsFIFO(n.fifoTag) {
			return p
		}
	}
	p := vfs.NewFIFOPipe(n.fifoTag)
	if p != nil {
		n.fifoPipe = p.Index() + 1
	}
	return p
}
