package main

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"
)

// The HTML timeline (gometal trace -o OUT.html): one self-contained page
// (no network, no files beside it) that draws the kernel trace as lanes
// per core (the thread on it, idle, interrupts, SGIs sent and signal
// frames; its syscalls in a lane below) and, when the app wrote a Go
// execution trace, a lane per P with the goroutines that ran on it and
// one with the runtime's GC mark phases and stop-the-world pauses, on
// the same time axis: hovering a goroutine lights up its M, the kernel
// thread, on whichever core ran it.

//go:embed timeline.html
var timelineHTML string

var timelineTmpl = template.Must(template.New("timeline").Parse(timelineHTML))

type timelineRow struct {
	Name string `json:"name"`
	Go   bool   `json:"go,omitempty"`
}

type timelineData struct {
	Rows  []timelineRow `json:"rows"`
	Items [][]any       `json:"items"`
	End   float64       `json:"end"` // µs
}

// timeline gathers the rows and items of the page: the kernel trace's
// events as chromeEvents made them, and gt's goroutine spans (nil: none).
func (t *ktrace) timeline(gt *goTrace) timelineData {
	var d timelineData
	for core := range t.Cores {
		d.Rows = append(d.Rows, timelineRow{Name: fmt.Sprintf("core %d", core)}, timelineRow{Name: fmt.Sprintf("core %d syscalls", core)})
	}
	end := 0.0
	add := func(row int, ts, dur float64, cat, label, details string, tid, gid int64) {
		d.Items = append(d.Items, []any{row, round3(ts), round3(dur), cat, label, details, tid, gid})
		end = math.Max(end, ts+dur)
	}
	for _, e := range t.chromeEvents() {
		if e.Ph == "M" {
			continue
		}
		row := 2*e.Pid + e.Tid
		cat, details, tid := e.Cat, "", int64(-1)
		switch e.Cat {
		case "thread":
			tid = int64(e.Args["tid"].(uint32))
			details = "stopped: " + e.Args["left"].(string)
		case "syscall":
			details = fmt.Sprintf("thread %v", e.Args["tid"])
			if e.Args["blocked"] == true {
				cat, details = "syscall-blocked", details+", blocked"
			}
		case "irq":
			cat = "irq-" + e.Name[len("IRQ "):]
			details = fmt.Sprintf("INTID %v", e.Args["intid"])
		case "signal":
			if e.Args["signal"] == uint16(sigURG) {
				cat = "signal-urg"
			}
		}
		dur := e.Dur
		if e.Ph == "i" {
			dur = 0
		}
		add(row, e.Ts, dur, cat, e.Name, details, tid, -1)
	}
	if gt != nil {
		base := len(d.Rows)
		for p := 0; p < gt.Procs; p++ {
			d.Rows = append(d.Rows, timelineRow{Name: fmt.Sprintf("Go P%d", p), Go: true})
		}
		t0 := t.startNanos()
		for _, s := range gt.Spans {
			from := float64(s.From-t0) / 1e3
			add(base+s.P, from, float64(s.To-s.From)/1e3, "go", fmt.Sprintf("G%d", s.G),
				fmt.Sprintf("G%d on P%d, M = thread %d\nthen: %s", s.G, s.P, s.M, s.Left), s.M, s.G)
		}
		// The runtime's own phases, in a lane below the Ps: each GC's
		// mark phase and every stop-the-world pause, to read against the
		// cores (the preemption signals a pause waits for, the futex
		// wake-ups that end it).
		gc := len(d.Rows)
		d.Rows = append(d.Rows, timelineRow{Name: goPhaseRow, Go: true})
		for _, ph := range gt.Phases {
			cat, label := phaseCategory(ph.Name)
			add(gc, float64(ph.From-t0)/1e3, float64(ph.To-ph.From)/1e3, cat, label,
				fmt.Sprintf("%s\n%.3f ms", ph.Name, float64(ph.To-ph.From)/1e6), -1, -1)
		}
	}
	d.End = end
	return d
}

// goPhaseRow names the lane of the runtime's phases.
const goPhaseRow = "Go GC / STW"

// phaseCategory gives a runtime phase's category and short label.
func phaseCategory(name string) (cat, label string) {
	if why, ok := strings.CutPrefix(name, stwPrefix); ok {
		return "go-stw", "STW" + why
	}
	return "go-gc", "GC mark"
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// writeTimeline writes the page.
func (t *ktrace) writeTimeline(w io.Writer, title string, gt *goTrace) error {
	return timelineTmpl.Execute(w, struct {
		Title string
		Data  timelineData
	}{title, t.timeline(gt)})
}
