package linux

import (
	"testing"

	"golang.org/x/sys/unix"
)

// adjtimex's checks, as Linux's timekeeping_validate_timex makes them.
func TestValidateTimex(t *testing.T) {
	for _, c := range []struct {
		tx   unix.Timex
		root bool
		want unix.Errno
	}{
		{unix.Timex{}, false, 0}, // reading needs no right
		{unix.Timex{Modes: adjFrequency}, false, unix.EPERM},
		{unix.Timex{Modes: 0xa001}, false, 0},          // ADJ_OFFSET_SS_READ: reading adjtime()
		{unix.Timex{Modes: 0x8001}, false, unix.EPERM}, // ADJ_OFFSET_SINGLESHOT: setting it
		{unix.Timex{Modes: 0x8001, Tick: 1}, true, 0},  // the tick is not looked at then
		{unix.Timex{Modes: adjTick, Tick: 8999}, true, unix.EINVAL},
		{unix.Timex{Modes: adjTick, Tick: 9000}, true, 0},
		{unix.Timex{Modes: adjTick, Tick: 11000}, true, 0},
		{unix.Timex{Modes: adjTick, Tick: 11001}, true, unix.EINVAL},
		{unix.Timex{Modes: adjSetoffset, Time: unix.Timeval{Sec: -5, Usec: 999_999}}, true, 0},
		{unix.Timex{Modes: adjSetoffset, Time: unix.Timeval{Usec: 1_000_000}}, true, unix.EINVAL},
		{unix.Timex{Modes: adjSetoffset | adjNano, Time: unix.Timeval{Usec: 999_999_999}}, true, 0},
		{unix.Timex{Modes: adjSetoffset | adjNano, Time: unix.Timeval{Usec: -1}}, true, unix.EINVAL},
		{unix.Timex{Modes: 0x8000 | adjSetoffset, Time: unix.Timeval{Usec: 5}}, true, 0},
		{unix.Timex{Modes: adjFrequency, Freq: int64Max/ppmScale + 1}, true, unix.EINVAL},
		{unix.Timex{Modes: adjFrequency, Freq: int64Min/ppmScale - 1}, true, unix.EINVAL},
		{unix.Timex{Modes: adjFrequency, Freq: int64Max / ppmScale}, true, 0},
	} {
		if got := validateTimex(&c.tx, c.root); got != c.want {
			t.Errorf("modes %#x tick %d time %v freq %d (root %v): %v, want %v", c.tx.Modes, c.tx.Tick, c.tx.Time, c.tx.Freq, c.root, got, c.want)
		}
	}
}

// The state adjtimex reports, from Linux's defaults at boot through the
// changes each mode makes, in Linux's units.
func TestAdjtimexState(t *testing.T) {
	var n ntpState
	const now = 1_700_000_000_123_456_789
	tx := unix.Timex{}
	state, tai := n.adjtimex(&tx, now, 0)
	if state != timeError || tx.Status != staUnsync || tx.Constant != 2 || tx.Maxerror != ntpPhaseLimit ||
		tx.Esterror != ntpPhaseLimit || tx.Tick != 10000 || tx.Precision != 1 || tx.Tolerance != 32768000 || tai != 0 {
		t.Errorf("at boot: state %d %+v", state, tx)
	}
	if tx.Time.Sec != 1_700_000_000 || tx.Time.Usec != 123_456 {
		t.Errorf("time %+v, want microseconds", tx.Time)
	}
	// Synchronised, with a frequency (in ppm << 16), round-tripped as
	// Linux's scaling does, and clamped to 500 ppm.
	for _, c := range []struct{ in, out int64 }{{1 << 16, 1 << 16}, {-(3 << 16), -(3 << 16)}, {1 << 30, 32768000}, {-(1 << 30), -32768000}} {
		tx = unix.Timex{Modes: adjStatus | adjFrequency, Status: staPLL, Freq: c.in}
		state, _ = n.adjtimex(&tx, now, 0)
		if state != timeOK || tx.Freq != c.out || tx.Status != staPLL {
			t.Errorf("freq %d: state %d freq %d status %#x, want %d", c.in, state, tx.Freq, tx.Status, c.out)
		}
	}
	// The read-only bits are not the caller's to set (STA_CLOCKERR,
	// STA_NANO); the others are its, STA_UNSYNC among them.
	tx = unix.Timex{Modes: adjStatus, Status: staClockerr | staNano | 0x10}
	state, _ = n.adjtimex(&tx, now, 0)
	if tx.Status != 0x10 || state != timeOK {
		t.Errorf("status %#x state %d, want 0x10 and TIME_OK", tx.Status, state)
	}
	// Nanoseconds: the time, the offset and the time constant follow.
	tx = unix.Timex{Modes: adjStatus | adjNano | adjOffset | adjTimeconst, Status: staPLL, Offset: 900_000_000, Constant: 3}
	n.adjtimex(&tx, now, 0)
	if tx.Status != staPLL|staNano || tx.Offset != maxPhase || tx.Constant != 3 || tx.Time.Usec != 123_456_789 {
		t.Errorf("nano: %+v", tx)
	}
	tx = unix.Timex{Modes: adjMicro | adjOffset | adjTimeconst, Offset: -20, Constant: 9}
	n.adjtimex(&tx, now, 0)
	if tx.Status != staPLL || tx.Offset != -20 || tx.Constant != maxTC {
		t.Errorf("micro: offset %d constant %d status %#x; want -20 µs, constant clamped to 10", tx.Offset, tx.Constant, tx.Status)
	}
	// Without the PLL an offset is not taken.
	tx = unix.Timex{Modes: adjStatus | adjOffset, Status: 0, Offset: 77}
	n.adjtimex(&tx, now, 0)
	if tx.Offset != -20 {
		t.Errorf("offset without the PLL: %d", tx.Offset)
	}
	// CLOCK_TAI's lead: 0 to 100000 s.
	for _, c := range []struct {
		constant int64
		tai      int32
	}{{37, 37}, {-1, 37}, {0, 0}, {100_001, 0}, {100_000, 100_000}} {
		tx = unix.Timex{Modes: adjTAI, Constant: c.constant}
		if _, tai = n.adjtimex(&tx, now, tai); tai != c.tai || tx.Tai != c.tai {
			t.Errorf("ADJ_TAI %d: %d (reported %d), want %d", c.constant, tai, tx.Tai, c.tai)
		}
	}
	// adjtime(): the single-shot offset answers the one before it.
	tx = unix.Timex{Modes: 0x8001, Offset: 5000}
	n.adjtimex(&tx, now, 0)
	first := tx.Offset
	tx = unix.Timex{Modes: 0xa001, Offset: 1}
	n.adjtimex(&tx, now, 0)
	if first != 0 || tx.Offset != 5000 {
		t.Errorf("adjtime: %d then %d, want 0 then 5000", first, tx.Offset)
	}
	// Setting the clock: adjtime() stops, unsynchronised, errors at
	// their limit (ntp_clear).
	tx = unix.Timex{Modes: adjMaxerror | adjEsterror, Maxerror: 5, Esterror: 6}
	n.adjtimex(&tx, now, 0)
	n.clear()
	tx = unix.Timex{Modes: 0xa001}
	state, _ = n.adjtimex(&tx, now, 0)
	if tx.Offset != 0 || tx.Status&staUnsync == 0 || tx.Maxerror != ntpPhaseLimit || tx.Esterror != ntpPhaseLimit || state != timeError {
		t.Errorf("after clear: state %d %+v", state, tx)
	}
}
