package mm

// ASIDs: address-space identifiers, so that a core switching between
// processes keeps the translations of each in its TLB, tagged, instead
// of dropping them all (ARM ARM D8.16: with TCR_EL1.A1 = 0 the ASID is
// TTBR0_EL1[63:48], and an entry with nG set matches only its ASID).
//
// The allocator is Linux's (arch/arm64/mm/context.c), kept whole: an
// ID is a generation and an ASID; a space keeps its ID while the
// generation lasts, and an ASID is never handed out twice in one
// generation, so a dead space's ASID is not reused until every core has
// dropped its TLB. When the ASIDs run out the generation rolls over:
// the map is cleared except for the ASID each core runs now (reserved:
// that core may keep running it without switching, its translations in
// its TLB), and every core drops its whole TLB before it first uses an
// ASID of the new generation. A space whose old ID is reserved keeps
// the same ASID in the new generation; any other gets a free one.
//
// ASID 0 is never handed out: a core whose TTBR0 walks are off, or at
// boot, carries it.
type ASIDs struct {
	// Bits is the ASID width: 16 where the core has them
	// (ID_AA64MMFR0_EL1.ASIDBits, TCR_EL1.AS), else 8, or fewer when the
	// boot argument gometal.asidbits= forces a tiny space (a test of
	// rollover).
	Bits uint
	gen  uint64 // the current generation: a multiple of 1<<Bits, never 0
	next uint64 // where the search for a free ASID starts
	used [1 << 16 / 64]uint64

	active   [MaxCores]uint64 // the ID each core runs now (0: none since the last rollover)
	reserved [MaxCores]uint64 // the ID each core ran at the last rollover
	flush    uint32           // cores to drop their TLB before their next switch

	// Rollovers counts the generations begun after the first
	// (GOMETAL_STATS).
	Rollovers uint64
}

// asidMask selects the ASID from a space's ID for the invalidations by
// ASID (tlb_arm64.go): the kernel's allocator's width (UseASIDBits).
var asidMask uint64

// UseASIDBits tells the invalidations the width of the kernel's ASIDs,
// chosen once at boot before any app runs (kernel/asid_arm64.go). The
// upper 8 bits of a TLBI's ASID field must be 0 while TCR_EL1.AS says
// 8-bit ASIDs (ARM ARM D8.13.2), which a mask of the width keeps.
func UseASIDBits(bits uint) { asidMask = 1<<bits - 1 }

// MinASIDBits is the narrowest ASID space Init accepts: at least one
// ASID free beside one reserved per core.
const MinASIDBits = 4

// Init starts the first generation with bits-wide ASIDs (clamped to
// [MinASIDBits, 16]).
func (a *ASIDs) Init(bits uint) {
	bits = max(MinASIDBits, min(bits, 16))
	*a = ASIDs{Bits: bits, gen: 1 << bits, next: 1}
	a.set(0)
}

func (a *ASIDs) mask() uint64 { return 1<<a.Bits - 1 }

func (a *ASIDs) set(n uint64)        { a.used[n/64] |= 1 << (n % 64) }
func (a *ASIDs) isSet(n uint64) bool { return a.used[n/64]&(1<<(n%64)) != 0 }

// Switch gives the ASID core is to run the space whose ID is *id (0:
// none yet) with, updating *id, and whether the core must drop its
// whole TLB first (a generation began since its last switch). The
// caller holds the allocator's lock.
func (a *ASIDs) Switch(core int, id *uint64) (asid uint64, flush bool) {
	if *id == 0 || *id&^a.mask() != a.gen {
		*id = a.newID(*id)
	}
	a.active[core] = *id
	if a.flush&(1<<uint(core)) != 0 {
		a.flush &^= 1 << uint(core)
		flush = true
	}
	return *id & a.mask(), flush
}

// newID is a space's ID in the current generation: its old ASID if a
// core still runs it (reserved) or nobody took it yet, else a free one,
// rolling the generation over when none is.
func (a *ASIDs) newID(old uint64) uint64 {
	if old != 0 {
		n := old & a.mask()
		if a.updateReserved(old, a.gen|n) {
			return a.gen | n
		}
		if !a.isSet(n) {
			a.set(n)
			return a.gen | n
		}
	}
	n := a.find()
	if n == 0 {
		a.rollover()
		n = a.find() // at most MaxCores are reserved: Init's bound leaves one
	}
	a.set(n)
	a.next = n + 1
	return a.gen | n
}

// find returns a free ASID from next on, wrapping once, or 0.
func (a *ASIDs) find() uint64 {
	size := uint64(1) << a.Bits
	for i := uint64(0); i < size; i++ {
		n := (a.next + i) % size
		if n != 0 && !a.isSet(n) {
			return n
		}
	}
	return 0
}

// updateReserved moves every core's reservation of old to new and
// reports whether there was one (check_update_reserved_asid).
func (a *ASIDs) updateReserved(old, new uint64) bool {
	hit := false
	for c := range a.reserved {
		if a.reserved[c] == old {
			a.reserved[c] = new
			hit = true
		}
	}
	return hit
}

// rollover begins a generation (flush_context): only the ASIDs the
// cores run now stay taken, and every core drops its TLB before its
// next switch.
func (a *ASIDs) rollover() {
	a.gen += 1 << a.Bits
	a.used = [len(a.used)]uint64{}
	a.set(0)
	for c := range a.active {
		id := a.active[c]
		if id == 0 {
			id = a.reserved[c] // no switch since the last rollover: still running it
		}
		a.reserved[c] = id
		a.active[c] = 0
		if id != 0 {
			a.set(id & a.mask())
		}
	}
	a.flush = 1<<MaxCores - 1
	a.next = 1
	a.Rollovers++
}
