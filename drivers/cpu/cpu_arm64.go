package cpu

// The functions below are implemented in cpu_arm64.s. Register names and
// encodings follow the Arm Architecture Reference Manual for A-profile
// (ARM DDI 0487), chapter D13 "AArch64 System Register Descriptions".

// DSB ISH; ISB: publish stores (page-table entries, spin-table releases)
// to every core in the inner-shareable domain (ARM ARM B2.3.12).
func BarrierISH()

// DSB SY; ISB.
func BarrierSY()

// BarrierISHST: DSB ISHST (see cpu_arm64.s).
func BarrierISHST()

// CleanDcache cleans [va, va+n) to the point of coherency (DC CVAC).
func CleanDcache(va, n uintptr)

// CleanInvalidateDcache cleans [va, va+n) to the point of coherency and
// drops the lines (DC CIVAC), for memory another agent that does not
// snoop the caches reads and then writes (the Pi's VideoCore).
func CleanInvalidateDcache(va, n uintptr)

// ISB: make a system-register write take effect (ARM ARM D1.7).
func ISB()

// WFI waits for an interrupt. An IRQ wakes the core even while PSTATE.I
// masks it (ARM ARM D1.6.2 "Wait for Interrupt"), so the idle loop runs
// with IRQs masked and polls the GIC after waking.
func WFI()

// WFE / SEV: spin-table release and cheap spinning.
func WFE()
func SEV()

// ReadFP returns the calling function's frame pointer (cpu_arm64.s).
func ReadFP() uintptr

// TLBIAll invalidates all EL1&0 stage-1 TLB entries on every core
// (TLBI VMALLE1IS; DSB ISH; ISB).
func TLBIAll()

// TLBIPage invalidates the entry for one user page on every core
// (TLBI VAAE1IS takes VA[55:12] in bits [43:0], all ASIDs).
func TLBIPage(va uintptr)

// TLBIPageASID invalidates one user page's entries for one address
// space on every core (TLBI VAE1IS: VA[55:12] in bits [43:0], the ASID
// in bits [63:48]; ARM ARM D8.13 and the TLBI VAE1IS page). The ASID is
// *id&mask, read after the DSB ISH that completes the caller's change
// of the entry: a core that gives the space a new ASID (a generation
// rolled over) and then walks either is seen here with it, or walks
// after the change (it orders its ID's store before its walks: the
// ASID switch's DSB). VAE1IS also drops global entries for the VA,
// whatever their ASID, so a kernel page mapped there is not left stale.
func TLBIPageASID(va uintptr, id *uint64, mask uint64)

// TLBIASID invalidates every non-global entry tagged with the ASID
// *id&mask (read as TLBIPageASID reads it) on every core (TLBI
// ASIDE1IS): one address space's translations, the kernel's global
// ones kept.
func TLBIASID(id *uint64, mask uint64)

// ICacheInvalidate invalidates all instruction caches to the point of
// unification after new code was written (IC IALLUIS; DSB ISH; ISB).
func ICacheInvalidate()

func ReadESR() uint64

// ReadISR returns ISR_EL1: nonzero while an interrupt is pending at this
// core, whether or not PSTATE masks it (what ends a WFI). Unlike the
// counter and the timer registers, QEMU's TCG reads it without its
// global lock, so a core may poll it.
func ReadISR() uint64
func ReadFAR() uint64
func ReadELR() uint64
func ReadSPSR() uint64
func ReadMPIDR() uint64
func ReadMIDR() uint64
func ReadCNTVCT() uint64
func ReadCNTFRQ() uint64
func ReadIDAA64ISAR0() uint64
func ReadIDAA64ISAR1() uint64
func ReadIDAA64PFR0() uint64
func ReadTTBR0() uint64
func ReadTTBR1() uint64
func ReadVBAR() uint64
func ReadCurrentEL() uint64
func ReadSP() uint64

func WriteTTBR0(v uint64)

// ASIDBits is the width of this core's ASIDs: 16 where
// ID_AA64MMFR0_EL1.ASIDBits says 0b0010, else 8 (ARM ARM D13.2.64).
func ASIDBits() uint

// UseASIDs16 sets TCR_EL1.AS, so that TTBR0_EL1[63:48] is a 16-bit
// ASID (else bits [55:48], 8), and drops this core's TLB, whose
// entries were tagged under the old width (ARM ARM D13.2.131).
func UseASIDs16()

// SwitchTTBR0 points TTBR0_EL1 at a table with an ASID (v: the table's
// physical address | ASID<<48); with flush, it then drops this core's
// whole TLB (TLBI VMALLE1; DSB NSH; ISB): the ASIDs began a new
// generation since this core last switched.
func SwitchTTBR0(v uint64, flush bool)
func WriteTTBR1(v uint64)
func WriteVBAR(v uint64)
func WriteTPIDREL1(v uint64)
func ReadTPIDREL1() uint64
func WriteCNTVCVAL(v uint64)
func WriteCNTVCTL(v uint64)
func WriteCNTKCTL(v uint64)

// SemihostCall performs an Arm semihosting call (HLT #0xF000, Arm
// "Semihosting for AArch32 and AArch64" v2.0 §2.2): op in W0, parameter
// block address in X1, result in X0.
func SemihostCall(op uint64, arg uintptr) uint64

// Halt stops this core forever (WFI loop with everything masked).
func Halt()

// TTBR0Walks enables or disables the TTBR0 (user) half of the address
// space for this core.
func TTBR0Walks(on bool)
