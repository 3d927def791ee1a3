package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	xtrace "golang.org/x/exp/trace"
)

// A Go execution trace (runtime/trace) read with golang.org/x/exp/trace:
// which goroutine ran on which P, and on which M (the OS thread, whose
// ID is the kernel's thread ID, since the runtime takes it from gettid),
// and the runtime's GC mark phases and stop-the-world pauses, in
// nanoseconds of CLOCK_MONOTONIC, the clock the kernel trace's counter
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

// goPhase is a stretch of the whole runtime's: a stop-the-world pause
// (Name "stop-the-world (why)") or a GC's concurrent mark phase.
type goPhase struct {
	Name     string
	From, To int64 // ns, CLOCK_MONOTONIC
}

type goTrace struct {
	Spans  []goSpan
	Phases []goPhase
	Procs  int // highest P + 1
}

// gcPhaseName is the runtime's name of a GC's concurrent mark phase
// (runtime/traceruntime.go); stop-the-world ranges are named by
// stwPrefix and their reason.
const (
	gcPhaseName = "GC concurrent mark phase"
	stwPrefix   = "stop-the-world"
)

func isPhase(name string) bool { return name == gcPhaseName || strings.HasPrefix(name, stwPrefix) }

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
	begun := map[string]int64{} // phases begun and not ended, by name
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
		switch ev.Kind() {
		case xtrace.EventRangeBegin, xtrace.EventRangeActive:
			if name := ev.Range().Name; isPhase(name) {
				begun[name] = last
			}
			continue
		case xtrace.EventRangeEnd:
			name := ev.Range().Name
			if from, ok := begun[name]; ok {
				t.Phases = append(t.Phases, goPhase{Name: name, From: from, To: last})
				delete(begun, name)
			}
			continue
		case xtrace.EventStateTransition:
		default:
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
	for name, from := range begun { // a phase the trace's end cut short
		t.Phases = append(t.Phases, goPhase{Name: name, From: from, To: last})
	}
	sort.Slice(t.Spans, func(i, j int) bool { return t.Spans[i].From < t.Spans[j].From })
	sort.Slice(t.Phases, func(i, j int) bool { return t.Phases[i].From < t.Phases[j].From })
	return t, nil
}

// writePhaseSummary prints the Go trace's stop-the-world pauses: how
// many, their median and the longest, with its reason.
func (t *goTrace) writePhaseSummary(w io.Writer) {
	var pauses []goPhase
	for _, ph := range t.Phases {
		if strings.HasPrefix(ph.Name, stwPrefix) {
			pauses = append(pauses, ph)
		}
	}
	if len(pauses) == 0 {
		fmt.Fprintln(w, "Go trace: no stop-the-world pause")
		return
	}
	sort.Slice(pauses, func(i, j int) bool { return pauses[i].To-pauses[i].From < pauses[j].To-pauses[j].From })
	ms := func(p goPhase) float64 { return float64(p.To-p.From) / 1e6 }
	longest := pauses[len(pauses)-1]
	fmt.Fprintf(w, "Go trace: %d stop-the-world pauses, median %.3f ms, longest %.3f ms (%s)\n",
		len(pauses), ms(pauses[len(pauses)/2]), ms(longest), longest.Name)
}
