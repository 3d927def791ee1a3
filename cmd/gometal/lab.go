package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gometal/gometal/linker"
)

// Labs, in xv6's manner: each lab's solution is the real kernel. Regions
// of the source carry markers,
//
//	// lab:NAME begin
//	...the working code...
//	// lab:NAME stub
//	// ...the code a student starts from, commented out...
//	// lab:NAME end
//
// gometal lab start NAME [DIR] copies the tree with each region of the
// lab replaced by its stub (uncommented), which compiles and fails the
// lab's tests; gometal lab grade NAME runs those tests (the system and
// host tests that already exist, listed with their points in
// labs/NAME/lab.json) and prints points per test and "total: N/M". The
// labs cannot drift from the kernel: they are the kernel, and make test
// grades main (full marks) and a fresh start (zero) for every lab.

// labSpec is labs/NAME/lab.json.
type labSpec struct {
	Name    string    `json:"-"`
	Title   string    `json:"title"`
	Minutes int       `json:"minutes"` // the time to allow
	Tests   []labTest `json:"tests"`
}

type labTest struct {
	Pkg    string `json:"pkg"`  // "./tests", "./sched", ...
	Name   string `json:"name"` // a top-level test function
	Points int    `json:"points"`
}

func (l *labSpec) points() int {
	n := 0
	for _, t := range l.Tests {
		n += t.Points
	}
	return n
}

// readLabs reads every labs/*/lab.json of the tree at root.
func readLabs(root string) ([]labSpec, error) {
	paths, err := filepath.Glob(filepath.Join(root, "labs", "*", "lab.json"))
	if err != nil {
		return nil, err
	}
	var labs []labSpec
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var l labSpec
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		l.Name = filepath.Base(filepath.Dir(p))
		if len(l.Tests) == 0 || l.Title == "" {
			return nil, fmt.Errorf("%s: a lab needs a title and tests", p)
		}
		labs = append(labs, l)
	}
	sort.Slice(labs, func(i, j int) bool { return labs[i].Name < labs[j].Name })
	return labs, nil
}

func findLab(labs []labSpec, name string) (*labSpec, error) {
	var names []string
	for i := range labs {
		if labs[i].Name == name {
			return &labs[i], nil
		}
		names = append(names, labs[i].Name)
	}
	return nil, fmt.Errorf("no lab %q; the labs are: %s", name, strings.Join(names, ", "))
}

// markerRe matches a lab marker line: indentation, "// lab:NAME WORD".
var markerRe = regexp.MustCompile(`^\s*// lab:([a-z0-9-]+) (begin|stub|end)\s*$`)

// stubSource returns src with every region of lab name replaced by its
// stub (the commented lines between "stub" and "end", uncommented), and
// how many regions it replaced. Markers out of order are an error.
func stubSource(src []byte, name string) ([]byte, int, error) {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	state, regions, line := "", 0, 0 // state: "", "begin" (dropping), "stub" (uncommenting)
	for sc.Scan() {
		line++
		l := sc.Text()
		if m := markerRe.FindStringSubmatch(l); m != nil && m[1] == name {
			want := map[string]string{"begin": "", "stub": "begin", "end": "stub"}[m[2]]
			if state != want {
				return nil, 0, fmt.Errorf("line %d: lab:%s %s after %q", line, name, m[2], state)
			}
			state = m[2]
			if state == "end" {
				state = ""
				regions++
			}
			continue
		}
		switch state {
		case "begin":
			continue
		case "stub":
			t := strings.TrimLeft(l, " \t")
			if !strings.HasPrefix(t, "//") {
				return nil, 0, fmt.Errorf("line %d: a lab:%s stub line must be a comment", line, name)
			}
			indent := l[:len(l)-len(t)]
			l = indent + strings.TrimPrefix(strings.TrimPrefix(t, "//"), " ")
		}
		out.WriteString(l)
		out.WriteByte('\n')
	}
	if state != "" {
		return nil, 0, fmt.Errorf("lab:%s region not closed", name)
	}
	return out.Bytes(), regions, sc.Err()
}

// labFiles lists the files of the tree at root that a working copy gets:
// the files git tracks (with their changes) in a checkout, else every
// file but build outputs.
func labFiles(root string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(root, ".git")); err == nil {
		out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
		if err == nil {
			var files []string
			for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
				if _, err := os.Lstat(filepath.Join(root, f)); err == nil && f != "" {
					files = append(files, f)
				}
			}
			return files, nil
		}
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && (rel == "bin" || rel == "build" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			files = append(files, rel)
		}
		return nil
	})
	return files, err
}

