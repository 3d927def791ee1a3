package kernel

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// asmDefines returns the object-like #defines of the assembly file at
// path, name to value.
func asmDefines(t *testing.T, path string) map[string]string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^#define\s+(\w+)\s+(\S+)`).FindAllSubmatch(src, -1) {
		defs[string(m[1])] = string(m[2])
	}
	return defs
}

// entry_arm64.s takes the frame's and the CPU's layout from Go
// (entry_layout.go through go_asm.h), never as a number of its own, so
// that a field moved in sched cannot leave the assembly behind.
func TestEntryLayoutFromGo(t *testing.T) {
	defs := asmDefines(t, "entry_arm64.s")
	if len(defs) < 10 {
		t.Fatalf("found %d #defines in entry_arm64.s, want the frame's and CPU's layout", len(defs))
	}
	for name, val := range defs {
		if !strings.HasPrefix(val, "const_") {
			t.Errorf("entry_arm64.s: #define %s %s: want a const_ name from go_asm.h (entry_layout.go)", name, val)
		}
	}
}
