package linux

// expirations says how many times a timer armed for when, repeating
// every interval (0: once), has expired by now (now >= when), and when
// it expires next (0: never). A periodic timer that a busy system served
// late counts every period it missed, as Linux's timerfd does
// (hrtimer_forward), and stays on its original grid.
func expirations(when, interval, now uint64) (n, next uint64) {
	if interval == 0 {
		return 1, 0
	}
	n = (now-when)/interval + 1
	return n, when + n*interval
}
