package kernel

// parseSize reads a size as boot arguments give it: a decimal number of
// bytes with an optional K, M or G suffix (binary multiples, as Linux's
// memparse), or a percentage of total ("50%"). It reports false for
// anything else, and for sizes that overflow.
func parseSize(s []byte, total uint64) (uint64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	shift, percent := uint(0), false
	switch s[len(s)-1] {
	case 'k', 'K':
		shift = 10
	case 'm', 'M':
		shift = 20
	case 'g', 'G':
		shift = 30
	case '%':
		percent = true
	}
	if shift != 0 || percent {
		s = s[:len(s)-1]
	}
	if len(s) == 0 {
		return 0, false
	}
	var n uint64
	for _, c := range s {
		if c < '0' || c > '9' || n > (1<<63)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if percent {
		if n > 100 {
			return 0, false
		}
		if total > (1<<64-1)/100 {
			return total / 100 * n, true
		}
		return total * n / 100, true
	}
	if n > (1<<63)>>shift {
		return 0, false
	}
	return n << shift, true
}
