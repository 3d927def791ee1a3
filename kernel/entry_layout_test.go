package kernel

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// entry_arm64.s takes the frame's and the CPU's layout from Go
// (entry_layout.go through go_asm.h), never as a number of its own, so
// that a field moved in sched cannot leave the assembly behind.
func TestEntryLayoutFromGo(t *testing.T) {
	src, err := os.ReadFile("entry_arm64.s")
	if err != nil {
		t.Fatal(err)
	}
	defs := regexp.MustCompile(`(?m)^#define\s+(\w+)\s+(\S+)`).FindAllSubmatch(src, -1)
	if len(defs) < 10 {
		t.Fatalf("found %d #defines in entry_arm64.s, want the frame's and CPU's layout", len(defs))
	}
	for _, d := range defs {
		name, val := string(d[1]), string(d[2])
		if !strings.HasPrefix(val, "const_") {
			t.Errorf("entry_arm64.s: #define %s %s: want a const_ name from go_asm.h (entry_layout.go)", name, val)
		}
	}
}
