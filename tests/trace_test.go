package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestKernelTrace records a 4-core run with -trace, reads it back with
// gometal trace and checks, in the exported Chrome trace events, what the
// scheduler did: every core ran threads, threads blocked in futex calls,
// one core woke another with an SGI and the other took it.
func TestKernelTrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "k.trace")
	r := gometal(t, "run", "-trace", file, "./tests/progs/smp", "--", "spread")
	r.expect(t, 0, "distinct=4", "gometal: kernel trace in "+file+": 4 cores")

	jsonFile := filepath.Join(dir, "k.json")
	cmd := exec.Command(gometalBin, "trace", "-json", jsonFile, file)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gometal trace: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "SGIs out") || strings.Count(string(out), "\n") < 5 {
		t.Errorf("gometal trace summary:\n%s", out)
	}
	data, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name, Cat, Ph string
			Pid, Tid      int
			Dur           float64
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the JSON export does not parse: %v", err)
	}
	threadSpans := map[int]int{}
	futex, sgiSent, sgiTaken, named := 0, 0, 0, 0
	for _, e := range doc.TraceEvents {
		switch {
		case e.Cat == "thread" && e.Ph == "X":
			threadSpans[e.Pid]++
			if strings.HasPrefix(e.Name, "init[1] thread ") {
				named++ // the process and its program's name (KindProc)
			}
		case e.Cat == "syscall" && e.Name == "futex":
			futex++
		case e.Cat == "sgi" && strings.Contains(e.Name, "wake-up"):
			sgiSent++
		case e.Cat == "irq" && e.Name == "IRQ SGI":
			sgiTaken++
		}
	}
	for core := 0; core < 4; core++ {
		if threadSpans[core] == 0 {
			t.Errorf("core %d ran no thread in the trace", core)
		}
	}
	if named == 0 {
		t.Error("no thread run is named after its process (init[1])")
	}
	if futex == 0 || sgiSent == 0 || sgiTaken == 0 {
		t.Errorf("futex calls %d, wake-up SGIs sent %d, SGIs taken %d: want each > 0", futex, sgiSent, sgiTaken)
	}

	// A file that is not a trace gets one line and status 2.
	os.WriteFile(file, []byte("not a trace at all, just text long enough"), 0o644)
	bad, _ := exec.Command(gometalBin, "trace", file).CombinedOutput()
	if !strings.Contains(string(bad), "not a gometal kernel trace") {
		t.Errorf("gometal trace on a text file: %s", bad)
	}
}
