package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/trace"
	"strings"
	"sync"
	"testing"
	"time"

	ktr "github.com/gometal/gometal/sched/trace"
)

// A Go execution trace made here, by runtime/trace, reads as goroutines
// on Ps, with their Ms; a file that is not one gets one clear error.
func TestReadGoTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "go.trace")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := trace.Start(f); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for end := time.Now().Add(5 * time.Millisecond); time.Now().Before(end); {
			}
		}()
	}
	wg.Wait()
	runtime.GC() // a mark phase and two stop-the-world pauses
	trace.Stop()
	f.Close()
	gt, err := readGoTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(gt.Spans) < 4 || gt.Procs < 1 {
		t.Fatalf("%d spans on %d Ps", len(gt.Spans), gt.Procs)
	}
	for _, s := range gt.Spans {
		if s.To < s.From || s.P < 0 || s.P >= gt.Procs || s.M == 0 || s.Left == "" {
			t.Fatalf("bad span %+v", s)
		}
	}
	var stw, mark int
	for _, ph := range gt.Phases {
		if ph.To < ph.From {
			t.Fatalf("bad phase %+v", ph)
		}
		switch {
		case ph.Name == gcPhaseName:
			mark++
		case strings.HasPrefix(ph.Name, stwPrefix+" (GC"):
			stw++
		}
	}
	if mark < 1 || stw < 2 {
		t.Errorf("runtime.GC: %d mark phases, %d GC pauses in %+v; want 1 and 2", mark, stw, gt.Phases)
	}
	var sum strings.Builder
	gt.writePhaseSummary(&sum)
	if !regexp.MustCompile(`^Go trace: [0-9]+ stop-the-world pauses, median [0-9.]+ ms, longest [0-9.]+ ms \(stop-the-world \(.+\)\)\n$`).MatchString(sum.String()) {
		t.Errorf("summary %q", sum.String())
	}
	if _, err := readGoTrace(writeTemp(t, []byte("not a trace"))); err == nil || !strings.Contains(err.Error(), "not a Go execution trace") {
		t.Errorf("a bad file: %v", err)
	}
}

// The page holds the kernel's lanes (a thread lane and a syscall lane
// per core), a lane per P, and the items of both on one time axis.
func TestTimelinePage(t *testing.T) {
	core0 := []ktr.Event{
		{TS: 1000, Kind: ktr.KindRun, Arg: 7},
		{TS: 1100, Kind: ktr.KindSyscall, Num: 98, Arg: 7},
		{TS: 1200, Kind: ktr.KindSysret, Num: 98, Arg: 7, Code: 1},
		{TS: 1200, Kind: ktr.KindStop, Code: ktr.StopBlocked, Num: 1, Arg: 7},
		{TS: 1360, Kind: ktr.KindSignal, Num: 23, Arg: 8},
	}
	kt, err := readTrace(writeTemp(t, traceBytes(ktr.Version, 1_000_000, [][]ktr.Event{core0, nil}, []uint64{5, 0})))
	if err != nil {
		t.Fatal(err)
	}
	// The counter at 1 MHz: tick 1000 is 1 ms of CLOCK_MONOTONIC.
	gt := &goTrace{Procs: 2, Spans: []goSpan{{P: 1, G: 5, M: 7, From: 1_050_000, To: 1_150_000, Left: "waiting"}},
		Phases: []goPhase{{Name: gcPhaseName, From: 1_000_000, To: 1_300_000}, {Name: "stop-the-world (GC mark termination)", From: 1_200_000, To: 1_250_000}}}
	d := kt.timeline(gt)
	if len(d.Rows) != 2*2+2+1 || !d.Rows[4].Go || d.Rows[5].Name != "Go P1" || d.Rows[6].Name != goPhaseRow {
		t.Fatalf("rows %+v", d.Rows)
	}
	var goItem []any
	cats := map[string]int{}
	for _, it := range d.Items {
		cats[it[3].(string)]++
		if it[3] == "go" {
			goItem = it
		}
	}
	if cats["thread"] != 1 || cats["syscall-blocked"] != 1 || cats["signal-urg"] != 1 || cats["go"] != 1 || cats["go-gc"] != 1 || cats["go-stw"] != 1 {
		t.Errorf("categories %v", cats)
	}
	// G5 ran from 50 µs to 150 µs after the kernel's first event, on P1's
	// row, with its M (thread 7) for the page to light up.
	if goItem[0] != 5 || goItem[1] != 50.0 || goItem[2] != 100.0 || goItem[6] != int64(7) {
		t.Errorf("go item %v", goItem)
	}
	var page bytes.Buffer
	if err := kt.writeTimeline(&page, "t", gt); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<canvas", `"name":"Go P1"`, "G5 on P1, M = thread 7", `"STW (GC mark termination)"`, `stop-the-world (GC mark termination)\n0.050 ms`} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page.String(), "http://") || strings.Contains(page.String(), "https://") || strings.Contains(page.String(), "src=") {
		t.Error("the page refers to something outside itself")
	}
}
