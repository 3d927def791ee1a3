package kernel

import (
	"unsafe"

	"gometal/drivers/timer"
	"gometal/sched"

	"golang.org/x/sys/unix"
)

// timerfd: a timer read as a file (timerfd_create(2)). Its next
// expiration is a sched alarm on the core that set it, so it fires from
// that core's timer interrupt: readers blocked on it and epoll waiters
// watching it wake with no core polling. A read returns the number of
// expirations since the last read (8 bytes).

type timerFD struct {
	used     bool
	refs     int32  // descriptors sharing it (dup)
	realtime bool   // CLOCK_REALTIME: absolute times are wall-clock
	interval uint64 // counter ticks; 0 = one-shot
	count    uint64 // expirations not yet read
	gen      uint32 // bumped on every readiness change (EPOLLET)
}

// One alarm per timerfd: timerfd i uses sched.Alarms[i].
var timerFDs [sched.MaxAlarms]timerFD

// timerfd_settime flags (include/uapi/linux/timerfd.h).
const (
	tfdTimerAbstime     = 1 << 0
	tfdTimerCancelOnSet = 1 << 1
	tfdCreateFlags      = unix.TFD_CLOEXEC | unix.TFD_NONBLOCK
	tfdSettimeFlags     = tfdTimerAbstime | tfdTimerCancelOnSet
	timerfdCountSize    = 8 // a read returns a uint64 count
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
	idx := -1
	for i := range timerFDs {
		if !timerFDs[i].used {
			idx = i
			break
		}
	}
	if idx < 0 {
		return errno(unix.ENOMEM)
	}
	fd, fl := allocFD(0)
	if fl == nil {
		return errno(unix.EMFILE)
	}
	timerFDs[idx] = timerFD{used: true, refs: 1, realtime: clock == unix.CLOCK_REALTIME}
	sched.SetAlarm(idx, 0, 0)
	fl.kind = kindTimerfd
	fl.tfd = int32(idx)
	fl.flags = unix.O_RDWR | uint32(flags&unix.TFD_NONBLOCK)
	setCloexec(fd, flags&unix.TFD_CLOEXEC != 0)
	return uint64(fd)
}

// timerfdRef adds delta descriptors to a timerfd and frees it (and its
// alarm) when none is left.
func timerfdRef(i int32, delta int32) {
	tf := &timerFDs[i]
	tf.refs += delta
	if tf.refs <= 0 {
		*tf = timerFD{}
		sched.SetAlarm(int(i), 0, 0)
	}
}

func getTimerfd(fd uint64) (int32, uint64) {
	fl, ok := getFD(fd)
	if !ok {
		return 0, errno(unix.EBADF)
	}
	if fl.kind != kindTimerfd {
		return 0, errno(unix.EINVAL)
	}
	return fl.tfd, 0
}

// putItimerspec writes a timerfd's interval and time to its next
// expiration (zero when disarmed).
func putItimerspec(addr uintptr, i int32) bool {
	var left int64
	if when := sched.Alarms[i].When; when != 0 {
		if now := timer.Now(); when > now {
			left = timer.TicksToNanos(when - now)
		} else {
			left = 1 // due: Linux reports at least 1 ns
		}
	}
	its := unix.ItimerSpec{
		Interval: unix.NsecToTimespec(timer.TicksToNanos(timerFDs[i].interval)),
		Value:    unix.NsecToTimespec(left),
	}
	return copyOut(addr, bytesOf(unsafe.Pointer(&its), unsafe.Sizeof(its)))
}

func sysTimerfdGettime(t *sched.Thread, f *sched.Frame) uint64 {
	i, e := getTimerfd(f.X[0])
	if e != 0 {
		return e
	}
	if !putItimerspec(uintptr(f.X[1]), i) {
		return errno(unix.EFAULT)
	}
	return 0
}

func sysTimerfdSettime(t *sched.Thread, f *sched.Frame) uint64 {
	i, e := getTimerfd(f.X[0])
	if e != 0 {
		return e
	}
	flags := f.X[1]
	if flags&^uint64(tfdSettimeFlags) != 0 {
		return errno(unix.EINVAL)
	}
	var its unix.ItimerSpec
	if !copyIn(bytesOf(unsafe.Pointer(&its), unsafe.Sizeof(its)), uintptr(f.X[2])) {
		return errno(unix.EFAULT)
	}
	value, ok1 := timespecNanos(its.Value)
	interval, ok2 := timespecNanos(its.Interval)
	if !ok1 || !ok2 {
		return errno(unix.EINVAL)
	}
	if old := uintptr(f.X[3]); old != 0 && !putItimerspec(old, i) {
		return errno(unix.EFAULT)
	}
	tf := &timerFDs[i]
	tf.count = 0
	tf.gen++
	tf.interval = 0
	if value == 0 {
		sched.SetAlarm(int(i), 0, 0) // disarm
		return 0
	}
	tf.interval = timer.NanosToTicks(interval)
	if flags&tfdTimerAbstime != 0 {
		// An absolute time on the timer's clock; the expiration is kept
		// on the monotonic counter (a later clock_settime would not move
		// it: gometal has no clock_settime).
		clock := uint64(unix.CLOCK_MONOTONIC)
		if tf.realtime {
			clock = unix.CLOCK_REALTIME
		}
		now, _ := nowNanos(clock)
		value -= now
	}
	when := timer.Now() + 1
	if value > 0 {
		when = deadlineAfter(value)
	}
	sched.SetAlarm(int(i), when, thisCPU().ID)
	return 0
}

// timerfdFired is sched's AlarmFired hook: count the expirations, re-arm
// a periodic timer on the same core, and wake readers and epoll waiters.
func timerfdFired(i int, due, now uint64) {
	tf := &timerFDs[i]
	if !tf.used {
		return
	}
	n, next := expirations(due, tf.interval, now)
	tf.count += n
	tf.gen++
	if next != 0 {
		sched.SetAlarm(i, next, int(sched.Alarms[i].Core))
	}
	retryWaiters(sched.WaitTimerfd, uintptr(i))
	epollNotify()
}

func timerfdRead(t *sched.Thread, fl *file, buf uintptr, n uint64) uint64 {
	if n < timerfdCountSize {
		return errno(unix.EINVAL)
	}
	tf := &timerFDs[fl.tfd]
	if tf.count == 0 {
		if fl.flags&unix.O_NONBLOCK != 0 {
			return errno(unix.EAGAIN)
		}
		sched.WaitOn(t, sched.WaitTimerfd, uintptr(fl.tfd), 0, 0)
		return 0
	}
	if !writeU64(buf, tf.count) {
		return errno(unix.EFAULT)
	}
	tf.count = 0
	tf.gen++
	return timerfdCountSize
}

// retryWaiters makes every thread blocked with kind w on addr run its
// syscall again (PC back to the SVC, X0 back to its first argument), so
// that a blocked read completes on the reader's own core and in its own
// address-space context rather than in the waker's.
func retryWaiters(w sched.WaitKind, addr uintptr) {
	for i := range sched.Active() {
		t := &sched.Threads[i]
		if t.State == sched.Blocked && t.Wait == w && t.WaitAddr == addr {
			t.Ctx.X[0] = t.OrigX0
			t.Ctx.PC -= svcInsnSize
			sched.Ready(t)
		}
	}
}
