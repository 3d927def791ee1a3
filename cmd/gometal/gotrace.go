package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	xtrace "golang.org/x/exp/trace"
)

// A Go execution trace (runtime/trace) read with golang.org/x/exp/trace:
// which goroutine ran on which P, and on which M (the OS thread, whose
// ID is the kernel's thread ID, since the runtime takes it from gettid),
// in nanoseconds of CLOCK_MONOTONIC, the clock the kernel trace's counter
// gives too.

// goSpan is a goroutine running on a P.
type goSpan struct {
	P         int
	G         int64
	M         int64 // thread ID
	From, To  int64 // ns, CLOCK_MONOTONIC
	Left      string
	EndReason string
}

type goTrace struct {
	Spans []goSpan
	Procs int // highest P + 1
}

// readGoTrace reads a Go execution trace file.
func readGoTrace(path string) (*goTrace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := xtrace.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: not a Go execution trace (runtime/trace) this gometal reads: %v", path, err)
	}
	type running struct {
		p    int
		m    int64
		from int64
	}
	on := map[xtrace.GoID]running{}
	t := &goTrace{}
	var last int64
	for {
		ev, err := r.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if len(t.Spans) == 0 {
				return nil, fmt.Errorf("%s: %v", path, err)
			}
			break // a torn end: keep what came before it
		}
		last = int64(ev.Time())
		if ev.Kind() != xtrace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		if st.Resource.Kind != xtrace.ResourceGoroutine {
			continue
		}
		g := st.Resource.Goroutine()
		from, to := st.Goroutine()
		switch {
		case to == xtrace.GoRunning && from != xtrace.GoRunning:
			p := int(ev.Proc())
			if ev.Proc() == xtrace.NoProc {
				continue
			}
			on[g] = running{p: p, m: int64(ev.Thread()), from: int64(ev.Time())}
			if p+1 > t.Procs {
				t.Procs = p + 1
			}
		case from == xtrace.GoRunning && to != xtrace.GoRunning:
			run, ok := on[g]
			if !ok {
				continue
			}
			delete(on, g)
			why := to.String()
			if st.Reason != "" {
				why += " (" + st.Reason + ")"
			}
			t.Spans = append(t.Spans, goSpan{P: run.p, G: int64(g), M: run.m, From: run.from, To: int64(ev.Time()), Left: why})
		}
	}
	for g, run := range on { // still running when the trace stopped
		t.Spans = append(t.Spans, goSpan{P: run.p, G: int64(g), M: run.m, From: run.from, To: last, Left: "running at the trace's end"})
	}
	sort.Slice(t.Spans, func(i, j int) bool { return t.Spans[i].From < t.Spans[j].From })
	return t, nil
}
