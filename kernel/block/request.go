package block

import "github.com/gometal/gometal/sched"

// A Request is a read of a run of sectors of one disk in flight: the
// caller that submitted it (through the kernel's driver, which owns it
// until it completes) sleeps on Q, and the device's completion, taken
// in its interrupt handler or by a caller polling the device, sets Done
// and Err and notifies Q (docs/ARCHITECTURE.md, "Storage"). The page
// cache keeps what the request is for (kernel/fs's reads in flight);
// this table keeps only what the device said. Under the kernel lock.
type Request struct {
	Used  bool
	Done  bool
	Err   bool // the device answered an error: the read is EIO
	Disk  int  // its index in Disks
	Slot  int  // the driver's slot while it is in flight
	Q     sched.Queue
	wake  bool // completed; its sleepers not yet woken (Wake)
	ended bool // its result taken: Wake frees it
}

// MaxRequests bounds the reads in flight on all disks together.
const MaxRequests = 32

// Requests are the requests in flight, and done ones not yet ended.
var Requests [MaxRequests]Request

// Poll waits for request r by polling its device, for a caller that
// must not sleep (a fault, a write that reads a page first); the kernel
// sets it at boot.
var Poll func(r int32)

// NewRequest takes a free request for disk d: -1 when the table is full.
func NewRequest(d int) int32 {
	for i := range Requests {
		if r := &Requests[i]; !r.Used {
			r.Used, r.Done, r.Err, r.Disk, r.Slot = true, false, false, d, -1
			return int32(i)
		}
	}
	return -1
}

// Complete records that request r's device answered (err: with an
// error); Wake then wakes whoever sleeps on it. The two are apart
// because a completion may be taken by a caller polling the device
// while it holds a lock a wake-up must not be taken under (a fault
// holds its address space's, which ranks after the scheduler's state
// locks): that caller leaves the wake-up to the device's interrupt,
// which comes once it lets go.
func Complete(r int32, err bool) {
	q := &Requests[r]
	q.Done, q.Err, q.Slot, q.wake = true, err, -1, true
	wakes++
}

// wakes counts the requests Complete marked and Wake has not woken for.
var wakes int

// Wake wakes the sleepers of every request completed since the last Wake.
func Wake() {
	for i := range Requests {
		if wakes == 0 {
			return
		}
		if q := &Requests[i]; q.wake {
			q.wake = false
			wakes--
			q.Q.Notify(NotifyEvents)
			if q.ended {
				*q = Request{}
			}
		}
	}
}

// Waking says whether a completion's wake-up is still to be made.
func Waking() bool { return wakes != 0 }

// NotifyEvents is what a completion reports to its sleepers, and what
// they wait for: the read can go on (EPOLLIN).
const NotifyEvents = 0x1

// End frees request r once its result was taken; if its wake-up is
// still to be made (a taker polled for it), Wake frees it after that,
// so that no sleeper is left on a queue nobody will notify.
func End(r int32) {
	if q := &Requests[r]; q.wake {
		q.ended = true
		return
	}
	Requests[r] = Request{}
}
