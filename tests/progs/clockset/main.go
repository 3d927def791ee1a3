//go:build linux && arm64

// Command clockset sets clocks: clock_settime, settimeofday, adjtimex
// and clock_adjtime with good and bad clocks, times, time zones and
// timexes, as root and as another user, and what waits for a wall-clock
// time when the wall clock moves (an absolute clock_nanosleep, a
// FUTEX_CLOCK_REALTIME wait, CLOCK_REALTIME timerfds, one that asked to
// be cancelled). It prints what each call answered and how the clocks
// moved, so that its output compares line for line with Linux's as
// init.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

func say(format string, args ...any) { fmt.Printf("clockset: "+format+"\n", args...) }

// errOf is a raw call's errno as Result names it.
func errOf(e unix.Errno) string {
	if e == 0 {
		return "ok"
	}
	return guest.Result(e)
}

func settime(id int, ts *unix.Timespec) string {
	_, _, e := unix.Syscall(unix.SYS_CLOCK_SETTIME, uintptr(id), uintptr(unsafe.Pointer(ts)), 0)
	return errOf(e)
}

func settimeRaw(id int, p uintptr) string {
	_, _, e := unix.Syscall(unix.SYS_CLOCK_SETTIME, uintptr(id), p, 0)
	return errOf(e)
}

func settimeofday(tv *unix.Timeval, tz *[2]int32) string {
	_, _, e := unix.Syscall(unix.SYS_SETTIMEOFDAY, uintptr(unsafe.Pointer(tv)), uintptr(unsafe.Pointer(tz)), 0)
	return errOf(e)
}

func adjtimex(tx *unix.Timex) (int, string) {
	r, _, e := unix.Syscall(unix.SYS_ADJTIMEX, uintptr(unsafe.Pointer(tx)), 0, 0)
	return int(r), errOf(e)
}

func clockAdjtime(id int, tx *unix.Timex) (int, string) {
	r, _, e := unix.Syscall(unix.SYS_CLOCK_ADJTIME, uintptr(id), uintptr(unsafe.Pointer(tx)), 0)
	return int(r), errOf(e)
}

// now reads a clock in seconds.
func now(id int) int64 {
	var ts unix.Timespec
	unix.ClockGettime(int32(id), &ts)
	return ts.Sec
}

// near says whether got is within 3 s of want (the run's own pace).
func near(got, want int64) string {
	if got >= want && got <= want+3 {
		return "as set"
	}
	return fmt.Sprintf("%d s off", got-want)
}

// cpuClock is a CPU-time clock ID (include/linux/posix-timers.h).
func cpuClock(pid int, thread bool) int {
	id := ^pid<<3 | 2 // CPUCLOCK_SCHED
	if thread {
		id |= 4
	}
	return int(int32(id))
}

const (
	t2033 = 2_000_000_000 // 2033-05-18
	hour  = 3600
)

func main() {
	runtime.LockOSThread()
	setters()
	wallClock()
	ntpState()
	waiters()
	unprivileged()
	say("done")
	if os.Getpid() == 1 {
		unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
	}
}

// setters: which clocks can be set, and which times.
func setters() {
	ok := unix.Timespec{Sec: t2033}
	say("clock_settime CLOCK_MONOTONIC: %s", settime(unix.CLOCK_MONOTONIC, &ok))
	say("clock_settime CLOCK_TAI: %s", settime(unix.CLOCK_TAI, &ok))
	say("clock_settime CLOCK_REALTIME_COARSE: %s", settime(unix.CLOCK_REALTIME_COARSE, &ok))
	say("clock_settime CLOCK_PROCESS_CPUTIME_ID: %s", settime(unix.CLOCK_PROCESS_CPUTIME_ID, &ok))
	say("clock_settime clock 10: %s", settime(10, &ok))
	say("clock_settime clock 16: %s", settime(16, &ok))
	say("clock_settime CLOCK_MONOTONIC, NULL: %s", settimeRaw(unix.CLOCK_MONOTONIC, 0))
	say("clock_settime CLOCK_REALTIME, NULL: %s", settimeRaw(unix.CLOCK_REALTIME, 0))
	say("clock_settime own process's CPU clock: %s", settime(cpuClock(0, false), &ok))
	say("clock_settime own thread's CPU clock: %s", settime(cpuClock(unix.Gettid(), true), &ok))
	say("clock_settime own process's CPU clock, NULL: %s", settimeRaw(cpuClock(os.Getpid(), false), 0))
	say("clock_settime CPU clock of PID 4000000: %s", settime(cpuClock(4_000_000, false), &ok))
	say("clock_settime a descriptor's clock (stdin): %s", settime(int(int32(^0<<3|3)), &ok))
	for _, ts := range []unix.Timespec{{Sec: -1}, {Sec: 10, Nsec: -1}, {Sec: 10, Nsec: 1e9}, {Sec: 0}, {Sec: 1 << 33}, {Sec: 1 << 40}} {
		say("clock_settime CLOCK_REALTIME {%d %d}: %s", ts.Sec, ts.Nsec, settime(unix.CLOCK_REALTIME, &ts))
	}
}

