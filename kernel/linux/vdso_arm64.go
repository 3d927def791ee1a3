package linux

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/mm"
)

// vdsoDataVA is the vDSO's data words' address, which vdso_arm64.s
// reads as const_vdsoDataVA (go_asm.h).
const vdsoDataVA = vdsoVA + vdsoDataOff

// vdsoClockGettime is the vDSO's code (vdso_arm64.s); vdsoCode returns
// its address in the kernel image.
func vdsoClockGettime()
func vdsoCode() uintptr

// makeVDSO builds the vDSO page, which every address space maps
// read-only and executable (mapKernelPages); 0: no memory. The clock's
// wall offset is final by now (initClock).
func makeVDSO() uintptr {
	pa := mm.Pages.Get()
	if pa == 0 {
		return 0
	}
	page := mm.PageBytes(pa)
	code := unsafe.Slice((*byte)(cpu.Ptr(vdsoCode())), vdsoCodeMax)
	buildVDSO(page[:], code, vdsoMult(timer.Freq()), clock.Wall())
	return pa
}
