package linux

import (
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/klog"
	"github.com/gometal/gometal/kernel/mm"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// Magic SysRq (Documentation/admin-guide/sysrq.rst): a BREAK on the
// serial console and then a key (gometal run: Ctrl-A b, then the key),
// or the key written to /proc/sysrq-trigger, has the kernel say what it
// is doing whatever the program does — how a run that went quiet
// explains itself while it still runs. The commands kept are Linux's
// letters for what gometal can show.

// sysrq is tty.SysRq and /proc/sysrq-trigger's write. Its one-line
// answers are kernel log records worded as Linux 6.1's (dmesg shows
// them; a reader blocked on /dev/kmsg wakes for them), shown on the
// console whatever its level, as __handle_sysrq raises console_loglevel
// around them.
func sysrq(c byte) {
	switch c {
	case 't', 'w', 'l':
		// Linux: t every task, w the blocked ones, l every core's
		// backtrace; gometal's dump shows all three at once.
		dumpState("SysRq: show-task-states")
		return
	}
	level := klog.ConsoleLevel
	klog.ConsoleLevel = max(level, klog.LevelDebug)
	if c == 'o' {
		// Linux's power-off key (sysrq_poweroff_op): the machine stops
		// as reboot(POWER_OFF) stops it, so a run that hangs can still
		// end with its kernel trace and profile written.
		kernel.Info("sysrq: Power Off")
		kernel.InfoEnd()
		klog.ConsoleLevel = level
		kernel.PowerOff()
		return
	}
	if c == 'm' {
		kernel.Info("sysrq: Show Memory: ")
		kernel.PutDec(int64((mm.Pages.Total() - mm.Pages.Used()) * mm.PageSize >> 10))
		kernel.Puts(" KiB free of ")
		kernel.PutDec(int64(mm.Pages.Total() * mm.PageSize >> 10))
		kernel.Puts(" KiB")
	} else {
		kernel.Info("sysrq: HELP : show-task-states(t) show-blocked-tasks(w) show-backtrace-all-active-cpus(l) show-memory-usage(m) poweroff(o)")
	}
	kernel.InfoEnd()
	klog.ConsoleLevel = level
}

// writeSysrqTrigger is a write to /proc/sysrq-trigger: each byte a
// command, as Linux's write_sysrq_trigger (which reads one; gometal
// runs every byte but newlines and spaces).
func writeSysrqTrigger(buf uintptr, n uint64) uint64 {
	var b [16]byte
	m := min(n, uint64(len(b)))
	if !usermem.CopyIn(b[:m], buf) {
		return vfs.Err(unix.EFAULT)
	}
	for _, c := range b[:m] {
		if c != '\n' && c != ' ' {
			sysrq(c)
		}
	}
	return n
}
