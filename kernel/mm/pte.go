package mm

// Descriptor bits (ARM ARM D8.3). Only what the kernel uses.
const (
	descValid = 1 << 0
	descTable = 3       // bits[1:0] = 0b11 at levels 0-2: next-level table
	descPage  = 3       // bits[1:0] = 0b11 at level 3: page
	descBlock = 1       // bits[1:0] = 0b01 at levels 1-2: block
	descAF    = 1 << 10 // access flag: set, so no access-flag faults
	descNG    = 1 << 11 // not global: the entry matches its ASID only (asid.go)
	descSHIn  = 3 << 8  // inner shareable
	descAPEL0 = 1 << 6  // AP[1]: EL0 may access
	descAPRO  = 1 << 7  // AP[2]: read-only
	descPXN   = 1 << 53 // privileged execute-never
	descUXN   = 1 << 54 // unprivileged execute-never
	// descSpecial marks an app entry whose frame is a device's, not the
	// allocator's (a VMADevice mapping): no count is taken or given back
	// for it, as Linux's PTE_SPECIAL makes vm_normal_page answer NULL.
	// Bits [58:55] of a descriptor are the walker's to ignore, for
	// software (ARM ARM D8.3.2); Linux's arm64 PTE_SPECIAL is bit 56.
	descSpecial = 1 << 56

	attrDevice   = 0 << 2 // MAIR_EL1 Attr0: Device-nGnRnE
	attrNormal   = 1 << 2 // MAIR_EL1 Attr1: Normal write-back
	attrNormalNC = 2 << 2 // MAIR_EL1 Attr2: Normal non-cacheable
	attrMask     = 7 << 2

	descAddrMask = 0x0000_FFFF_FFFF_F000
)

// MAIRValue is MAIR_EL1 (ARM ARM D13.2.97), the memory types the
// descriptors' AttrIndx picks: Attr0 0x00 Device-nGnRnE (MMIO), Attr1
// 0xFF Normal inner and outer write-back read/write-allocate (RAM),
// Attr2 0x44 Normal inner and outer non-cacheable (memory another bus
// master reads: the Pi's framebuffer, written as Linux's ioremap_wc
// maps it). The boot code loads it (boot/main_arm64.go gives it to the
// assembly), so it is defined here once.
const MAIRValue = 0x44FF00

// Prot is a page's access rights, as in mmap's PROT_*.
type Prot uint8

const (
	ProtRead  Prot = 1
	ProtWrite Prot = 2
	ProtExec  Prot = 4
)

// userPTE builds a level-3 descriptor for an app page. The kernel never
// executes app memory (PXN always); EL0 gets execute only with ProtExec.
// A page with no access at all is simply not mapped.
func userPTE(pa uintptr, p Prot) uint64 {
	d := uint64(pa)&descAddrMask | descPage | descAF | descNG | descSHIn | attrNormal | descAPEL0 | descPXN
	if p&ProtWrite == 0 {
		d |= descAPRO
	}
	if p&ProtExec == 0 {
		d |= descUXN
	}
	return d
}

// devicePTE builds a level-3 descriptor for a device's frame in an app
// mapping (VMADevice): special (descSpecial), and Normal non-cacheable,
// as Linux's fb_mmap maps a framebuffer (pgprot_writecombine), and as
// the kernel's own alias of it is (MapNonCacheable): two aliases with
// other cacheability are what ARM ARM B2.8 ("Mismatched memory
// attributes") warns of.
func devicePTE(pa uintptr, p Prot) uint64 {
	return userPTE(pa, p)&^attrMask | attrNormalNC | descSpecial
}

func pteAddr(d uint64) uintptr { return uintptr(d & descAddrMask) }
