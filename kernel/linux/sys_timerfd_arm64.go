package linux

import (
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/clock"
	"github.com/gometal/gometal/kernel/gpio"
	"github.com/gometal/gometal/kernel/usermem"
	"unsafe"

	"github.com/gometal/gometal/drivers/timer"
	"github.com/gometal/gometal/kernel/vfs"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// timerfd: a timer read as a file (timerfd_create(2)). Its next
// expiration is a sched alarm on the core that set it, so it fires from
// that core's timer interrupt: readers blocked on it and epoll waiters
// watching it wake with no core polling. A read returns the number of
// expirations since the last read (8 bytes).

// timerfd_settime flags (include/uapi/linux/timerfd.h).
const (
	tfdTimerAbstime     = 1 << 0
	tfdTimerCancelOnSet = 1 << 1
	tfdCreateFlags      = unix.TFD_CLOEXEC | unix.TFD_NONBLOCK
	tfdSettimeFlags     = tfdTimerAbstime | tfdTimerCancelOnSet
)

func sysTimerfdCreate(t *sched.Thread, f *sched.Frame) uint64 {
	clock, flags := f.X[0], f.X[1]
	if flags&^uint64(tfdCreateFlags) != 0 {
		return errno(unix.EINVAL)
	}
	switch clock {
	case unix.CLOCK_MONOTONIC, unix.CLOCK_BOOTTIME, unix.CLOCK_REALTIME:
	default:
		return errno(unix.EINVAL)
	}
	fd := freeFD(0)
	if fd < 0 {
		return errno(unix.EMFILE)
	}
	tf, i := vfs.NewTimerfd(clock == unix.CLOCK_REALTIME)
	if tf == nil {
		return errno(unix.ENOMEM)
	}
	sched.SetAlarm(i, 0, 0) // a released timerfd's alarm may still be armed
	setFD(fd, vfs.Alloc(tf, unix.O_RDWR|uint32(flags&unix.TFD_NONBLOCK)), flags&unix.TFD_CLOEXEC != 0)
	return uint64(fd)
}

// getTimerfd returns the timerfd descriptor fd refers to, and its index
// (its alarm).
func getTimerfd(fd uint64) (*vfs.Timerfd, int, uint64) {
	fl, ok := getFD(fd)
	if !ok {
		return nil, 0, errno(unix.EBADF)
	}
	tf, ok := fl.Impl.(*vfs.Timerfd)
	if !ok {
		return nil, 0, errno(unix.EINVAL)
	}
	return tf, tf.Index(), 0
}

// putItimerspec writes a timerfd's interval and time to its next
// expiration (zero when disarmed).
func putItimerspec(addr uintptr, tf *vfs.Timerfd, i int) bool {
	var left int64
	if when := sched.Alarms[i].When; when != 0 {
		if now := timer.Now(); when > now {
			left = timer.TicksToNanos(when - now)
		} else {
			left = 1 // due: Linux reports at least 1 ns
		}
	}
	its := unix.ItimerSpec{
		Interval: unix.NsecToTimespec(timer.TicksToNanos(tf.Interval)),
		Value:    unix.NsecToTimespec(left),
	}
	return usermem.CopyOut(addr, usermem.BytesOf(unsafe.Pointer(&its), unsafe.Sizeof(its)))
}

func sysTimerfdGettime(t *sched.Thread, f *sched.Frame) uint64 {
	tf, i, e := getTimerfd(f.X[0])
	if e != 0 {
		return e
	}
	if !putItimerspec(uintptr(f.X[1]), tf, i) {
		return errno(unix.EFAULT)
	}
	return 0
}

func sysTimerfdSettime(t *sched.Thread, f *sched.Frame) uint64 {
	tf, i, e := getTimerfd(f.X[0])
	if e != 0 {
		return e
	}
	flags := f.X[1]
	if flags&^uint64(tfdSettimeFlags) != 0 {
		return errno(unix.EINVAL)
	}
	var its unix.ItimerSpec
	if !usermem.CopyIn(usermem.BytesOf(unsafe.Pointer(&its), unsafe.Sizeof(its)), uintptr(f.X[2])) {
		return errno(unix.EFAULT)
	}
	value, ok1 := timespecNanos(its.Value)
	interval, ok2 := timespecNanos(its.Interval)
	if !ok1 || !ok2 {
		return errno(unix.EINVAL)
	}
	if old := uintptr(f.X[3]); old != 0 && !putItimerspec(old, tf, i) {
		return errno(unix.EFAULT)
	}
	tf.Reset()
	tf.Interval = 0
	// timerfd_setup_cancel: only an absolute wall-clock timer can be
	// cancelled by setting the clock; other flags stop that.
	tf.CancelOnSet = tf.Realtime && flags&(tfdTimerAbstime|tfdTimerCancelOnSet) == tfdTimerAbstime|tfdTimerCancelOnSet
	tf.WallClock = tf.Realtime && flags&tfdTimerAbstime != 0
	if value == 0 {
		sched.SetAlarm(i, 0, 0) // disarm
		return 0
	}
	tf.Interval = timer.NanosToTicks(interval)
	if flags&tfdTimerAbstime != 0 {
		// An absolute time on the timer's clock; the expiration is kept
		// on the monotonic counter, which setting the wall clock moves
		// for a CLOCK_REALTIME timer (clockWasSet).
		clock := uint64(unix.CLOCK_MONOTONIC)
		if tf.Realtime {
			clock = unix.CLOCK_REALTIME
		}
		value, _ = leftUntil(clock, value, entryCounter())
	}
	when := entryCounter() + 1 // due at once
	if value > 0 {
		when = deadlineAfter(value)
	}
	sched.SetAlarm(i, when, kernel.ThisCPU().ID)
	return 0
}

// alarmFired is sched's AlarmFired hook: the network stack's alarm runs
// its timers, the others are timerfds'.
func alarmFired(i int, due, now uint64) {
	if i == sched.AlarmNet {
		kernel.NetTimer(now)
		return
	}
	if i == sched.AlarmDump {
		dumpState("the run's time is nearly up (gometal.dumpafter)")
		return
	}
	if i == sched.AlarmGPIO {
		gpio.Debounced(clock.Monotonic())
		return
	}
	if i == sched.AlarmFBCon {
		kernel.FBConsoleFlush()
		return
	}
	timerfdFired(i, due, now)
}

// timerfdFired counts the expirations, re-arm
// a periodic timer on the same core, and wake readers and epoll waiters
// (vfs.Timerfd.Fire notifies). An alarm whose timerfd was closed is
// dropped.
func timerfdFired(i int, due, now uint64) {
	tf := vfs.TimerfdAt(i)
	if tf == nil {
		return
	}
	n, next := expirations(due, tf.Interval, now)
	if next != 0 {
		sched.SetAlarm(i, next, int(sched.Alarms[i].Core))
	}
	tf.Fire(n)
}

// timerfdCatchUp is vfs's TimerfdCatchUp: timerfd i's alarm, if due, is
// served now by the reader's core instead of the interrupt of its own.
func timerfdCatchUp(i int) {
	sched.ExpireAlarm(i, timer.Now())
}
