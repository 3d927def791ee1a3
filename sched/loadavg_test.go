package sched

import "testing"

// One runnable thread for a minute brings the 1-minute average to
// 1-1/e (0.63), as on Linux; then it decays.
func TestCalcLoad(t *testing.T) {
	var load uint64
	for i := 0; i < 12; i++ { // 12 periods of 5 s
		load = calcLoad(load, exp1, FixedOne)
	}
	if got := float64(load) / FixedOne; got < 0.62 || got > 0.65 {
		t.Errorf("after a minute of 1: %.3f", got)
	}
	for i := 0; i < 12; i++ {
		load = calcLoad(load, exp1, 0)
	}
	if got := float64(load) / FixedOne; got > 0.25 {
		t.Errorf("a minute later: %.3f", got)
	}
}
