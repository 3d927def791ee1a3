package linux

import (
	"github.com/gometal/gometal/kernel/usermem"
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/mm"
)

// vdsoVA is where the vDSO page is mapped in every app (just below the
// signal trampoline, above the stack); vdso_arm64.s hard-codes its data
// address from it.
const vdsoVA = 0x0000_FFFF_FFFF_A000

// vdsoClockGettime is the vDSO's code (vdso_arm64.s); vdsoCode returns
// its address in the kernel image.
func vdsoClockGettime()
func vdsoCode() uintptr

// mapVDSO builds the vDSO page and maps it read-only and executable for
// the app. The clock's wall offset is final by now (initClock).
func mapVDSO() bool {
	pa := mm.Pages.Get()
	if pa == 0 {
		return false
	}
	page := mm.PageBytes(pa)
	code := unsafe.Slice((*byte)(cpu.Ptr(vdsoCode())), vdsoCodeMax)
	buildVDSO(page[:], code, vdsoMult(timer.Freq()), clock.WallAtBoot)
	return usermem.App.MapFixedPage(vdsoVA, pa, mm.ProtRead|mm.ProtExec)
}
