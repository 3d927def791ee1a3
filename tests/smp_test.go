package tests

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// Every core: the app's Ms run on all the cores QEMU gives the guest.

func TestNumCPUFollowsSMP(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 4} {
		r := gometal(t, "run", "-smp", fmt.Sprint(n), "./tests/progs/smp", "--", "info")
		r.expect(t, 0,
			fmt.Sprintf("gometal: cores: %d of %d online", n, n),
			fmt.Sprintf("NumCPU=%d GOMAXPROCS=%d affinity=%d", n, n, n))
	}
}

func TestSpinnersOnDistinctCores(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "4", "./tests/progs/smp", "--", "spread")
	r.expect(t, 0, "spinners=4 cores=[0 1 2 3] distinct=4")
}

func TestMutexCounterExact(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "4", "./tests/progs/smp", "--", "mutex", "100000")
	r.expect(t, 0, "mutex counter=800000 want=800000")
}

func TestAffinityAndGetcpu(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "4", "./tests/progs/smp", "--", "affinity")
	r.expect(t, 0, "pinned to core 3: ok", "pinned to core 0: ok", "affinity ok")
}

func TestMixedStress30sOn4Cores(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "4", "-timeout", "150s", "-bootarg", "gometal.stats=1",
		"./tests/progs/smp", "--", "stress", "30")
	r.expect(t, 0, "stress ok", "gometal: stats: core 3:")
}

// Secondary cores start through PSCI over SMC when the kernel is entered
// at EL2 (the firmware is at EL3 then), and under a GICv3 wake-ups are
// SGIs through ICC_SGI1R_EL1: both paths bring up all cores.
func TestSMPAtEL2WithGICv3(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "4", "-machine", "virt,virtualization=on,gic-version=3",
		"./tests/progs/smp", "--", "spread")
	r.expect(t, 0, "entered at EL2", "cores: 4 of 4 online", "distinct=4")
}

// A deadlock ends in a report naming the lock and its holder, not a hang:
// gometal.crashtest=deadlock makes a secondary core take the kernel lock
// it already holds.
func TestDeadlockIsReported(t *testing.T) {
	t.Parallel()
	// The lock-order checker would report the second acquisition before
	// it spins (TestLockOrderViolationIsReported); this is the report of
	// a kernel without it.
	r := gometal(t, "run", "-smp", "2", "-timeout", "60s", "-bootarg", "gometal.crashtest=deadlock", "-bootarg", "gometal.lockcheck=0", "./tests/progs/hello")
	// Either core may notice first (core 0 waits for the same lock); the
	// report must name the lock and its holder, core 1.
	r.expect(t, 125, "for the kernel lock, held by core 1", "kernel panic: spinlock held too long")
	if !regexp.MustCompile(`gometal: deadlock: core [01] waited 1 s`).MatchString(r.out) {
		t.Errorf("no deadlock line naming the waiting core:\n%s", r.out)
	}
}

// The lock-order checker (gometal.lockcheck=1, on in every test boot)
// reports a lock taken against the order before the core spins on it,
// naming both acquisitions with their call sites symbolized: here core 1
// takes the kernel lock it already holds (gometal.crashtest=deadlock).
func TestLockOrderViolationIsReported(t *testing.T) {
	t.Parallel()
	r := gometal(t, "run", "-smp", "2", "-timeout", "60s", "-bootarg", "gometal.crashtest=deadlock", "-bootarg", "gometal.lockcheck=1", "./tests/progs/hello")
	r.expect(t, 125, "kernel panic: lock order violated",
		"core 1 takes the kernel lock (rank 1), which it already holds")
	// Both stacks, symbolized: each names the function that took the lock.
	for _, want := range []string{"taking kernel at:", "kernel was taken at:", "kernel.SecondaryStart"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("report lacks %q:\n%s", want, r.out)
		}
	}
	if strings.Contains(r.out, "spinlock held too long") {
		t.Errorf("the checker let the core spin into the deadlock:\n%s", r.out)
	}
}

// The Go standard library's own tests of sync and sync/atomic, at 1, 2
// and 4 Ps on 4 cores (TestMutexMisuse and TestIssue76126 re-run the
// test binary as a child process). Skipped by name, and only these:
//   - TestStoreLoadSeqCst* (sync/atomic) check that STLR followed by LDAR
//     is not reordered. QEMU 7.2's TCG on an x86 host reorders them: the
//     same test binary fails the same way under qemu-aarch64 user-mode
//     emulation, with no gometal involved (`qemu-aarch64 atomic.test
//     -test.run TestStoreLoadSeqCst -test.cpu 2,4`). Real cores order them.
func TestStdlibSyncOnAllCores(t *testing.T) {
	goTestExec(t, true, []string{"-cpu", "1,2,4", "-skip", "^(TestStoreLoadSeqCst.*)$"}, "sync", "sync/atomic")
}

// The runtime's own scheduler tests that need real parallel Ms, in full
// (TestStopTheWorldDeadlock skips itself under -short).
func TestRuntimeSchedulerTests(t *testing.T) {
	goTestExec(t, false, []string{"-cpu", "1,2,4", "-run",
		"^(TestGoroutineParallelism|TestGoroutineParallelism2|TestStopTheWorldDeadlock|TestYieldProgress|TestTimerFairness|TestTimerFairness2)$"},
		"runtime")
}
