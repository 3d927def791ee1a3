package kernel

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/kernel/mm"
)

// execImageWindow is where execve reads a program whose bytes are in a
// file's pages (a disk's, a share's, one the app wrote) rather than in
// the initramfs archive: the page cache's frames of the file, mapped in
// order in a kernel window (mm.MapWindowFrame) so that the ELF loader
// reads it as one slice, nothing copied. It lies 256 GiB into the
// windows, far past the network's rings; one program at a time, under
// the kernel lock.
const execImageWindow = cpu.KernBase + mm.WindowBase + 256<<30

// ExecImage is the window's address.
const ExecImage = execImageWindow

// MapExecFrame maps frame pa (its use counted by the caller) as page k
// of the window; false when no page-table page is to be had.
func MapExecFrame(k int, pa uintptr) bool {
	return mm.MapWindowFrame(&mm.Pages, kernelRoot, execImageWindow+uintptr(k)*mm.PageSize, pa)
}

// UnmapExecImage unmaps the window's first pages pages and drops their
// frames' counted uses.
func UnmapExecImage(pages int) { mm.UnmapWindowFrames(&mm.Pages, kernelRoot, execImageWindow, pages) }