// wallClock: setting it moves CLOCK_REALTIME, CLOCK_TAI, gettimeofday
// and the vDSO's reading, never CLOCK_MONOTONIC; settimeofday's time
// zone.
func wallClock() {
	mono := now(unix.CLOCK_MONOTONIC)
	ts := unix.Timespec{Sec: t2033}
	say("clock_settime CLOCK_REALTIME 2033: %s", settime(unix.CLOCK_REALTIME, &ts))
	var tv unix.Timeval
	unix.Gettimeofday(&tv)
	say("then CLOCK_REALTIME %s, CLOCK_TAI %s, gettimeofday %s, time.Now %s, CLOCK_MONOTONIC %s",
		near(now(unix.CLOCK_REALTIME), t2033), near(now(unix.CLOCK_TAI), t2033), near(tv.Sec, t2033),
		near(time.Now().Unix(), t2033), near(now(unix.CLOCK_MONOTONIC), mono))
	for _, c := range []struct {
		tv *unix.Timeval
		tz *[2]int32
	}{
		{&unix.Timeval{Sec: t2033, Usec: 1_000_000}, nil},
		{&unix.Timeval{Sec: t2033, Usec: -1}, nil},
		{&unix.Timeval{Sec: -1}, nil},
		{nil, &[2]int32{901, 0}},
		{nil, &[2]int32{-901, 0}},
		{&unix.Timeval{Sec: t2033 + hour}, &[2]int32{901, 0}},
		{nil, nil},
	} {
		var tvs, tzs = "NULL", "NULL"
		if c.tv != nil {
			tvs = fmt.Sprintf("{%d %d}", c.tv.Sec, c.tv.Usec)
		}
		if c.tz != nil {
			tzs = fmt.Sprint(*c.tz)
		}
		say("settimeofday %s %s: %s", tvs, tzs, settimeofday(c.tv, c.tz))
	}
	_, _, e := unix.Syscall(unix.SYS_SETTIMEOFDAY, 0, 8, 0)
	say("settimeofday NULL, bad time zone pointer: %s", errOf(e))
	// The first time zone set without a time moves the clock to UTC: the
	// RTC kept local time (timekeeping_warp_clock), once.
	say("settimeofday NULL [-60 1]: %s", settimeofday(nil, &[2]int32{-60, 1}))
	say("then CLOCK_REALTIME %s", near(now(unix.CLOCK_REALTIME), t2033-hour))
	say("settimeofday NULL [120 0]: %s", settimeofday(nil, &[2]int32{120, 0}))
	say("then CLOCK_REALTIME %s", near(now(unix.CLOCK_REALTIME), t2033-hour))
	var tz [2]int32
	_, _, e = unix.Syscall(unix.SYS_GETTIMEOFDAY, 0, uintptr(unsafe.Pointer(&tz)), 0)
	say("gettimeofday's time zone: %v %s", tz, errOf(e))
	say("settimeofday {2033+1h 500000} NULL: %s", settimeofday(&unix.Timeval{Sec: t2033 + hour, Usec: 500_000}, nil))
	say("then CLOCK_REALTIME %s", near(now(unix.CLOCK_REALTIME), t2033+hour))
	say("settimeofday NULL [0 0]: %s", settimeofday(nil, &[2]int32{0, 0}))
}

