package kernel

import (
	"os"
	"regexp"
	"strconv"
	"testing"
	"unsafe"

	"gometal/drivers/cpu"
)

// boot/entry_arm64.s reads SecondaryBoot with the MMU off through
// #defines; they, the kernel's constants and the struct must agree.
func TestSecondaryBootLayout(t *testing.T) {
	var b SecondaryBoot
	fields := []struct {
		name      string
		off, want uintptr
		define    string
	}{
		{"TTBR0", unsafe.Offsetof(b.TTBR0), SecondaryOffTTBR0, "SB_TTBR0"},
		{"TTBR1", unsafe.Offsetof(b.TTBR1), SecondaryOffTTBR1, "SB_TTBR1"},
		{"MPIDR", unsafe.Offsetof(b.MPIDR), SecondaryOffMPIDR, "SB_MPIDR"},
		{"CPU", unsafe.Offsetof(b.CPU), SecondaryOffCPU, "SB_CPU"},
		{"SP", unsafe.Offsetof(b.SP), SecondaryOffSP, "SB_SP"},
	}
	src, err := os.ReadFile("../boot/entry_arm64.s")
	if err != nil {
		t.Fatal(err)
	}
	define := func(name string) int {
		m := regexp.MustCompile(`(?m)^#define\s+` + name + `\s+(\w+)`).FindSubmatch(src)
		if m == nil {
			t.Fatalf("boot/entry_arm64.s has no #define %s", name)
		}
		v, err := strconv.ParseInt(string(m[1]), 0, 64)
		if err != nil {
			t.Fatalf("#define %s %s: %v", name, m[1], err)
		}
		return int(v)
	}
	for _, f := range fields {
		if f.off != f.want {
			t.Errorf("SecondaryBoot.%s at %d, constant says %d", f.name, f.off, f.want)
		}
		if d := define(f.define); uintptr(d) != f.off {
			t.Errorf("#define %s %d, struct field at %d", f.define, d, f.off)
		}
	}
	if define("MAXCPUS") != cpu.MaxCPUs {
		t.Errorf("#define MAXCPUS differs from cpu.MaxCPUs %d", cpu.MaxCPUs)
	}
}