// labStart makes dir a working copy of root with lab l's regions
// stubbed.
func labStart(root string, l *labSpec, dir string) error {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return fmt.Errorf("%s is not empty; give a new or empty directory", dir)
	}
	files, err := labFiles(root)
	if err != nil {
		return err
	}
	regions := 0
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return err
		}
		st, err := os.Stat(filepath.Join(root, f))
		if err != nil {
			return err
		}
		if strings.HasSuffix(f, ".go") && bytes.Contains(src, []byte("// lab:"+l.Name+" ")) {
			var n int
			if src, n, err = stubSource(src, l.Name); err != nil {
				return fmt.Errorf("%s: %v", f, err)
			}
			regions += n
			fmt.Fprintf(os.Stderr, "gometal lab: %s: %d region(s) to write\n", f, n)
		}
		dst := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, src, st.Mode().Perm()); err != nil {
			return err
		}
	}
	if regions == 0 {
		return fmt.Errorf("no lab:%s regions in the sources", l.Name)
	}
	// A repository of its own, so that git diff shows the student's work.
	if _, err := exec.LookPath("git"); err == nil {
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"},
			{"-c", "user.name=gometal", "-c", "user.email=lab@gometal", "commit", "-q", "-m", "lab " + l.Name + ": the starting point"}} {
			if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
				return fmt.Errorf("git %s: %v\n%s", args[0], err, out)
			}
		}
	}
	return nil
}

// labGrade runs lab l's tests in the tree at root and prints points per
// test and the total; it returns the points earned.
func labGrade(root string, l *labSpec, w io.Writer) (int, error) {
	byPkg := map[string][]string{}
	var pkgs []string
	for _, t := range l.Tests {
		if byPkg[t.Pkg] == nil {
			pkgs = append(pkgs, t.Pkg)
		}
		byPkg[t.Pkg] = append(byPkg[t.Pkg], t.Name)
	}
	passed := map[string]bool{}
	ran := map[string]bool{}
	outputs := map[string][]string{} // a test's output lines, to show with a failure
	for _, pkg := range pkgs {
		fmt.Fprintf(w, "running %s in %s…\n", strings.Join(byPkg[pkg], ", "), pkg)
		cmd := exec.Command("go", "test", "-count=1", "-json", "-timeout", "10m", "-run", "^("+strings.Join(byPkg[pkg], "|")+")$", pkg)
		cmd.Dir = root
		// A stub that hangs the guest must fail in seconds, not at the
		// test's usual minute: the system tests' runs get this timeout.
		cmd.Env = append(os.Environ(), "GOMETAL_TEST_RUN_TIMEOUT="+labRunTimeout.String())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, _ := cmd.Output() // failing tests exit non-zero; the JSON says which
		dec := json.NewDecoder(bytes.NewReader(out))
		var pkgOut []string
		for {
			var ev struct{ Action, Test, Output string }
			if err := dec.Decode(&ev); err != nil {
				break
			}
			key := pkg + "." + ev.Test
			switch {
			case ev.Test == "" && (ev.Action == "output" || ev.Action == "build-output"):
				pkgOut = append(pkgOut, strings.TrimRight(ev.Output, "\n"))
			case ev.Test == "" || strings.Contains(ev.Test, "/"):
			case ev.Action == "run":
				ran[key] = true
			case ev.Action == "pass":
				passed[key] = true
			case ev.Action == "output":
				outputs[key] = append(outputs[key], strings.TrimRight(ev.Output, "\n"))
			}
		}
		started := false
		for _, name := range byPkg[pkg] {
			started = started || ran[pkg+"."+name]
		}
		if !started {
			// Nothing ran: the package (or the kernel its tests build)
			// did not build. The lab's code must compile.
			fmt.Fprintf(w, "%s: no test ran; go test said:\n", pkg)
			lines := append(pkgOut, strings.Split(strings.TrimSpace(stderr.String()), "\n")...)
			for _, l := range lastLines(lines, 20) {
				fmt.Fprintln(w, "    "+l)
			}
		}
	}
	got := 0
	for _, t := range l.Tests {
		mark, pts := "FAIL", 0
		if passed[t.Pkg+"."+t.Name] {
			mark, pts = "OK", t.Points
		}
		got += pts
		fmt.Fprintf(w, "%-4s %-45s %d/%d\n", mark, strings.TrimPrefix(t.Pkg, "./")+" "+t.Name, pts, t.Points)
		if mark == "FAIL" {
			for _, l := range failureLines(outputs[t.Pkg+"."+t.Name]) {
				fmt.Fprintln(w, "    "+l)
			}
		}
	}
	fmt.Fprintf(w, "total: %d/%d\n", got, l.points())
	return got, nil
}

