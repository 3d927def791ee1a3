package vfs

import (
	"unsafe"

	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// timerfd (timerfd_create(2)): a timer read as a file. The kernel arms
// the timer (a sched alarm on the core that set it) and calls Fire when
// it expires; a read returns the expirations since the last read (8
// bytes), or waits for the next.

// MaxTimerfds bounds the timerfds (one sched alarm each, the slots
// below the kernel's own: the screen console's, the GPIO debouncer's,
// the state dump's, the network stack's).
const MaxTimerfds = sched.AlarmFBCon

// Timerfd is one timer's expirations and waiters; the kernel keeps its
// clock and period.
type Timerfd struct {
	Base
	W        Waitable
	used     bool
	Realtime bool   // CLOCK_REALTIME: absolute times are wall-clock
	Interval uint64 // counter ticks; 0: one-shot
	count    uint64 // expirations not yet read
	// WallClock: armed for a CLOCK_REALTIME time (TFD_TIMER_ABSTIME),
	// so that its expirations move when the wall clock is set; a
	// relative CLOCK_REALTIME timer runs on the monotonic clock, as
	// Linux's hrtimers make it ("POSIX magic", __hrtimer_init).
	WallClock bool
	// CancelOnSet: armed with TFD_TIMER_ABSTIME|TFD_TIMER_CANCEL_ON_SET
	// on CLOCK_REALTIME; canceled: the clock was set since, and the
	// next read says so (ECANCELED).
	CancelOnSet bool
	canceled    bool
}

var timerfds [MaxTimerfds]Timerfd

// NewTimerfd returns a free timerfd and its index (its alarm), or nil.
func NewTimerfd(realtime bool) (*Timerfd, int) {
	for i := range timerfds {
		if !timerfds[i].used {
			timerfds[i] = Timerfd{used: true, Realtime: realtime}
			return &timerfds[i], i
		}
	}
	return nil, -1
}

// TimerfdAt returns timerfd i, or nil if it is not in use.
func TimerfdAt(i int) *Timerfd {
	if !timerfds[i].used {
		return nil
	}
	return &timerfds[i]
}

// Index is tf's slot number, which is also its sched alarm's.
func (tf *Timerfd) Index() int {
	return int((uintptr(unsafe.Pointer(tf)) - uintptr(unsafe.Pointer(&timerfds[0]))) / unsafe.Sizeof(timerfds[0]))
}

// timerfdSize is the size of what a read returns: a uint64 count.
const timerfdSize = 8

// Fire adds n expirations and wakes readers and watchers.
func (tf *Timerfd) Fire(n uint64) {
	tf.count += n
	Notify(&tf.W, unix.EPOLLIN)
}

// Reset drops expirations not yet read (timerfd_settime); a cancel
// not yet read stays, as Linux keeps it (its moffs) until a read.
func (tf *Timerfd) Reset() { tf.count = 0 }

// ClockWasSet is the wall clock being set: a timer that asked to be
// cancelled then is, and its readers wake to hear it, as Linux's
// timerfd_clock_was_set does (it counts a tick so that they wake).
func (tf *Timerfd) ClockWasSet() {
	if !tf.CancelOnSet {
		return
	}
	tf.canceled = true
	tf.Fire(1)
}

// TimerfdCatchUp, set by the kernel, counts timer i's expirations due
// by now that its core's interrupt has not yet counted. A read counts
// every period up to the moment it runs, as Linux's timerfd_read does
// (hrtimer_forward_now): the interrupt of the core that armed the timer
// can come late when that core is busy with interrupts masked.
var TimerfdCatchUp func(i int)

func (tf *Timerfd) Read(f *File, buf uintptr, n uint64, off int64) uint64 {
	if n < timerfdSize {
		return Err(unix.EINVAL)
	}
	if TimerfdCatchUp != nil {
		TimerfdCatchUp(tf.Index())
	}
	if tf.count == 0 {
		return errAgain
	}
	if tf.canceled && tf.CancelOnSet {
		// timerfd_canceled: the expirations go with the news.
		tf.canceled, tf.count = false, 0
		return Err(unix.ECANCELED)
	}
	if !usermem.WriteU64(buf, tf.count) {
		return Err(unix.EFAULT)
	}
	tf.count = 0
	return timerfdSize
}

func (tf *Timerfd) Readiness(f *File) uint32 {
	if tf.count > 0 {
		return unix.EPOLLIN
	}
	return 0
}

func (tf *Timerfd) Waitable() *Waitable { return &tf.W }
func (tf *Timerfd) Kind() Kind          { return KindTimerfd }

// Release frees the timerfd. Its alarm may still be armed: the kernel
// ignores an alarm whose timerfd is gone (TimerfdAt) and disarms it when
// the slot is handed out again.
func (tf *Timerfd) Release(f *File) { tf.used = false }
