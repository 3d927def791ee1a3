package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// Files the app leaves, carried to the host when it exits: boot argument
// gometal.copyout=GUEST:HOST (the CLI's -copyout) names a file in the
// guest and where it goes on the host, written through semihosting
// (SYS_OPEN/WRITE/CLOSE) as the kernel trace is. This is how a Go
// execution trace (runtime/trace) or a profile the app writes reaches
// gometal trace.

// copyOut writes each asked-for file to the host, saying in one line
// what it could not.
func copyOut() {
	if !kernel.Semihosting() {
		return
	}
	for k := 0; k < kernel.NumCopyouts; k++ {
		arg := kernel.CopyoutArgs[k]
		colon := -1
		for i, c := range arg {
			if c == ':' {
				colon = i
				break
			}
		}
		if colon <= 0 || colon == len(arg)-1 {
			copyoutFailed(arg, "want gometal.copyout=GUEST:HOST")
			continue
		}
		guest, host := arg[:colon], arg[colon+1:]
		var w fs.Walk
		i, e := fs.Lookup(&w, fs.RootPath(), guest, fs.Follow)
		if e != 0 {
			copyoutFailed(guest, "the app left no such file")
			continue
		}
		n := &fs.Inodes[i]
		if n.Mode&unix.S_IFMT != unix.S_IFREG {
			copyoutFailed(guest, "not a regular file")
			continue
		}
		if len(host) >= len(copyoutName) {
			copyoutFailed(host, "host path too long")
			continue
		}
		nl := copy(copyoutName[:], host)
		copyoutName[nl] = 0
		f, ok := kernel.CreateHostFile(&copyoutName[0], nl)
		if !ok {
			copyoutFailed(host, "cannot create it on the host")
			continue
		}
		for off := int64(0); off < n.Size; {
			b, e := fs.Chunk(n, off, &copyoutZero)
			if e != 0 {
				copyoutFailed(host, "reading it failed")
				break
			}
			f.Write(unsafe.Pointer(&b[0]), uint64(len(b)))
			off += int64(len(b))
		}
		if !f.Close() {
			copyoutFailed(host, "writing it on the host failed")
		}
	}
}

var (
	copyoutName [512]byte
	copyoutZero [mm.PageSize]byte
)

func copyoutFailed(what []byte, why string) {
	kernel.Puts("gometal: copyout ")
	kernel.PutBytes(what)
	kernel.Puts(": ")
	kernel.Puts(why)
	kernel.Puts("\n")
}