// ntpState: adjtimex's state and modes, ADJ_SETOFFSET, CLOCK_TAI's
// lead, clock_adjtime's clocks.
func ntpState() {
	show := func(what string, tx *unix.Timex, r int, e string) {
		say("%s: %d %s; status %#x constant %d tick %d maxerror %d esterror %d freq %d offset %d tai %d precision %d tolerance %d",
			what, r, e, tx.Status, tx.Constant, tx.Tick, tx.Maxerror, tx.Esterror, tx.Freq, tx.Offset, tx.Tai, tx.Precision, tx.Tolerance)
	}
	var tx unix.Timex
	r, e := adjtimex(&tx)
	show("adjtimex read", &tx, r, e)
	tx = unix.Timex{Modes: 0x0010 | 0x0002 | 0x0020 | 0x0004 | 0x0008, Status: 0x0001, Freq: 3 << 16, Constant: 3, Maxerror: 1000, Esterror: 20}
	r, e = adjtimex(&tx)
	show("adjtimex PLL, frequency, constant, errors", &tx, r, e)
	tx = unix.Timex{Modes: 0x2000 | 0x0001, Offset: 250_000}
	r, e = adjtimex(&tx)
	show("adjtimex nanoseconds, offset", &tx, r, e)
	tx = unix.Timex{Modes: 0x1000 | 0x0002, Freq: 1 << 30}
	r, e = adjtimex(&tx)
	show("adjtimex microseconds, frequency past 500 ppm", &tx, r, e)
	tx = unix.Timex{Modes: 0x4000, Tick: 8999, Freq: 77}
	r, e = adjtimex(&tx)
	say("adjtimex tick 8999: %d %s, freq written back %d", r, e, tx.Freq)
	tx = unix.Timex{Modes: 0x0002, Freq: 1 << 62}
	r, e = adjtimex(&tx)
	say("adjtimex frequency 2^62: %d %s", r, e)
	tx = unix.Timex{Modes: 0x0010 | 0x0002 | 0x0001, Status: 0x0040}
	r, e = adjtimex(&tx)
	show("adjtimex unsynchronised, frequency 0", &tx, r, e)
	_, _, en := unix.Syscall(unix.SYS_ADJTIMEX, 8, 0, 0)
	say("adjtimex bad pointer: %s", errOf(en))
	// adjtime(): the single-shot offset answers the one before.
	tx = unix.Timex{Modes: 0x8001, Offset: 5000}
	r, e = adjtimex(&tx)
	say("adjtimex ADJ_OFFSET_SINGLESHOT 5000: %d %s, before %d", r, e, tx.Offset)
	tx = unix.Timex{Modes: 0xa001}
	r, e = adjtimex(&tx)
	say("adjtimex ADJ_OFFSET_SS_READ: %d %s, offset %d", r, e, tx.Offset)
	// Stepping the clock, which ends adjtime() (ntp_clear).
	before := now(unix.CLOCK_REALTIME)
	tx = unix.Timex{Modes: 0x0100, Time: unix.Timeval{Sec: 100, Usec: 999_999}}
	r, e = adjtimex(&tx)
	say("adjtimex ADJ_SETOFFSET +100.999999 s: %d %s, CLOCK_REALTIME %s", r, e, near(now(unix.CLOCK_REALTIME), before+100))
	tx = unix.Timex{Modes: 0xa001}
	adjtimex(&tx)
	say("then ADJ_OFFSET_SS_READ: offset %d", tx.Offset)
	before = now(unix.CLOCK_REALTIME)
	tx = unix.Timex{Modes: 0x0100 | 0x2000, Time: unix.Timeval{Sec: -51, Usec: 500_000_000}}
	r, e = adjtimex(&tx)
	say("adjtimex ADJ_SETOFFSET -50.5 s (nanoseconds): %d %s, CLOCK_REALTIME %s", r, e, near(now(unix.CLOCK_REALTIME), before-51))
	for _, c := range []unix.Timex{
		{Modes: 0x0100, Time: unix.Timeval{Sec: 1, Usec: 1_000_000}},
		{Modes: 0x0100, Time: unix.Timeval{Sec: 1, Usec: -1}},
		{Modes: 0x0100, Time: unix.Timeval{Sec: -4_000_000_000}},
		{Modes: 0x0100, Time: unix.Timeval{Sec: 1 << 40}},
	} {
		tx = c
		r, e = adjtimex(&tx)
		say("adjtimex ADJ_SETOFFSET {%d %d}: %d %s", c.Time.Sec, c.Time.Usec, r, e)
	}
	// CLOCK_TAI's lead.
	for _, k := range []int64{37, -1, 100_001} {
		tx = unix.Timex{Modes: 0x0080, Constant: k}
		r, e = adjtimex(&tx)
		say("adjtimex ADJ_TAI %d: %d %s, tai %d, CLOCK_TAI - CLOCK_REALTIME %d s", k, r, e, tx.Tai, now(unix.CLOCK_TAI)-now(unix.CLOCK_REALTIME))
	}
	tx = unix.Timex{Modes: 0x0080, Constant: 0}
	adjtimex(&tx)
	for _, c := range []struct {
		name string
		id   int
	}{
		{"CLOCK_REALTIME", unix.CLOCK_REALTIME}, {"CLOCK_MONOTONIC", unix.CLOCK_MONOTONIC}, {"CLOCK_TAI", unix.CLOCK_TAI},
		{"CLOCK_BOOTTIME", unix.CLOCK_BOOTTIME}, {"clock 10", 10}, {"clock 12", 12}, {"own CPU clock", cpuClock(0, false)},
		{"a descriptor's clock", int(int32(^0<<3 | 3))},
	} {
		tx = unix.Timex{}
		r, e = clockAdjtime(c.id, &tx)
		say("clock_adjtime %s: %d %s", c.name, r, e)
	}
	_, _, en = unix.Syscall(unix.SYS_CLOCK_ADJTIME, 10, 8, 0)
	say("clock_adjtime clock 10, bad pointer: %s", errOf(en))
}

