package sched

// Alarms are kernel timers that belong to no thread, such as a timerfd's
// next expiration. Like a thread's deadline, an alarm belongs to the core
// that set it: that core's timer is programmed for it (ScheduleLocked, ArmTimer), so
// a core sleeping in WFI wakes for it and no core polls.

// MaxAlarms bounds the alarms: one per timerfd, the network stack's,
// the state dump's, the GPIO debouncer's and the screen console's.
const MaxAlarms = 68

// AlarmNet is the network stack's alarm (TCP's timers, kernel/nic_arm64.go);
// AlarmDump is the state dump's (gometal.dumpafter=, kernel/linux's
// statedump_arm64.go); AlarmGPIO the GPIO lines' software debounce
// (kernel/gpio's debounce.go); AlarmFBCon the screen console's drawing
// (kernel/fbcon_arm64.go); the slots below them are the timerfds'.
const (
	AlarmNet   = MaxAlarms - 1
	AlarmDump  = MaxAlarms - 2
	AlarmGPIO  = MaxAlarms - 3
	AlarmFBCon = MaxAlarms - 4
)

// Alarm is one kernel timer: When is a counter value (0: not armed).
type Alarm struct {
	When uint64
	Core int32
}

// Alarms is the alarm table; the kernel owns the meaning of each slot.
var Alarms [MaxAlarms]Alarm

// AlarmFired is the kernel's hook for an alarm that was due at due and
// is noticed at now; it runs under KernelLock with the alarm already
// disarmed, and may re-arm it.
var AlarmFired func(i int, due, now uint64)

// SetAlarm arms alarm i for when (0 disarms it), owned by core.
func SetAlarm(i int, when uint64, core int) {
	Alarms[i] = Alarm{When: when, Core: int32(core)}
}

// ExpireAlarms runs the hook for every alarm due at now. The hook
// notifies files, so the caller holds KernelLock (and not StateLock).
func ExpireAlarms(now uint64) {
	for i := range Alarms {
		ExpireAlarm(i, now)
	}
}

// ExpireAlarm runs alarm i's hook now if it is due at now, as
// ExpireAlarms would: a reader of a timer need not wait for the owning
// core's interrupt, which a core busy with interrupts masked serves
// late. The caller holds KernelLock.
func ExpireAlarm(i int, now uint64) {
	if a := &Alarms[i]; a.When != 0 && a.When <= now {
		due := a.When
		a.When = 0
		AlarmFired(i, due, now)
	}
}

// AlarmDue reports whether an alarm is due at now. Alarms are set under
// KernelLock and this reads them without it, to decide whether to take
// it: one armed meanwhile belongs to the core that armed it, whose timer
// is set for it.
func AlarmDue(now uint64) bool {
	for i := range Alarms {
		if w := Alarms[i].When; w != 0 && w <= now {
			return true
		}
	}
	return false
}

// nextAlarm returns the earliest alarm owned by core, or 0.
func nextAlarm(core int) uint64 {
	var d uint64
	for i := range Alarms {
		if a := &Alarms[i]; a.When != 0 && int(a.Core) == core && (d == 0 || a.When < d) {
			d = a.When
		}
	}
	return d
}
