package main

import (
	"fmt"
	"strings"
	"testing"
)

// A region's working code goes and its stub comes in, uncommented, with
// the indentation it had; other labs' regions stay as they are.
func TestStubSource(t *testing.T) {
	src := `func f() int {
	// lab:a begin
	return 42
	// lab:a stub
	// // TODO(lab a): the answer
	// return 0
	// lab:a end
	// lab:b begin
	return 7
	// lab:b stub
	// return -1
	// lab:b end
}
`
	got, n, err := stubSource([]byte(src), "a")
	if err != nil || n != 1 {
		t.Fatalf("regions %d, %v", n, err)
	}
	want := `func f() int {
	// TODO(lab a): the answer
	return 0
	// lab:b begin
	return 7
	// lab:b stub
	// return -1
	// lab:b end
}
`
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	for _, bad := range []string{
		"// lab:a stub\n// lab:a end\n",                       // no begin
		"// lab:a begin\nx\n",                                 // not closed
		"// lab:a begin\nx\n// lab:a stub\ny\n// lab:a end\n", // a stub line that is not a comment
		"// lab:a begin\n// lab:a end\n",                      // no stub
	} {
		if _, _, err := stubSource([]byte(bad), "a"); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	if _, err := findLab([]labSpec{{Name: "x"}, {Name: "y"}}, "z"); err == nil || !strings.Contains(err.Error(), "x, y") {
		t.Errorf("an unknown lab: %v", err)
	}
}

// TestFailureLines: a failed test's reports come first, whatever the
// log after them, then its last lines.
func TestFailureLines(t *testing.T) {
	lines := []string{"=== RUN   TestX", "    x_test.go:10: gometal run: status 1 after 2s",
		"    x_test.go:11: exit status 1, want 0"}
	for i := 0; i < 40; i++ {
		lines = append(lines, fmt.Sprintf("        guest line %d", i))
	}
	lines = append(lines, "--- FAIL: TestX (2.00s)")
	got := failureLines(lines)
	if len(got) < 3 || got[0] != lines[1] || got[1] != lines[2] || got[len(got)-1] != "--- FAIL: TestX (2.00s)" {
		t.Errorf("failureLines = %q", got)
	}
}
