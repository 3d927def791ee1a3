package locks

// Deadlock detection for F_SETLKW (locks.c's posix_locks_deadlock): an
// owner about to wait for a lock another owner holds may not, if that
// owner waits, directly or through others, for one of its own: EDEADLK.
// Only POSIX owners are followed, as on Linux (an OFD lock's owner is a
// description, which may be shared; locks.c skips them too).

const maxWaits = 256

// wait records that Owner waits for a lock BlockedBy holds.
type wait struct {
	Owner, BlockedBy uint64
}

var waits [maxWaits]wait

// WouldDeadlock says whether owner waiting for blocker closes a cycle
// (a chain no longer than maxWaits is followed).
func WouldDeadlock(owner, blocker uint64) bool {
	for hops := 0; hops < maxWaits; hops++ {
		if blocker == owner {
			return true
		}
		next := uint64(0)
		for i := range waits {
			if waits[i].Owner == blocker && blocker != 0 {
				next = waits[i].BlockedBy
				break
			}
		}
		if next == 0 {
			return false
		}
		blocker = next
	}
	return false
}

// Waiting records owner waiting for blocker (0: no longer waiting); an
// owner waits for one lock at a time. False when the table is full
// (the caller then cannot check for a deadlock and does not wait:
// ENOLCK).
func Waiting(owner, blocker uint64) bool {
	slot := -1
	for i := range waits {
		if waits[i].Owner == owner {
			slot = i
			break
		}
		if slot < 0 && waits[i].Owner == 0 {
			slot = i
		}
	}
	if blocker == 0 {
		if slot >= 0 && waits[slot].Owner == owner {
			waits[slot] = wait{}
		}
		return true
	}
	if slot < 0 {
		return false
	}
	waits[slot] = wait{Owner: owner, BlockedBy: blocker}
	return true
}
