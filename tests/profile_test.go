package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestProfileNamesTheHotFunction profiles a CPU-bound program on four
// cores with -profile: the file opens with go tool pprof, has the app's
// functions by name with the kernel's activities and idle time beside
// them, and the app function with the most samples is the program's own
// hot loop.
func TestProfileNamesTheHotFunction(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "work.pprof")
	r := gometal(t, "run", "-profile", file, "./tests/progs/smp", "--", "work", "400")
	r.expect(t, 0, "BENCH cpu_parallel_ms", "gometal: profile in "+file)
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatalf("the profile does not parse: %v", err)
	}
	flat := map[string]int64{}
	roots := map[string]int64{}
	var total int64
	for _, s := range p.Sample {
		total += s.Value[0]
		leaf := s.Location[0].Line[0].Function.Name
		root := s.Location[len(s.Location)-1].Line[0].Function.Name
		roots[root] += s.Value[0]
		if root == "[app]" {
			flat[leaf] += s.Value[0]
		}
	}
	if total < 100 || roots["[app]"] == 0 || roots["[kernel]"] == 0 {
		t.Errorf("%d samples: %v", total, roots)
	}
	var names []string
	for n := range flat {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return flat[names[i]] > flat[names[j]] })
	if len(names) == 0 || names[0] != "main.work.func1" {
		t.Errorf("the hottest app functions are %v, want main.work.func1 first", names[:min(len(names), 5)])
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", file).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "main.work.func1") {
		t.Errorf("go tool pprof -top: %v\n%s", err, out)
	}
}
