package linux

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// sysinfo(2): uptime, memory in pages of mem_unit bytes (one page here),
// the number of processes, the load averages (in 16-bit fixed point:
// SI_LOAD_SHIFT), no swap, no high memory.
// Address spaces the cores have let go of are given back first, so that
// free memory is what no process uses any more.
func sysSysinfo(t *sched.Thread, f *sched.Frame) uint64 {
	mm.ReapSpaces()
	var si unix.Sysinfo_t
	si.Uptime = clock.Monotonic() / 1e9
	si.Totalram = uint64(mm.Pages.Total())
	si.Freeram = uint64(mm.Pages.Total() - mm.Pages.Used())
	si.Procs = uint16(proc.Count())
	for i := range si.Loads {
		si.Loads[i] = sched.LoadAvg[i].Load() << (siLoadShift - sched.FShift)
	}
	si.Unit = mm.PageSize
	if !usermem.CopyOut(uintptr(f.X[0]), usermem.BytesOf(unsafe.Pointer(&si), unsafe.Sizeof(si))) {
		return errno(unix.EFAULT)
	}
	return 0
}

// siLoadShift is sysinfo's fixed point for loads (SI_LOAD_SHIFT).
const siLoadShift = 16
