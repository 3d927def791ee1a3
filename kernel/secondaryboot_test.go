package kernel

import (
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
	defs := asmDefines(t, "../boot/entry_arm64.s")
	names := []string{"MAXCPUS", "KERNBASE"}
	for _, f := range fields {
		names = append(names, f.define)
	}
	for _, name := range names {
		if v, ok := defs[name]; !ok || !strings.HasPrefix(v, "const_") {
			t.Errorf("boot/entry_arm64.s: #define %s is %q, want a const_ name from go_asm.h", name, v)
		}
	}
	if cpu.MaxCPUs != len(b.MPIDR) {
		t.Errorf("SecondaryBoot has %d slots, cpu.MaxCPUs is %d", len(b.MPIDR), cpu.MaxCPUs)
	}
}
