package linux

import (
	"github.com/gometal/gometal/kernel/proc"
	"github.com/gometal/gometal/sched"
)

// Real-time signals queue (signal(7), "Real-time signals"; Linux's
// kernel/signal.c: __send_signal, collect_signal). A standard signal
// sent while pending merges with the one pending; each instance of a
// real-time signal (sigRTMIN..64) is kept with its own siginfo and
// delivered in order, lowest-numbered signal first and each signal's
// instances in the order sent. The first pending instance lives in the
// pending set's siginfo slot, as a standard signal's does; the ones sent
// after it wait here, in one fixed pool for the system (no allocation),
// until it is taken. Everything here is under SignalLock.

// maxQueuedSignals bounds the instances waiting behind a pending one,
// all processes together; sigqueue(3) (rt_sigqueueinfo) answers EAGAIN
// when the pool is full, as Linux does past RLIMIT_SIGPENDING, and kill
// of a real-time signal then only makes it pending, as Linux's
// __send_signal does for an SI_USER signal it could not queue.
const maxQueuedSignals = proc.SigpendingMax

// queuedSig is one waiting instance: for thread slot Thread-1, or for
// process slot Proc-1 (its shared pending set).
type queuedSig struct {
	Thread, Proc int32
	Sig          int32
	Seq          uint64
	Info         sigInfo
}

var (
	sigQueue    [maxQueuedSignals]queuedSig
	sigQueueSeq uint64
	sigQueued   int // used entries
)

// isRT says whether sig is a real-time signal, which queues.
func isRT(sig int) bool { return sig >= sigRTMIN && sig < nsig }

// queueBehind keeps an instance of sig, already pending for thread t
// (or, with t nil, for process p), to be delivered after it. false:
// the pool is full and the instance is lost.
func queueBehind(t *sched.Thread, p int32, sig int, info sigInfo) bool {
	if sigQueued == len(sigQueue) {
		return false
	}
	for i := range sigQueue {
		q := &sigQueue[i]
		if q.Sig != 0 {
			continue
		}
		sigQueueSeq++
		*q = queuedSig{Proc: p + 1, Sig: int32(sig), Seq: sigQueueSeq, Info: info}
		if t != nil {
			q.Thread, q.Proc = sched.Index(t)+1, 0
		}
		sigQueued++
		return true
	}
	return false
}

// nextQueued takes the oldest instance of sig waiting for thread slot
// ti+1 or process slot p+1 (one of them 0) into info; false: none
// waits, and sig is no longer pending there.
func nextQueued(thread, p int32, sig int, info *sigInfo) bool {
	best := -1
	for i := range sigQueue {
		q := &sigQueue[i]
		if q.Sig == int32(sig) && q.Thread == thread && q.Proc == p && (best < 0 || q.Seq < sigQueue[best].Seq) {
			best = i
		}
	}
	if best < 0 {
		return false
	}
	*info = sigQueue[best].Info
	sigQueue[best] = queuedSig{}
	sigQueued--
	return true
}

// dropQueued forgets what waits for thread slot thread or process slot
// p (1-based, one of them 0): the thread or process is gone, or its
// signals were discarded.
func dropQueued(thread, p int32) {
	if sigQueued == 0 {
		return
	}
	for i := range sigQueue {
		if q := &sigQueue[i]; q.Sig != 0 && q.Thread == thread && q.Proc == p {
			*q = queuedSig{}
			sigQueued--
		}
	}
}

// sigQueueFull says whether a real-time signal sent now may not queue
// (rt_sigqueueinfo's EAGAIN).
func sigQueueFull() bool { return sigQueued == len(sigQueue) }
