package linux

// futex operations (include/uapi/linux/futex.h).
const (
	futexWait          = 0
	futexOpWake        = 1
	futexWaitBitset    = 9
	futexWakeBitset    = 10
	futexClockRealtime = 256
	futexCmdMask       = 0x7F // strips FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME
)
