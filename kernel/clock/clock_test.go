package clock

import (
	"testing"

	"golang.org/x/sys/unix"
)

// Setting and stepping the wall clock refuses what Linux's
// do_settimeofday64 and timekeeping_inject_offset refuse, and moves
// CLOCK_REALTIME and CLOCK_TAI, never CLOCK_MONOTONIC.
func TestSetAndStep(t *testing.T) {
	defer func(w int64) { WallAtBoot = w; SetTAI(0) }(WallAtBoot)
	const mono = 5e9 // the monotonic clock at the calls: 5 s after boot
	WallAtBoot = 1_700_000_000e9
	for _, c := range []struct {
		sec, nsec int64
		ok        bool
	}{
		{1_800_000_000, 0, true},
		{0, 0, false},               // before the boot (the wall clock below the monotonic clock)
		{4, 999_999_999, false},     // still before it
		{5, 0, true},                // the boot itself
		{-1, 0, false},              // timespec64_valid_settod
		{10, -1, false},             // nanoseconds out of range
		{10, 1e9, false},            //
		{SettodSecMax - 1, 0, true}, // the last second allowed
		{SettodSecMax, 0, false},    //
		{1 << 62, 0, false},         //
	} {
		WallAtBoot = 1_700_000_000e9
		if got := Set(c.sec, c.nsec, mono); got != c.ok {
			t.Errorf("Set(%d, %d) = %v, want %v", c.sec, c.nsec, got, c.ok)
		}
		if want := c.sec*1e9 + c.nsec - mono; c.ok && WallAtBoot != want {
			t.Errorf("Set(%d, %d): WallAtBoot %d, want %d", c.sec, c.nsec, WallAtBoot, want)
		}
		if !c.ok && WallAtBoot != 1_700_000_000e9 {
			t.Errorf("Set(%d, %d) refused but moved the clock", c.sec, c.nsec)
		}
	}
	for _, c := range []struct {
		sec, nsec int64
		ok        bool
		wall      int64 // WallAtBoot after
	}{
		{1, 500_000_000, true, 1_700_000_001_500_000_000},
		{-1, 500_000_000, true, 1_699_999_999_500_000_000},
		{0, -1, false, 0},
		{0, 1e9, false, 0},
		{-1_700_000_001, 0, false, 0},         // below the monotonic clock
		{-1_700_000_000, 0, true, -5e9 + 5e9}, // exactly the boot: realtime 5 s
		{SettodSecMax, 0, false, 0},           // too late
		{-1 << 62, 0, false, 0},               // no overflow
		{1 << 62, 999_999_999, false, 0},      //
	} {
		WallAtBoot = 1_700_000_000e9
		if got := Step(c.sec, c.nsec, mono); got != c.ok {
			t.Errorf("Step(%d, %d) = %v, want %v", c.sec, c.nsec, got, c.ok)
		}
		if c.ok && WallAtBoot != c.wall {
			t.Errorf("Step(%d, %d): WallAtBoot %d, want %d", c.sec, c.nsec, WallAtBoot, c.wall)
		}
	}
	WallAtBoot = 1_700_000_000e9
	SetTAI(37)
	if r, _ := At(unix.CLOCK_REALTIME, mono); r != 1_700_000_005e9 {
		t.Errorf("CLOCK_REALTIME %d", r)
	}
	if r, _ := At(unix.CLOCK_TAI, mono); r != 1_700_000_042e9 {
		t.Errorf("CLOCK_TAI %d, want 37 s past CLOCK_REALTIME", r)
	}
	if r, _ := At(unix.CLOCK_MONOTONIC, mono); r != mono {
		t.Errorf("CLOCK_MONOTONIC %d", r)
	}
}
