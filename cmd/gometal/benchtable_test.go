package main

import (
	"os"
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
	rows := summarize(map[string]samples{sideGometal: g, sideLinux: l}, map[string]bool{sideGometal: true, sideLinux: true})
	var getpid, spawn benchRow
	for _, r := range rows {
		switch r.Fig.Name {
		case "getpid_ns":
			getpid = r
		case "spawn_join_ns":
			spawn = r
		}
	}
	if getpid.Cells[sideGometal] != "2000 (1000–3000)" || getpid.Cells[sideLinux] != "500" || getpid.Ratio != "4.00" || getpid.Better != "**Linux**" {
		t.Errorf("getpid row %+v", getpid)
	}
	if getpid.Cells[sideLinuxNoKASLR] != "not run" {
		t.Errorf("nokaslr cell %q", getpid.Cells[sideLinuxNoKASLR])
	}
	if spawn.Cells[sideGometal] != "does not run" || spawn.Ratio != "" {
		t.Errorf("a figure no side produced: %+v", spawn)
	}
	rows = summarize(map[string]samples{sideGometal: g}, map[string]bool{sideGometal: true})
	md := markdownTable(rows)
	if !strings.Contains(md, "| 2000 (1000–3000) | not run | not run | – | – |") || strings.Count(md, "\n") != len(benchFigures)+2 {
		t.Errorf("markdown:\n%s", md)
	}
}

// The ratio is against the faster Linux, whichever command line that was,
// for lower-is-better and higher-is-better figures alike.
func TestRatioAgainstTheFasterLinux(t *testing.T) {
	one := func(fig string, v float64) samples {
		s := samples{}
		s.add(map[string]float64{fig: v})
		return s
	}
	ran := map[string]bool{sideGometal: true, sideLinux: true, sideLinuxNoKASLR: true}
	for _, c := range []struct {
		fig            string
		g, lkpti, lnok float64
		ratio, against string
	}{
		{"getpid_ns", 2000, 37000, 1300, "1.54", sideLinuxNoKASLR},
		{"getpid_ns", 2000, 1000, 1300, "2.00", sideLinux},
		{"timer_wakeups_per_s", 150000, 100000, 160000, "0.94", sideLinuxNoKASLR},
		{"timer_wakeups_per_s", 150000, 170000, 160000, "0.88", sideLinux},
	} {
		rows := summarize(map[string]samples{sideGometal: one(c.fig, c.g), sideLinux: one(c.fig, c.lkpti), sideLinuxNoKASLR: one(c.fig, c.lnok)}, ran)
		for _, r := range rows {
			if r.Fig.Name == c.fig && (r.Ratio != c.ratio || r.Against != c.against) {
				t.Errorf("%s %v/%v/%v: ratio %s against %s, want %s against %s", c.fig, c.g, c.lkpti, c.lnok, r.Ratio, r.Against, c.ratio, c.against)
			}
		}
	}
	md := markdownTable(summarize(map[string]samples{sideGometal: one("getpid_ns", 2000), sideLinux: one("getpid_ns", 37000), sideLinuxNoKASLR: one("getpid_ns", 1300)}, ran))
	if !strings.Contains(md, "| 2000 | 37000 | 1300 | 1.54 (vs nokaslr) | **Linux** |") {
		t.Errorf("markdown:\n%s", md)
	}
}

// -compare flags a planted regression and a planted improvement, and
// nothing where the ranges overlap.
func TestCompareFlagsChangesBeyondNoise(t *testing.T) {
	old := &benchResults{Date: "then", Commit: "abc", Samples: map[string]samples{sideGometal: {
		"getpid_ns":           {1000, 1100, 1050},
		"spawn_join_ns":       {5000, 5200, 5100},
		"timer_wakeups_per_s": {150000, 160000, 155000},
	}}}
	cur := &benchResults{Samples: map[string]samples{sideGometal: {
		"getpid_ns":           {1500, 1600, 1550},       // planted: 50% slower
		"spawn_join_ns":       {5150, 5300, 4900},       // within the noise
		"timer_wakeups_per_s": {200000, 210000, 205000}, // faster
	}}}
	out := compareResults(old, cur)
	if !strings.Contains(out, "worse   gometal        getpid_ns                1050 → 1550 ns (+48%)") {
		t.Errorf("the regression is not flagged:\n%s", out)
	}
	if !strings.Contains(out, "better  gometal        timer_wakeups_per_s") {
		t.Errorf("the improvement is not flagged:\n%s", out)
	}
	if strings.Contains(out, "spawn_join_ns") {
		t.Errorf("a change within the noise is flagged:\n%s", out)
	}
	same := compareResults(old, old)
	if !strings.Contains(same, "nothing changed beyond the noise") {
		t.Errorf("identical runs:\n%s", same)
	}
}

func TestLoadResultsRejectsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"junk.json": "not json", "other.json": `{"version": 7, "samples": {}}`} {
		p := dir + "/" + name
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := loadResults(p); err == nil || !strings.Contains(err.Error(), "is not a gometal bench -json file") {
			t.Errorf("%s: %v", name, err)
		}
	}
	r := &benchResults{Version: benchResultsVersion, Samples: map[string]samples{sideGometal: {"getpid_ns": {1, 2}}}}
	p := dir + "/ok.json"
	if err := r.save(p); err != nil {
		t.Fatal(err)
	}
	back, err := loadResults(p)
	if err != nil || back.Samples[sideGometal]["getpid_ns"][1] != 2 {
		t.Errorf("round trip: %+v %v", back, err)
	}
}
