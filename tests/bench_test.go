package tests

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"testing"
)

// Benchmarks boot real programs like the tests do, but measure instead of
// assert: `make bench` runs them (go test -run '^$' -bench . ./tests).
// QEMU here is software emulation on a 2-core host, so figures are
// ratios against a baseline measured in the same run.

var benchLine = regexp.MustCompile(`BENCH (\S+) ([0-9.]+) (\S+)`)

// benchFigure boots args and returns the value of the BENCH line name.
func benchFigure(b *testing.B, name string, args ...string) float64 {
	b.Helper()
	r := gometal(b, args...)
	for _, m := range benchLine.FindAllStringSubmatch(r.out, -1) {
		if m[1] == name {
			v, err := strconv.ParseFloat(m[2], 64)
			if err == nil && r.status == 0 {
				return v
			}
		}
	}
	b.Fatalf("gometal %v: status %d, no BENCH %s line:\n%s", args, r.status, name, r.out)
	return 0
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// BenchmarkSMPSpeedup: the same CPU-bound job split over NumCPU
// goroutines, booted with -smp 1 and -smp 2 alternately (3 runs each);
// reports the medians and the speedup ratio (ideal: 2 on this 2-core
// host).
func BenchmarkSMPSpeedup(b *testing.B) {
	const runs = 3
	var t1, t2 []float64
	for i := 0; i < runs; i++ {
		t1 = append(t1, benchFigure(b, "cpu_parallel_ms", "run", "-smp", "1", "./tests/progs/smp", "--", "work", "4000"))
		t2 = append(t2, benchFigure(b, "cpu_parallel_ms", "run", "-smp", "2", "./tests/progs/smp", "--", "work", "4000"))
	}
	m1, m2 := median(t1), median(t2)
	b.ReportMetric(m1, "ms/smp1")
	b.ReportMetric(m2, "ms/smp2")
	b.ReportMetric(m1/m2, "speedup")
	fmt.Printf("SMP speedup: -smp 1 median %.0f ms %v, -smp 2 median %.0f ms %v: %.2fx\n", m1, t1, m2, t2, m1/m2)
}
