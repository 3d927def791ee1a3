package tests

import "testing"

// Timed waits (nanosleep, FUTEX_WAIT with a timeout) never end before
// their time, also now that an idle core arms its timer early and polls
// the last stretch (sched/idlepoll_arm64.go), and a timed wait woken near
// its deadline ends with the wake or the timeout, never both or neither
// (tests/progs/timeouts). Under QEMU's TCG a halted core's timer is always
// tens of µs late, so the polling must have happened, or the test proved
// nothing about it.
func TestTimedWaitsNeverEarly(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "4", "-env", "GOMETAL_STATS=1", "./tests/progs/timeouts")
	expectTimedWaits(t, r)
	logLine(t, r.out, `nanosleep 1ms .*`)
	logLine(t, r.out, `near the deadline: .*`)
}

// expectTimedWaits checks a run of tests/progs/timeouts with the stats
// on: every check passed, and some idle wait polled its last stretch.
func expectTimedWaits(t *testing.T, r result) {
	t.Helper()
	r.expectClean(t, 0, "nanosleep 1ms", "near the deadline: 200 timed waits", "PASS")
	logLine(t, r.out, `stats: wake-ups: .*`)
	if r.counter(t, `idle-polls=(\d+)`) == 0 {
		t.Errorf("no idle wait polled its last stretch (stats: idle-polls=0)")
	}
}