// labRunTimeout bounds each QEMU run of a graded system test.
const labRunTimeout = 45 * time.Second

// labRoot is the tree a lab command acts on: the checkout above the
// working directory (a lab's working copy), else the CLI's own.
func labRoot() (string, error) {
	if wd, err := os.Getwd(); err == nil {
		if d, ok := linker.RootAbove(wd); ok {
			return d, nil
		}
	}
	return linker.FindRoot(srcRoot)
}

// labCmd is `gometal lab`, `gometal lab start NAME [DIR]`, `gometal lab
// grade NAME`.
func labCmd(args []string) int {
	root, err := labRoot()
	if err != nil {
		fmt.Fprintf(os.Stderr, "gometal lab: %v\n", err)
		return 1
	}
	labs, err := readLabs(root)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gometal lab: %v\n", err)
		return 1
	}
	if len(args) == 0 || args[0] == "list" {
		fmt.Printf("labs in %s (docs/LABS.md):\n", root)
		for _, l := range labs {
			fmt.Printf("  %-10s %-58s %3d points, about %d min\n", l.Name, l.Title, l.points(), l.Minutes)
		}
		fmt.Println("start one: gometal lab start NAME [DIR]; grade it there: gometal lab grade NAME (or make grade LAB=NAME)")
		return 0
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "gometal lab: want gometal lab start NAME [DIR] or gometal lab grade NAME")
		return exitUsage
	}
	l, err := findLab(labs, args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "gometal lab: %v\n", err)
		return exitUsage
	}
	switch args[0] {
	case "start":
		dir := "gometal-lab-" + l.Name
		if len(args) > 2 {
			dir = args[2]
		}
		if len(args) > 3 {
			fmt.Fprintln(os.Stderr, "gometal lab: want gometal lab start NAME [DIR]")
			return exitUsage
		}
		if err := labStart(root, l, dir); err != nil {
			fmt.Fprintf(os.Stderr, "gometal lab start: %v\n", err)
			if errors.Is(err, fs.ErrExist) || strings.Contains(err.Error(), "not empty") {
				return exitUsage
			}
			return 1
		}
		fmt.Printf("lab %s: %s\nyour copy is %s; read labs/%s/README.md there, then: cd %s && make grade LAB=%s\n",
			l.Name, l.Title, dir, l.Name, dir, l.Name)
		return 0
	case "grade":
		if len(args) != 2 {
			fmt.Fprintln(os.Stderr, "gometal lab: want gometal lab grade NAME")
			return exitUsage
		}
		fmt.Printf("grading lab %s in %s (each test boots the kernel built from this tree)\n", l.Name, root)
		got, err := labGrade(root, l, os.Stdout)
		if err != nil {
			fmt.Fprintf(os.Stderr, "gometal lab grade: %v\n", err)
			return 1
		}
		if got < l.points() {
			return 1
		}
		return 0
	}
	fmt.Fprintf(os.Stderr, "gometal lab: unknown subcommand %q (list, start, grade)\n", args[0])
	return exitUsage
}

// failureLines is what a failed test's output shows of why: its
// reports (the t.Error and t.Fatal lines, "name_test.go:N: ...", the
// first of them), then its last lines, which a long guest log would
// otherwise push the reasons out of.
func failureLines(lines []string) []string {
	const reports, tail = 12, 8
	var out []string
	for _, l := range lines {
		if len(out) < reports && testReportRe.MatchString(l) {
			out = append(out, l)
		}
	}
	for _, l := range lastLines(lines, tail) {
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// testReportRe matches a test's report line: "    foo_test.go:12: ...".
var testReportRe = regexp.MustCompile(`^\s*\w+_test\.go:\d+: `)

// lastLines is the last n non-empty lines.
func lastLines(lines []string, n int) []string {
	var keep []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			keep = append(keep, l)
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return keep
}
