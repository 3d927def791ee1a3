package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/gometal/gometal/qemu"
)

// benchResults is what bench -json keeps: every sample of every side, and
// enough about the run to know what it measured.
type benchResults struct {
	Version int    `json:"version"`
	Date    string `json:"date"`
	Commit  string `json:"commit"`
	QEMU    string `json:"qemu"`
	Linux   string `json:"linux,omitempty"` // the Debian kernel package and version
	Board   string `json:"board"`
	SMP     int    `json:"smp,omitempty"` // the QEMU machine's cores
	Runs    int    `json:"runs"`
	// Samples: side → figure → values in run order.
	Samples map[string]samples `json:"samples"`
	// KernelLog: side → the Linux guest's KPTI/KASLR boot-log lines.
	KernelLog map[string][]string `json:"kernel_log,omitempty"`
}

// benchResultsVersion changes when the file's meaning does.
const benchResultsVersion = 1

// fillIn records when, on what and with what the run was made.
func (r *benchResults) fillIn(lk linuxKernel) {
	r.Version = benchResultsVersion
	r.Date = time.Now().UTC().Format("2006-01-02 15:04 MST")
	r.QEMU, _ = qemu.Version()
	if r.Commit == "" {
		r.Commit = sourceCommit()
	}
	if lk.Image != "" {
		r.Linux = fmt.Sprintf("Debian's `%s` %s", lk.Package, lk.Version)
	}
}

// sourceCommit names the tree's commit, and says whether it has changes
// outside docs/ (this very run's output, say, changes nothing measured).
// The run takes it before it builds anything: the tree may move on while
// it runs.
func sourceCommit() string {
	commit, _ := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	c := strings.TrimSpace(string(commit))
	if dirty, _ := exec.Command("git", "status", "--porcelain", "--", ".", ":!docs").Output(); len(dirty) > 0 {
		c += " with uncommitted changes"
	}
	return c
}

func (r *benchResults) save(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// loadResults reads an earlier -json file, with one clear error for a
// file that is not one.
func loadResults(path string) (*benchResults, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r benchResults
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s is not a gometal bench -json file: %v", path, err)
	}
	if r.Version != benchResultsVersion || r.Samples == nil {
		return nil, fmt.Errorf("%s is not a gometal bench -json file of version %d (it says version %d)", path, benchResultsVersion, r.Version)
	}
	return &r, nil
}

// compareResults says, per side and figure both runs have, what got
// better or worse beyond the measured noise: the two runs' min–max ranges
// do not overlap. (With one run per side a range is a point, so every
// difference counts: use -runs 3 or more for a verdict.)
func compareResults(old, cur *benchResults) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nCompared with %s (commit %s), beyond the noise (min–max ranges apart):\n", old.Date, old.Commit)
	if old.SMP != 0 && cur.SMP != 0 && old.SMP != cur.SMP {
		fmt.Fprintf(&b, "  (beware: that run had -smp %d, this one -smp %d)\n", old.SMP, cur.SMP)
	}
	n := 0
	for _, sd := range allSides {
		for _, f := range benchFigures {
			ov, nv := old.Samples[sd][f.Name], cur.Samples[sd][f.Name]
			if len(ov) == 0 || len(nv) == 0 {
				continue
			}
			om, olo, ohi := stats(ov)
			nm, nlo, nhi := stats(nv)
			var higher bool
			switch {
			case nlo > ohi:
				higher = true
			case nhi < olo:
				higher = false
			default:
				continue
			}
			verdict := "worse"
			if higher == f.Higher {
				verdict = "better"
			}
			pct := 0.0
			if om != 0 {
				pct = 100 * (nm - om) / om
			}
			fmt.Fprintf(&b, "  %-7s %-14s %-24s %s → %s %s (%+.0f%%)\n", verdict, sd, f.Name, num(om), num(nm), f.Unit, pct)
			n++
		}
	}
	if n == 0 {
		b.WriteString("  nothing changed beyond the noise\n")
	}
	return b.String()
}
