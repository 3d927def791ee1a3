package linux

import "testing"

func TestTimerfdExpirations(t *testing.T) {
	cases := []struct{ when, interval, now, n, next uint64 }{
		{100, 0, 100, 1, 0},    // one-shot, on time
		{100, 0, 5000, 1, 0},   // one-shot, late: still one
		{100, 10, 100, 1, 110}, // periodic, on time
		{100, 10, 109, 1, 110}, // within the first period
		{100, 10, 110, 2, 120}, // exactly one period late
		{100, 10, 135, 4, 140}, // missed 3 periods: all counted, grid kept
	}
	for _, c := range cases {
		n, next := expirations(c.when, c.interval, c.now)
		if n != c.n || next != c.next {
			t.Errorf("expirations(%d, %d, %d) = %d, %d; want %d, %d", c.when, c.interval, c.now, n, next, c.n, c.next)
		}
	}
}
