package prof

// The per-core tables of distinct samples: open addressing on a hash of
// the sample's kind, argument, thread and PCs. Table c is written only
// by core c (at its own interrupt, under the kernel lock), so no lock.

type table struct {
	used    int
	dropped uint64
	s       [TableEntries]Sample
}

var tables [maxCores]table

// maxCores matches the kernel's core limit (drivers/cpu.MaxCPUs).
const maxCores = 8

// on is set at boot when profiling was asked for; off, each hook costs
// one load and branch.
var on bool

// Enable turns profiling on. (The sampling period is the scheduler's to
// keep, sched.ProfPeriod: it arms the timers by it.)
func Enable() { on = true }

// Disable stops sampling, so the tables hold still while written out.
func Disable() { on = false }

// On reports whether profiling is on.
func On() bool { return on }

// Add counts n samples of s on core c (n > 1 when periods went by
// without an interrupt: the core was idle, or in the kernel with
// interrupts masked).
func Add(c int, s *Sample, n uint64) {
	if !on || c < 0 || c >= maxCores || n == 0 {
		return
	}
	t := &tables[c]
	h := hash(s)
	for probe := uint64(0); probe < TableEntries; probe++ {
		e := &t.s[(h+probe)%TableEntries]
		if e.Count == 0 {
			if t.used >= TableEntries*3/4 {
				break // keep probes short: a full table drops
			}
			*e = *s
			e.Count = n
			t.used++
			return
		}
		if same(e, s) {
			e.Count += n
			return
		}
	}
	t.dropped += n
}

func same(a, b *Sample) bool {
	if a.Kind != b.Kind || a.Arg != b.Arg || a.TID != b.TID || a.PID != b.PID || a.Frames != b.Frames {
		return false
	}
	for i := 0; i < int(a.Frames); i++ {
		if a.PC[i] != b.PC[i] {
			return false
		}
	}
	return true
}

// hash is FNV-1a over the sample's identity.
func hash(s *Sample) uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		for k := 0; k < 8; k++ {
			h = (h ^ (v >> (8 * k) & 0xff)) * 1099511628211
		}
	}
	mix(uint64(s.Kind)<<40 | uint64(s.Frames)<<32 | uint64(s.Arg))
	mix(uint64(s.TID))
	for i := 0; i < int(s.Frames); i++ {
		mix(s.PC[i])
	}
	return h
}

// Table returns core c's distinct samples (in table order, unused
// entries included: Count 0) and how many it dropped.
func Table(c int) ([]Sample, uint64) {
	return tables[c].s[:], tables[c].dropped
}

// Reset empties every table (host tests).
func Reset() {
	tables = [maxCores]table{}
	on = false
}
