package cpu

// Exception classes (ESR_ELx.EC, Arm ARM D13.2.39): what kind of
// synchronous exception a core took.
const (
	ECUnknown   = 0x00
	ECFPTrapped = 0x07
	ECSVC64     = 0x15
	ECSysReg    = 0x18
	ECIABTLow   = 0x20 // instruction abort from a lower EL (the app)
	ECIABTCur   = 0x21
	ECPCAlign   = 0x22
	ECDABTLow   = 0x24 // data abort from a lower EL (the app)
	ECDABTCur   = 0x25
	ECSPAlign   = 0x26
	ECFPExc     = 0x2C
	ECBRK       = 0x3C
)

// EC returns the exception class of syndrome esr (ESR_ELx[31:26]).
func EC(esr uint64) uint64 { return esr >> 26 & 0x3F }
