package sched

import "sync/atomic"

// The load average (Linux's kernel/sched/loadavg.c): every LoadFreq the
// number of threads that are running or waiting for a core is folded
// into three exponentially decaying averages, over 1, 5 and 15 minutes,
// in 11-bit fixed point, as calc_load does. The boot core's tick calls
// UpdateLoad (it keeps ticking when idle); /proc/loadavg and sysinfo(2)
// read LoadAvg.

const (
	// FShift is the fixed point's fraction bits; FixedOne is 1.0.
	FShift   = 11
	FixedOne = 1 << FShift
	// LoadFreqNanos is how often the averages move (LOAD_FREQ: 5 s).
	LoadFreqNanos = 5_000_000_000
	// The decay per period: 1/exp(5s/1min), 1/exp(5s/5min),
	// 1/exp(5s/15min) in fixed point (EXP_1, EXP_5, EXP_15).
	exp1  = 1884
	exp5  = 2014
	exp15 = 2037
)

// LoadAvg holds the three averages (avenrun), read without a lock.
var LoadAvg [3]atomic.Uint64

// nextLoad is when the averages move next, in counter ticks.
var nextLoad uint64

// UpdateLoad folds the count of runnable threads in if a period has
// passed at now (counter ticks; period is LoadFreqNanos in ticks).
func UpdateLoad(now, period uint64) {
	if now < nextLoad {
		return
	}
	if nextLoad == 0 {
		nextLoad = now
	}
	for now >= nextLoad {
		nextLoad += period
		foldLoad(uint64(runnableThreads()) * FixedOne)
	}
}

// foldLoad moves each average toward active (fixed point).
func foldLoad(active uint64) {
	for i, e := range [3]uint64{exp1, exp5, exp15} {
		LoadAvg[i].Store(calcLoad(LoadAvg[i].Load(), e, active))
	}
}

// calcLoad is calc_load: load*e + active*(1-e), rounded up while
// rising.
func calcLoad(load, e, active uint64) uint64 {
	n := load*e + active*(FixedOne-e)
	if active >= load {
		n += FixedOne - 1
	}
	return n / FixedOne
}

// runnableThreads counts the threads running or waiting for a core (read
// without the state lock: a statistic).
func runnableThreads() int {
	n := 0
	for i := range Active() {
		if s := Threads[i].State; s == Running || s == Runnable {
			n++
		}
	}
	return n
}
