package block

import "testing"

// A request a poller completed and ended before its wake-up was made
// stays taken until Wake, so that its sleepers are woken before the
// slot is reused; one woken first is freed at End.
func TestRequestEndAfterWake(t *testing.T) {
	Requests = [MaxRequests]Request{}
	wakes = 0
	a, b := NewRequest(0), NewRequest(1)
	if a != 0 || b != 1 || Requests[b].Disk != 1 || Requests[a].Slot != -1 {
		t.Fatalf("NewRequest: %d %d %+v", a, b, Requests[b])
	}
	Complete(a, false)
	Complete(b, true)
	if !Requests[a].Done || Requests[a].Err || !Requests[b].Err || !Waking() {
		t.Fatalf("Complete: %+v %+v waking %v", Requests[a], Requests[b], Waking())
	}
	End(a) // polled for and taken before the wake-up
	if !Requests[a].Used {
		t.Fatal("End freed a request whose sleepers were not woken")
	}
	if c := NewRequest(0); c != 2 {
		t.Fatalf("NewRequest took %d while 0 and 1 wait for Wake", c)
	}
	Wake()
	if Requests[a].Used || !Requests[b].Used || Waking() {
		t.Fatalf("after Wake: a %+v, b %+v, waking %v", Requests[a], Requests[b], Waking())
	}
	End(b)
	if Requests[b].Used {
		t.Fatal("End after Wake kept the request")
	}
	for range MaxRequests - 1 {
		NewRequest(0)
	}
	if r := NewRequest(0); r != -1 {
		t.Fatalf("a full table gave %d", r)
	}
}