// waiters: what waits for a wall-clock time follows the clock.
func waiters() {
	base := now(unix.CLOCK_REALTIME)
	// A timerfd that asked to be cancelled when the clock is set.
	cancel, _ := unix.TimerfdCreate(unix.CLOCK_REALTIME, unix.TFD_NONBLOCK)
	unix.TimerfdSettime(cancel, unix.TFD_TIMER_ABSTIME|2 /* TFD_TIMER_CANCEL_ON_SET */, &unix.ItimerSpec{Value: unix.Timespec{Sec: base + 10*hour}}, nil)
	// Absolute and relative CLOCK_REALTIME timers an hour away, and a
	// CLOCK_MONOTONIC one.
	abs, _ := unix.TimerfdCreate(unix.CLOCK_REALTIME, unix.TFD_NONBLOCK)
	unix.TimerfdSettime(abs, unix.TFD_TIMER_ABSTIME, &unix.ItimerSpec{Value: unix.Timespec{Sec: base + hour}}, nil)
	rel, _ := unix.TimerfdCreate(unix.CLOCK_REALTIME, unix.TFD_NONBLOCK)
	unix.TimerfdSettime(rel, 0, &unix.ItimerSpec{Value: unix.Timespec{Sec: hour}}, nil)
	mono, _ := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK)
	unix.TimerfdSettime(mono, 0, &unix.ItimerSpec{Value: unix.Timespec{Sec: hour}}, nil)
	// A sleep and a futex wait until an hour from now on the wall clock.
	var slept, waited atomic.Int32
	var word uint32
	go func() {
		runtime.LockOSThread()
		ts := unix.Timespec{Sec: base + hour}
		for unix.ClockNanosleep(unix.CLOCK_REALTIME, unix.TIMER_ABSTIME, &ts, nil) == unix.EINTR {
		}
		slept.Store(1)
	}()
	go func() {
		runtime.LockOSThread()
		ts := unix.Timespec{Sec: base + hour}
		const waitBitset, private, clockRealtime = 9, 128, 256
		for {
			_, _, e := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&word)), waitBitset|private|clockRealtime, 0, uintptr(unsafe.Pointer(&ts)), 0, ^uintptr(0))
			if e == unix.ETIMEDOUT {
				break
			}
		}
		waited.Store(1)
	}()
	time.Sleep(300 * time.Millisecond)
	var buf [8]byte
	_, err := unix.Read(cancel, buf[:])
	say("before the clock moves: the cancel-on-set timerfd reads %s", guest.Result(err))
	ts := unix.Timespec{Sec: base + 2*hour}
	say("clock_settime CLOCK_REALTIME two hours on: %s", settime(unix.CLOCK_REALTIME, &ts))
	deadline := time.Now().Add(5 * time.Second)
	for (slept.Load() == 0 || waited.Load() == 0) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	say("the absolute sleep ended: %v; the FUTEX_CLOCK_REALTIME wait timed out: %v", slept.Load() == 1, waited.Load() == 1)
	time.Sleep(100 * time.Millisecond)
	for _, c := range []struct {
		name string
		fd   int
	}{{"cancel-on-set", cancel}, {"cancel-on-set again", cancel}, {"absolute", abs}, {"relative", rel}, {"monotonic", mono}} {
		n, err := unix.Read(c.fd, buf[:])
		exp := uint64(0)
		if n == 8 {
			exp = *(*uint64)(unsafe.Pointer(&buf[0]))
		}
		say("the %s timerfd reads %s, %d expirations", c.name, guest.Result(err), exp)
	}
	// Re-armed, it is cancelled by the next set; a timer that did not
	// ask is not.
	unix.TimerfdSettime(cancel, unix.TFD_TIMER_ABSTIME|2, &unix.ItimerSpec{Value: unix.Timespec{Sec: base + 10*hour}}, nil)
	unix.TimerfdSettime(abs, unix.TFD_TIMER_ABSTIME, &unix.ItimerSpec{Value: unix.Timespec{Sec: base + 10*hour}}, nil)
	ts = unix.Timespec{Sec: base + 3*hour}
	settime(unix.CLOCK_REALTIME, &ts)
	_, err = unix.Read(cancel, buf[:])
	_, err2 := unix.Read(abs, buf[:])
	say("set again: the cancel-on-set timerfd reads %s, the other %s", guest.Result(err), guest.Result(err2))
	var its unix.ItimerSpec
	unix.TimerfdGettime(abs, &its)
	say("the other's time left: %d h", (its.Value.Sec+hour/2)/hour)
	for _, fd := range []int{cancel, abs, rel, mono} {
		unix.Close(fd)
	}
}

