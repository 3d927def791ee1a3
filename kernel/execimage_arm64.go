package kernel

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/kernel/mm"
)

// execImageWindow is where execve reads a program whose bytes are in a
// file's pages (one the app wrote) rather than in the initramfs archive:
// copied into a kernel window (mm.MapWindow) so that the ELF loader reads
// it as one slice. It lies 256 GiB into the windows, far past the
// network's rings; one program at a time, under the kernel lock.
const execImageWindow = cpu.KernBase + mm.WindowBase + 256<<30

// MapExecImage maps pages fresh pages at the window and returns its
// address, or 0 when memory is out.
func MapExecImage(pages int) uintptr {
	if !mm.MapWindow(&mm.Pages, kernelRoot, execImageWindow, pages) {
		return 0
	}
	return execImageWindow
}

// UnmapExecImage gives the window's pages back.
func UnmapExecImage(pages int) { mm.UnmapWindow(&mm.Pages, kernelRoot, execImageWindow, pages) }
