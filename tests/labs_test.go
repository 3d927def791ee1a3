package tests

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// labNames are the labs in labs/ (docs/LABS.md); TestLabs checks that
// the list here and the directory agree, so a new lab is graded too.
var labNames = []string{"cow", "fs", "futex", "gpio", "placement", "poller", "sigframe", "syscall", "tty", "wait"}

// TestLabs grades every lab twice, as a student's tree would be graded:
// the main tree, whose kernel is every lab's solution, must get full
// marks; a fresh gometal lab start copy, with the lab's regions replaced
// by their stubs, must build and get zero, so a stub can never pass.
func TestLabs(t *testing.T) {
	t.Parallel()
	dirs, _ := filepath.Glob(filepath.Join(repoRoot, "labs", "*", "lab.json"))
	var found []string
	for _, d := range dirs {
		found = append(found, filepath.Base(filepath.Dir(d)))
	}
	if strings.Join(found, " ") != strings.Join(labNames, " ") {
		t.Fatalf("labs/ has %v; this test grades %v", found, labNames)
	}
	for _, name := range labNames {
		t.Run(name, func(t *testing.T) {
			full := grade(t, repoRoot, name)
			if full.got != full.max || full.max == 0 {
				t.Errorf("the main tree gets %d/%d on lab %s:\n%s", full.got, full.max, name, full.out)
			}
			dir := filepath.Join(t.TempDir(), "lab")
			cmd := exec.Command(gometalBin, "lab", "start", name, dir)
			cmd.Dir = repoRoot
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("gometal lab start %s: %v\n%s", name, err, out)
			}
			stub := grade(t, dir, name)
			if stub.got != 0 || stub.max != full.max {
				t.Errorf("a fresh start of lab %s gets %d/%d, want 0/%d:\n%s", name, stub.got, stub.max, full.max, stub.out)
			}
			if strings.Contains(stub.out, "no test ran") {
				t.Errorf("lab %s's stub does not build:\n%s", name, stub.out)
			}
		})
	}
}

type graded struct {
	got, max int
	out      string
}

// grade runs gometal lab grade NAME in the tree at dir.
func grade(t *testing.T, dir, name string) graded {
	t.Helper()
	cmd := exec.Command(gometalBin, "lab", "grade", name)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput() // non-zero below full marks
	m := regexp.MustCompile(`(?m)^total: (\d+)/(\d+)$`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("gometal lab grade %s in %s printed no total:\n%s", name, dir, out)
	}
	var g graded
	fmt.Sscan(m[1], &g.got)
	fmt.Sscan(m[2], &g.max)
	g.out = string(out)
	return g
}

// Bad input to gometal lab: an unknown lab lists the known ones; start
// refuses a directory that is not empty and changes nothing in it.
func TestLabBadInput(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(gometalBin, "lab", "start", "nosuch")
	cmd.Dir = repoRoot
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), strings.Join(labNames, ", ")) {
		t.Errorf("an unknown lab: %v\n%s", err, out)
	}
	dir := t.TempDir()
	keep := filepath.Join(dir, "mine.go")
	if err := os.WriteFile(keep, []byte("package mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(gometalBin, "lab", "start", "futex", dir)
	cmd.Dir = repoRoot
	out, err = cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "not empty") {
		t.Errorf("start into a non-empty directory: %v\n%s", err, out)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("start into a non-empty directory changed it: %d entries", len(ents))
	}
	cmd = exec.Command(gometalBin, "lab")
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil || strings.Count(string(out), "points") != len(labNames) {
		t.Errorf("gometal lab lists:\n%s (%v)", out, err)
	}
}
