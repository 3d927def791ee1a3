package linux

import "golang.org/x/sys/unix"

// The NTP state adjtimex(2) and clock_adjtime(2) read and set, as
// Linux's kernel/time/ntp.c keeps it (__do_adjtimex) and with its
// checks (timekeeping_validate_timex). gometal keeps the values and
// reports them, with the same units, clamps and status rules; it does
// not discipline the clock with them: CLOCK_MONOTONIC is the generic
// timer's counter, which nothing slews, skews or gives a leap second,
// and the wall clock moves only when it is set (settimeofday,
// clock_settime, ADJ_SETOFFSET). So an offset, a frequency or an
// adjtime() given stays as given, and the clock state is always
// TIME_OK (TIME_ERROR while unsynchronised).

// adjtimex modes and status bits (include/uapi/linux/timex.h).
const (
	adjOffset         = 0x0001
	adjFrequency      = 0x0002
	adjMaxerror       = 0x0004
	adjEsterror       = 0x0008
	adjStatus         = 0x0010
	adjTimeconst      = 0x0020
	adjTAI            = 0x0080
	adjSetoffset      = 0x0100
	adjMicro          = 0x1000
	adjNano           = 0x2000
	adjTick           = 0x4000
	adjAdjtime        = 0x8000 // ADJ_OFFSET_SINGLESHOT is this and ADJ_OFFSET
	adjOffsetReadonly = 0x2000 // with adjAdjtime: ADJ_OFFSET_SS_READ

	staPLL      = 0x0001
	staUnsync   = 0x0040
	staClockerr = 0x1000
	staNano     = 0x2000
	// staReadonly are the bits ADJ_STATUS cannot change (STA_RONLY:
	// PPSSIGNAL, PPSJITTER, PPSWANDER, PPSERROR, CLOCKERR, NANO, MODE,
	// CLK).
	staReadonly = 0xff00

	timeOK    = 0
	timeError = 5
)

// The NTP engine's constants (include/linux/timex.h, kernel/time/ntp.c).
const (
	ntpScaleShift  = 32
	ppmScale       = 1000 << (ntpScaleShift - 16)                    // PPM_SCALE: ppm << 16 to scaled ns/s
	ppmScaleInvSh  = 19                                              // PPM_SCALE_INV_SHIFT
	ppmScaleInv    = (1<<(ppmScaleInvSh+ntpScaleShift))/ppmScale + 1 // PPM_SCALE_INV
	maxPhase       = 500_000_000                                     // MAXPHASE, ns
	maxFreqScaled  = 500_000 << ntpScaleShift                        // MAXFREQ_SCALED: 500 ppm
	maxTC          = 10                                              // MAXTC
	ntpPhaseLimit  = (maxPhase / 1000) << 5                          // NTP_PHASE_LIMIT, µs
	ntpUserHZ      = 100                                             // USER_HZ
	tickUsecBoot   = (1_000_000 + ntpUserHZ/2) / ntpUserHZ           // TICK_USEC
	int64Max       = 1<<63 - 1
	int64Min       = -1 << 63
	timexTolerance = maxFreqScaled / ppmScale
	maxTAIOffset   = 100_000 // MAX_TAI_OFFSET
)

// ntpState is Linux's time_status, time_constant, time_maxerror,
// time_esterror, time_freq (scaled ns/s), time_offset (as the PLL was
// given it, in ns), time_adjust (adjtime's µs) and tick_usec.
type ntpState struct {
	ready              bool
	status             int32
	constant           int64
	maxerror, esterror int64
	freq               int64
	offset             int64
	adjust             int64
	tick               int64
}

// init gives n Linux's values at boot (ntp_init): unsynchronised, PLL
// time constant 2, the errors at their limit, one tick of 10 ms.
func (n *ntpState) init() {
	if n.ready {
		return
	}
	*n = ntpState{ready: true, status: staUnsync, constant: 2, maxerror: ntpPhaseLimit, esterror: ntpPhaseLimit, tick: tickUsecBoot}
}

// clear is Linux's ntp_clear, which setting the clock runs: adjtime()
// stops, the clock is unsynchronised and its errors at their limit.
func (n *ntpState) clear() {
	n.init()
	n.adjust = 0
	n.status |= staUnsync
	n.maxerror, n.esterror = ntpPhaseLimit, ntpPhaseLimit
	n.offset = 0
}

