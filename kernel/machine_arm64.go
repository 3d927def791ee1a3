package kernel

import (
	"sync/atomic"

	"github.com/gometal/gometal/drivers/bcm2711"
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/drivers/gic"
	"github.com/gometal/gometal/drivers/psci"
	"github.com/gometal/gometal/drivers/semihost"
	"github.com/gometal/gometal/sched"
)

// How a run ends. Under the CLI's QEMU the host answers semihosting
// (bootarg gometal.semihosting=1), and SYS_EXIT hands it the app's exit
// status. A board has no host to answer (its HLT would trap), so there
// the kernel says on the console how the app ended and stops every core
// in WFI; the board's reset button, or reboot(2) from the app, starts it
// again.

// machineStopping is set once the machine is being stopped: a core that
// takes the wake-up SGI while it is set halts.
var machineStopping atomic.Bool

// pmWatchdog is the kernel virtual address of the BCM2711 power-
// management block (brcm,bcm2835-pm-wdt), 0 on boards without one.
var pmWatchdog uintptr

func initPowerManagement() {
	if n := dtb.FindCompatible(-1, "brcm,bcm2835-pm-wdt"); n >= 0 {
		if addr, ok := enabledDevice(n); ok {
			pmWatchdog = cpu.KVA(addr)
		}
	}
}

// Exit ends the run with status. It never returns.
func Exit(status int) {
	if semihosting {
		writeTrace()
		writeProfile()
		semihost.Exit(status)
	}
	Puts("gometal: all cores halted (status ")
	PutDec(int64(status))
	Puts(")\n")
	FBConsoleFlush() // the screen shows the run's last lines
	haltMachine()
}

// haltMachine stops every core for good: the others through the wake-up
// SGI (handleIRQs halts a core that takes it while machineStopping is
// set), then this one. The caller may hold the kernel lock; it is given
// up so that the others can reach their interrupt handler.
func haltMachine() {
	machineStopping.Store(true)
	me := ThisCPU()
	for i := range sched.CPUs {
		if c := &sched.CPUs[i]; c.Online && c != me {
			gic.SendSGI(gic.SGIWake, c.ID)
		}
	}
	if sched.KernelLock.Owner() == me.ID {
		sched.KernelLock.Unlock()
	}
	cpu.Halt()
}

// stopIfStopping halts the calling core if the machine is being
// stopped, giving up the kernel lock if it holds it (a core woken from
// WFI takes the SGI without it).
func stopIfStopping() {
	if machineStopping.Load() {
		if sched.HoldsKernel(ThisCPU()) {
			sched.KernelLock.Unlock()
		}
		cpu.Halt()
	}
}

// PowerOff is reboot(2)'s POWER_OFF and HALT: the run ends with
// status 0 (semihosting), the firmware powers off (PSCI SYSTEM_OFF), or
// the cores halt.
func PowerOff() {
	if !semihosting {
		if c := psciConduit(); c != psci.None {
			psci.SystemOff(c)
		}
	}
	Exit(0)
}

// Restart is reboot(2)'s RESTART: the BCM2711's watchdog resets
// the board (on QEMU with -no-reboot, QEMU exits), else PSCI
// SYSTEM_RESET. It reports false if the board offers neither.
func Restart() bool {
	switch {
	case pmWatchdog != 0:
		logLine("restarting through the PM watchdog")
		bcm2711.Reset(pmWatchdog)
	case psciConduit() != psci.None:
		logLine("restarting through PSCI SYSTEM_RESET")
		psci.SystemReset(psciConduit())
	default:
		return false
	}
	haltMachine() // the reset takes the cores from here
	return true
}