// unprivileged: another user may read the state, not change it.
func unprivileged() {
	if err := unix.Setresuid(1000, 1000, 1000); err != nil {
		say("setresuid: %v", err)
		return
	}
	ts := unix.Timespec{Sec: t2033}
	say("as uid 1000: clock_settime CLOCK_REALTIME: %s", settime(unix.CLOCK_REALTIME, &ts))
	say("as uid 1000: clock_settime CLOCK_REALTIME {-1 0}: %s", settime(unix.CLOCK_REALTIME, &unix.Timespec{Sec: -1}))
	say("as uid 1000: settimeofday NULL NULL: %s", settimeofday(nil, nil))
	say("as uid 1000: settimeofday NULL [0 0]: %s", settimeofday(nil, &[2]int32{0, 0}))
	tx := unix.Timex{}
	r, e := adjtimex(&tx)
	say("as uid 1000: adjtimex read: %d %s", r, e)
	tx = unix.Timex{Modes: 0xa001}
	r, e = adjtimex(&tx)
	say("as uid 1000: adjtimex ADJ_OFFSET_SS_READ: %d %s", r, e)
	for _, m := range []uint32{0x0002, 0x8001, 0x0100} {
		tx = unix.Timex{Modes: m}
		r, e = adjtimex(&tx)
		say("as uid 1000: adjtimex modes %#x: %d %s", m, r, e)
	}
	tx = unix.Timex{Modes: 0x4000, Tick: 1}
	r, e = adjtimex(&tx)
	say("as uid 1000: adjtimex tick 1: %d %s", r, e)
}
