package main

import (
	"strings"
	"testing"
)

func TestParseBench(t *testing.T) {
	out := "gometal: booting\r\nbench: start\nBENCH getpid_ns 3038.672 ns\r\nBENCH timer_wakeups_per_s 1.5e+05 /s\nnoise BENCH x 1 y\n"
	figs, err := parseBench(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 2 || figs["getpid_ns"] != 3038.672 || figs["timer_wakeups_per_s"] != 150000 {
		t.Errorf("parsed %v", figs)
	}
	for _, bad := range []string{"BENCH getpid_ns ns\n", "BENCH getpid_ns 1.2.3 ns\n", "BENCH a 1\n"} {
		if _, err := parseBench(bad); err == nil {
			t.Errorf("%q parsed without error", bad)
		}
	}
}

func TestStats(t *testing.T) {
	for _, c := range []struct {
		v           []float64
		med, lo, hi float64
	}{
		{[]float64{5}, 5, 5, 5},
		{[]float64{3, 1, 2}, 2, 1, 3},
		{[]float64{4, 1, 3, 2}, 2.5, 1, 4},
	} {
		med, lo, hi := stats(c.v)
		if med != c.med || lo != c.lo || hi != c.hi {
			t.Errorf("stats(%v) = %v %v %v, want %v %v %v", c.v, med, lo, hi, c.med, c.lo, c.hi)
		}
	}
}

func TestCompareMarksTheBetterSide(t *testing.T) {
	lower := benchFigure{Name: "getpid_ns", Unit: "ns"}
	higher := benchFigure{Name: "timer_wakeups_per_s", Unit: "/s", Higher: true}
	for _, c := range []struct {
		f            benchFigure
		g, l         float64
		ratio, betta string
	}{
		{lower, 100, 200, "0.50", "**gometal**"},
		{lower, 300, 100, "3.00", "**Linux**"},
		{higher, 300, 100, "3.00", "**gometal**"},
		{higher, 100, 300, "0.33", "**Linux**"},
		{lower, 101, 100, "1.01", "tie"},
		{lower, 0, 5, "–", "**gometal**"},
	} {
		ratio, better := compare(c.f, c.g, c.l)
		if ratio != c.ratio || better != c.betta {
			t.Errorf("compare(%s, %v, %v) = %s %s, want %s %s", c.f.Name, c.g, c.l, ratio, better, c.ratio, c.betta)
		}
	}
}

func TestSummarizeSaysWhatDidNotRun(t *testing.T) {
	g := samples{}
	g.add(map[string]float64{"getpid_ns": 3000})
	g.add(map[string]float64{"getpid_ns": 1000})
	g.add(map[string]float64{"getpid_ns": 2000})
	l := samples{}
	l.add(map[string]float64{"getpid_ns": 500})
	rows := summarize(g, l, true, true)
	var getpid, spawn benchRow
	for _, r := range rows {
		switch r.Fig.Name {
		case "getpid_ns":
			getpid = r
		case "spawn_join_ns":
			spawn = r
		}
	}
	if getpid.Gometal != "2000 (1000–3000)" || getpid.Linux != "500" || getpid.Ratio != "4.00" || getpid.Better != "**Linux**" {
		t.Errorf("getpid row %+v", getpid)
	}
	if spawn.Gometal != "does not run" || spawn.Ratio != "" {
		t.Errorf("a figure no side produced: %+v", spawn)
	}
	rows = summarize(g, samples{}, true, false)
	md := markdownTable(rows)
	if !strings.Contains(md, "| 2000 (1000–3000) | not run | – | – |") || strings.Count(md, "\n") != len(benchFigures)+2 {
		t.Errorf("markdown:\n%s", md)
	}
}
