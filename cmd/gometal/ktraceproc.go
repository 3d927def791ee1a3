package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gometal/gometal/sched/trace"
)

// Process names in the kernel trace: the kernel records, with
// trace.KindProc groups, which process a thread belongs to and its name
// whenever that changes (a process made, a program run, PR_SET_NAME),
// and the timeline names each thread's run after what was true when it
// began.

// procName is what a KindProc group said of a thread from ts on.
type procName struct {
	ts   uint64
	pid  uint32
	comm string
}

// procNames gathers every core's KindProc groups, per tid, in time
// order. A group cut by the ring's wrap is left out.
func (t *ktrace) procNames() map[uint32][]procName {
	names := map[uint32][]procName{}
	for _, c := range t.Cores {
		var words [trace.ProcWords]uint32
		next := uint8(0)
		var ts uint64
		for _, e := range c.Events {
			if e.Kind != trace.KindProc {
				continue
			}
			if e.Code != next {
				next = 0
				if e.Code != 0 {
					continue
				}
			}
			if e.Code == 0 {
				ts = e.TS
			}
			words[e.Code] = e.Arg
			next++
			if next < trace.ProcWords {
				continue
			}
			next = 0
			var b []byte
			for _, w := range words[2:] {
				b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
			}
			comm := strings.TrimRight(string(b), "\x00")
			names[words[0]] = append(names[words[0]], procName{ts: ts, pid: words[1], comm: comm})
		}
	}
	for _, l := range names {
		sort.SliceStable(l, func(i, j int) bool { return l[i].ts < l[j].ts })
	}
	return names
}

// threadLabel names thread tid's run that began at ts: "comm[pid]
// thread tid" after the last name it had by then (or its first, for a
// run before any), "thread tid" when the trace names it nowhere.
func threadLabel(names map[uint32][]procName, tid uint32, ts uint64) string {
	l := names[tid]
	if len(l) == 0 {
		return fmt.Sprintf("thread %d", tid)
	}
	n := l[0]
	for _, p := range l {
		if p.ts <= ts {
			n = p
		}
	}
	return fmt.Sprintf("%s[%d] thread %d", n.comm, n.pid, tid)
}
