package mm

import "testing"

// The ASID allocator keeps Linux's invariants through many rollovers of
// a tiny ASID space: no two spaces run with one ASID in a generation,
// a space keeps its ASID while its generation lasts, a core that keeps
// running a space across a rollover keeps its ASID, and every core
// drops its TLB before it first runs an ASID of a new generation.
func TestASIDRollover(t *testing.T) {
	const cores, spaces = 4, 40
	var a ASIDs
	a.Init(MinASIDBits) // 15 ASIDs for 40 spaces
	var ids [spaces]uint64
	var inst [spaces]int // which space a slot holds (a new one after a death)
	next := spaces
	for i := range inst {
		inst[i] = i
	}
	var cur [cores]uint64         // the ASID each core runs
	var running [cores]int        // the slot each core runs, -1: none
	var tlb [cores]map[uint64]int // ASID -> the space whose translations the core may hold
	for c := range running {
		running[c] = -1
		tlb[c] = map[uint64]int{}
	}
	rng := uint64(1)
	for step := 0; step < 20000; step++ {
		rng = rng*6364136223846793005 + 1442695040888963407
		c, s := int(rng>>33)%cores, int(rng>>40)%spaces
		if rng>>20&7 == 0 {
			// A space no core runs dies; its slot holds a new one (a
			// core's TTBR0 keeps a dead space until it switches away).
			d := int(rng>>50) % spaces
			held := false
			for _, r := range running {
				held = held || r == d
			}
			if !held {
				ids[d], inst[d] = 0, next
				next++
			}
		}
		old := ids[s]
		asid, flush := a.Switch(c, &ids[s])
		if asid == 0 || asid > a.mask() {
			t.Fatalf("step %d: ASID %d", step, asid)
		}
		if old != 0 && old&^a.mask() == a.gen && ids[s] != old {
			t.Fatalf("step %d: space %d's ID moved within its generation", step, s)
		}
		if flush {
			tlb[c] = map[uint64]int{}
		}
		// The TLB must hold no other space's translations under the
		// ASID this core now runs with.
		if other, ok := tlb[c][asid]; ok && other != inst[s] {
			t.Fatalf("step %d: core %d runs space %d with ASID %d, under which its TLB holds space %d's", step, c, inst[s], asid, other)
		}
		tlb[c][asid] = inst[s]
		running[c], cur[c] = s, asid
		// A space that runs on several cores runs under one ASID on all
		// (what invalidating its translations by ASID relies on).
		for k := range running {
			if running[k] == s && cur[k] != asid {
				t.Fatalf("step %d: space %d runs as ASID %d on core %d and %d on core %d", step, inst[s], asid, c, cur[k], k)
			}
		}
		// No two spaces of the current generation share an ID.
		seen := map[uint64]int{}
		for i, id := range ids {
			if id == 0 || id&^a.mask() != a.gen {
				continue
			}
			if j, ok := seen[id]; ok {
				t.Fatalf("step %d: spaces %d and %d share ID %#x", step, i, j, id)
			}
			seen[id] = i
		}
	}
	if a.Rollovers < 100 {
		t.Errorf("only %d rollovers in 20,000 switches of 40 spaces over 15 ASIDs", a.Rollovers)
	}
}

// A space keeps its ID while the generation lasts; with the full 16
// bits, 64 spaces never roll over.
func TestASIDStable(t *testing.T) {
	var a ASIDs
	a.Init(16)
	var ids [64]uint64
	for round := 0; round < 3; round++ {
		for i := range ids {
			old := ids[i]
			a.Switch(i%4, &ids[i])
			if round > 0 && ids[i] != old {
				t.Fatalf("space %d's ID moved from %#x to %#x", i, old, ids[i])
			}
		}
	}
	if a.Rollovers != 0 {
		t.Errorf("%d rollovers", a.Rollovers)
	}
}