// validateTimex is timekeeping_validate_timex: EPERM for a change the
// caller may not make (CAP_SYS_TIME: root here), EINVAL for a tick off
// by more than 10%, an ADJ_SETOFFSET with its sub-second part out of
// range, or a frequency that would overflow once scaled.
func validateTimex(tx *unix.Timex, privileged bool) unix.Errno {
	modes := tx.Modes
	if modes&adjAdjtime != 0 {
		// (Linux's check that the single-shot mode has its offset bit
		// is always met: ADJ_OFFSET_SINGLESHOT includes ADJ_ADJTIME.)
		if modes&adjOffsetReadonly == 0 && !privileged {
			return unix.EPERM
		}
	} else {
		if modes != 0 && !privileged {
			return unix.EPERM
		}
		if modes&adjTick != 0 && (tx.Tick < 900_000/ntpUserHZ || tx.Tick > 1_100_000/ntpUserHZ) {
			return unix.EINVAL
		}
	}
	if modes&adjSetoffset != 0 {
		if !privileged {
			return unix.EPERM
		}
		limit := int64(1_000_000)
		if modes&adjNano != 0 {
			limit = 1_000_000_000
		}
		if tx.Time.Usec < 0 || tx.Time.Usec >= limit {
			return unix.EINVAL
		}
	}
	if modes&adjFrequency != 0 && (tx.Freq < int64Min/ppmScale || tx.Freq > int64Max/ppmScale) {
		return unix.EINVAL
	}
	return 0
}

// setoffset is what ADJ_SETOFFSET adds to the wall clock.
func setoffset(tx *unix.Timex) (sec, nsec int64) {
	if tx.Modes&adjNano != 0 {
		return tx.Time.Sec, tx.Time.Usec
	}
	return tx.Time.Sec, tx.Time.Usec * 1000
}

// shiftRight is ntp.c's shift_right: an arithmetic shift that rounds
// towards zero.
func shiftRight(x int64, s uint) int64 {
	if x < 0 {
		return -(-x >> s)
	}
	return x >> s
}

// adjtimex is __do_adjtimex on a validated tx, the wall clock reading
// now (ns): the changes tx's modes ask for, then the state written back
// into tx; it returns the clock state and CLOCK_TAI's new lead (tai, as
// given: ADJ_TAI sets it from tx's constant).
func (n *ntpState) adjtimex(tx *unix.Timex, now int64, tai int32) (int, int32) {
	n.init()
	modes := tx.Modes
	if modes&adjAdjtime != 0 {
		old := n.adjust
		if modes&adjOffsetReadonly == 0 {
			n.adjust = tx.Offset // adjtime() is apart from the PLL
		}
		tx.Offset = old
	} else {
		if modes&adjStatus != 0 {
			if n.status&staPLL != 0 && tx.Status&staPLL == 0 {
				n.status = staUnsync // the PLL turned off: TIME_OK, unsynchronised
			}
			n.status = n.status&staReadonly | tx.Status&^staReadonly
		}
		if modes&adjNano != 0 {
			n.status |= staNano
		}
		if modes&adjMicro != 0 {
			n.status &^= staNano
		}
		if modes&adjFrequency != 0 {
			n.freq = min(max(tx.Freq*ppmScale, -maxFreqScaled), maxFreqScaled)
		}
		if modes&adjMaxerror != 0 {
			n.maxerror = tx.Maxerror
		}
		if modes&adjEsterror != 0 {
			n.esterror = tx.Esterror
		}
		if modes&adjTimeconst != 0 {
			c := tx.Constant
			if n.status&staNano == 0 {
				c += 4
			}
			n.constant = min(max(c, 0), maxTC)
		}
		if modes&adjTAI != 0 && tx.Constant >= 0 && tx.Constant <= maxTAIOffset {
			tai = int32(tx.Constant)
		}
		if modes&adjOffset != 0 && n.status&staPLL != 0 {
			off := tx.Offset
			if n.status&staNano == 0 {
				off *= 1000
			}
			n.offset = min(max(off, -maxPhase), maxPhase)
		}
		if modes&adjTick != 0 {
			n.tick = tx.Tick
		}
		tx.Offset = n.offset
		if n.status&staNano == 0 {
			tx.Offset /= 1000 // signed, as Linux since 6.4 (6.1 divides it as a u32)
		}
	}
	state := timeOK
	if n.status&(staUnsync|staClockerr) != 0 {
		state = timeError
	}
	tx.Freq = shiftRight((n.freq>>ppmScaleInvSh)*ppmScaleInv, ntpScaleShift)
	tx.Maxerror, tx.Esterror = n.maxerror, n.esterror
	tx.Status = n.status
	tx.Constant = n.constant
	tx.Precision = 1
	tx.Tolerance = timexTolerance
	tx.Tick = n.tick
	tx.Tai = tai
	tx.Ppsfreq, tx.Jitter, tx.Shift, tx.Stabil = 0, 0, 0, 0 // no PPS (CONFIG_NTP_PPS)
	tx.Jitcnt, tx.Calcnt, tx.Errcnt, tx.Stbcnt = 0, 0, 0, 0
	tx.Time.Sec, tx.Time.Usec = now/1e9, now%1e9
	if n.status&staNano == 0 {
		tx.Time.Usec /= 1000
	}
	return state, tai
}
