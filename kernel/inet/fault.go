package inet

// Fault injection (boot argument gometal.netfault=drop=N,dup=M): every
// Nth frame each way is dropped and every Mth duplicated, so that TCP's
// retransmission and duplicate handling run in system tests too, on a
// link (QEMU's user networking) that never loses anything.

// Fault is one direction's injection: every DropEvery'th frame dropped,
// every DupEvery'th sent twice (0: never).
type Fault struct {
	DropEvery, DupEvery uint32
	n                   uint32
}

// FaultIn and FaultOut are the received and the sent direction's.
var FaultIn, FaultOut Fault

// Next counts a frame and says what to do with it.
func (f *Fault) Next() (drop, dup bool) {
	if f.DropEvery == 0 && f.DupEvery == 0 {
		return false, false
	}
	f.n++
	if f.DropEvery != 0 && f.n%f.DropEvery == 0 {
		Stats.FaultDropped++
		return true, false
	}
	if f.DupEvery != 0 && f.n%f.DupEvery == 0 {
		Stats.FaultDuplicated++
		return false, true
	}
	return false, false
}

// faultEveryMax bounds N and M (a million frames is a gigabyte).
const faultEveryMax = 1000000

// ParseFault reads gometal.netfault's value, drop=N and dup=M in either
// order, comma-separated, each at most once, N and M from 2 (every other
// frame) to a million.
func ParseFault(b []byte) (drop, dup uint32, ok bool) {
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != ',' {
			i++
		}
		kv := b[:i]
		if i < len(b) {
			i++
			if i == len(b) {
				return 0, 0, false // a trailing comma
			}
		}
		b = b[i:]
		var dst *uint32
		switch {
		case len(kv) > 5 && string(kv[:5]) == "drop=":
			dst, kv = &drop, kv[5:]
		case len(kv) > 4 && string(kv[:4]) == "dup=":
			dst, kv = &dup, kv[4:]
		default:
			return 0, 0, false
		}
		if *dst != 0 || len(kv) > 7 || kv[0] == '0' {
			return 0, 0, false
		}
		v := uint32(0)
		for _, c := range kv {
			if c < '0' || c > '9' {
				return 0, 0, false
			}
			v = v*10 + uint32(c-'0')
		}
		if v < 2 || v > faultEveryMax {
			return 0, 0, false
		}
		*dst = v
	}
	return drop, dup, drop != 0 || dup != 0
}
