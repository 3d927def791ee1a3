package kernel

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"unsafe"

	"github.com/gometal/gometal/drivers/cpu"
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
	for _, f := range fields {
		if f.off != f.want {
			t.Errorf("SecondaryBoot.%s at %d, constant says %d", f.name, f.off, f.want)
		}
	}
	// The assembly takes every one of these from go_asm.h, never as a
	// number of its own.
	src, err := os.ReadFile("../boot/entry_arm64.s")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(fields, struct {
		name      string
		off, want uintptr
		define    string
	}{define: "MAXCPUS"}, struct {
		name      string
		off, want uintptr
		define    string
	}{define: "KERNBASE"}) {
		m := regexp.MustCompile(`(?m)^#define\s+` + f.define + `\s+(\S+)`).FindSubmatch(src)
		if m == nil || !strings.HasPrefix(string(m[1]), "const_") {
			t.Errorf("boot/entry_arm64.s: #define %s is %q, want a const_ name from go_asm.h", f.define, m)
		}
	}
	if cpu.MaxCPUs != len(b.MPIDR) {
		t.Errorf("SecondaryBoot has %d slots, cpu.MaxCPUs is %d", len(b.MPIDR), cpu.MaxCPUs)
	}
}
