package kernel

import (
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/fdt"
	"github.com/gometal/gometal/drivers/gic"
	"github.com/gometal/gometal/drivers/psci"
	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/sched"
)

// Bringing up every core the DTB describes. The boot core is core 0; the
// others are numbered in DTB order. Each is started at boot's
// secondaryEntry (physical address, MMU off) by PSCI CPU_ON through the
// conduit /psci names, or through its spin table ("cpu-release-addr": the
// Raspberry Pi's armstub parks cores in WFE until that word is non-zero).
// The entry finds its core number by MPIDR in SecondaryBoot, turns on the
// MMU with the kernel's tables, and calls SecondaryStart on the core's own
// kernel stack.

// mpidrAffMask keeps the affinity fields of MPIDR_EL1 (ARM ARM D13.2.86:
// Aff3 [39:32], Aff2..Aff0 [23:0]); the DTB's cpu "reg" holds the same.
const mpidrAffMask = 0xFF_00FF_FFFF

// coreStartTimeout is how long the boot core waits for a started core to
// report in before it goes on without it.
const coreStartTimeoutNanos = 2_000_000_000

// startSecondaries starts every other core and waits for each to report
// in. It returns how many cores are online, the boot core included.
func startSecondaries(b *BootInfo) int {
	sb := b.Secondary
	sb.TTBR0 = uint64(b.BootTTBR0)
	sb.TTBR1 = cpu.ReadTTBR1()
	boot := cpu.ReadMPIDR() & mpidrAffMask
	sb.MPIDR[0] = boot
	conduit := psciConduit()
	entryPA := cpu.KPA(b.SecondaryEntry)
	online := 1
	id := 1
	for n := dtb.FindDeviceType(-1, "cpu"); n >= 0; n = dtb.FindDeviceType(n, "cpu") {
		aff, _, ok := dtb.Reg(n, 0)
		if !ok || aff&mpidrAffMask == boot {
			continue
		}
		if id >= cpu.MaxCPUs {
			if Info("cores: more than ") {
				PutDec(cpu.MaxCPUs)
				Puts(" in the device tree; the rest stay off")
				InfoEnd()
			}
			break
		}
		c := sched.InitCPU(id)
		c.MPIDR = aff & mpidrAffMask
		sb.MPIDR[id] = c.MPIDR
		sb.CPU[id] = uintptr(unsafe.Pointer(c))
		sb.SP[id] = c.KStackTop - sched.FrameSize
		cpu.CleanDcache(uintptr(unsafe.Pointer(sb)), unsafe.Sizeof(*sb))
		if startCore(n, c, conduit, entryPA) && waitAlive(c) {
			c.Online = true
			online++
		}
		id++
	}
	return online
}

// startCore asks the firmware to start core c at entryPA.
func startCore(n fdt.Node, c *sched.CPU, conduit psci.Conduit, entryPA uintptr) bool {
	method, _ := dtb.StringProp(n, "enable-method")
	if string(method) == "spin-table" {
		rel, ok := dtb.PropCells(n, "cpu-release-addr")
		if !ok {
			coreFailed(c, "spin-table without cpu-release-addr")
			return false
		}
		// The parked core reads the word with its caches off: write
		// it, clean it to memory, then wake every WFE with SEV.
		va := cpu.KVA(uintptr(rel))
		*(*uint64)(cpu.Ptr(va)) = uint64(entryPA)
		cpu.CleanDcache(va, 8)
		cpu.SEV()
		return true
	}
	if conduit == psci.None {
		coreFailed(c, "no PSCI node and no spin table")
		return false
	}
	if r := psci.CPUOn(conduit, c.MPIDR, entryPA, uint64(c.ID)); r != psci.Success {
		coreFailed(c, psci.ErrorName(r))
		return false
	}
	return true
}

// psciConduit reads /psci's "method" (DT binding arm,psci).
func psciConduit() psci.Conduit {
	n := dtb.FindCompatible(-1, "arm,psci-0.2")
	if n < 0 {
		n = dtb.FindCompatible(-1, "arm,psci")
	}
	if n < 0 {
		return psci.None
	}
	m, _ := dtb.StringProp(n, "method")
	switch string(m) {
	case "hvc":
		return psci.HVC
	case "smc":
		return psci.SMC
	}
	return psci.None
}

func waitAlive(c *sched.CPU) bool {
	deadline := timer.Now() + timer.NanosToTicks(coreStartTimeoutNanos)
	for !c.Alive.Load() {
		if timer.Now() > deadline {
			coreFailed(c, "did not report in within 2 s")
			return false
		}
	}
	return true
}

func coreFailed(c *sched.CPU, why string) {
	Puts("gometal: core ")
	PutDec(int64(c.ID))
	Puts(" (mpidr ")
	PutHex(c.MPIDR)
	Puts(") not started: ")
	Puts(why)
	Puts("\n")
}

// initCPULocal sets up what every core has its own copy of: the vector
// base, the timer's EL0 access, the GIC CPU interface, and the timer and
// wake-up interrupts (PPIs and SGIs are banked per core).
func initCPULocal(c *sched.CPU) {
	cpu.WriteVBAR(uint64(vectorsAddr()))
	initASIDWidth()
	timer.InitCPU()
	gic.InitCPU(c.ID)
	gic.Enable(c.ID, timerIRQ)
	gic.Enable(c.ID, gic.SGIWake)
}

// SecondaryStart is where a secondary core enters Go (boot's
// secondaryMain), on its own kernel stack with g and TPIDR_EL1 pointing at
// its sched.CPU. It reports in, then joins the scheduler for good.
func SecondaryStart(id int) {
	c := &sched.CPUs[id]
	cpu.TTBR0Walks(false) // no app table here yet: kernel nil derefs fault
	initCPULocal(c)
	c.Alive.Store(true)
	for !appStarted.Load() {
		cpu.WFE() // the boot core's Unlock sends the event
	}
	sched.KernelLock.Lock(c.ID)
	if crashDeadlock && id == 1 {
		sched.KernelLock.Lock(c.ID) // held by this very core: never granted
	}
	c.Heartbeat = timer.Now()
	f := (*sched.Frame)(cpu.Ptr(c.KStackTop - sched.FrameSize))
	finishTrap(c, f, false)
	enterUser(uintptr(unsafe.Pointer(f)))
}
