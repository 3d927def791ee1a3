//go:build !arm64

package sched

import (
	"math/rand"
	"testing"
)

// TestDeadlineCacheMatchesScan drives random blocks (with and without
// deadlines), early wake-ups, cancelled waits and deaths on four cores,
// and after each step checks the cached earliest deadline of every core
// against a scan of the table: it may be early only while marked stale,
// already past, or left by a thread that died blocked; never late; and
// once asked for it is exact but for those.
func TestDeadlineCacheMatchesScan(t *testing.T) {
	resetCores(t, 4)
	rng := rand.New(rand.NewSource(1))
	var threads []*Thread
	for i := 0; i < 24; i++ {
		th := New()
		th.CPU = int32(i % 4)
		th.State = Running
		threads = append(threads, th)
	}
	now := uint64(1000)
	lingering := map[uint64]bool{} // deadlines of threads that died blocked
	for step := 0; step < 20000; step++ {
		th := threads[rng.Intn(len(threads))]
		switch op := rng.Intn(6); {
		case th.State == Running && op < 3:
			var d uint64
			if op > 0 {
				d = now + uint64(rng.Intn(500)) + 1
			}
			Block(th, WaitSleep, d, 0)
		case th.State == Blocked && op == 3:
			Wake(th, 0) // early, or after its deadline: either way
			th.State = Running
		case th.State == Blocked && op == 4:
			CancelBlock(th)
		case th.State == Blocked && op == 5 && rng.Intn(20) == 0:
			th.State = Dead // dies blocked: its deadline lingers
			lingering[th.Deadline] = true
		case th.State == Dead:
			th.State = Running // the slot is reused
			th.Deadline = 0
		}
		now += uint64(rng.Intn(5))
		for core := 0; core < 4; core++ {
			want := scanDeadlines(core)
			d := coreDeadlines[core]
			if !d.stale && want != 0 && (d.at == 0 || d.at > want) {
				t.Fatalf("step %d core %d: cache %d is later than the earliest deadline %d", step, core, d.at, want)
			}
			if rng.Intn(3) == 0 {
				got := threadDeadline(core, now)
				early := got != 0 && (want == 0 || got < want) && (got <= now || lingering[got])
				if got != want && !early {
					t.Fatalf("step %d core %d: threadDeadline %d, scan %d (now %d)", step, core, got, want, now)
				}
			}
		}
	}
}
