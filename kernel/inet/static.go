package inet

// ParseStatic reads a static configuration as the kernel command line
// gives it, gometal.ip=ADDR/PREFIX[,GATEWAY[,DNS]] (dotted quads, a prefix
// length 1 to 32), like the address, netmask and gateway fields of Linux's
// ip= (Documentation/admin-guide/nfs/nfsroot.rst) in CIDR form. ok is
// false for anything else, including an address or gateway that is zero,
// broadcast or multicast.
func ParseStatic(b []byte) (ip, mask, gw, dns [4]byte, ok bool) {
	var field [3][]byte
	n := 0
	start := 0
	for i := 0; i <= len(b); i++ {
		if i == len(b) || b[i] == ',' {
			if n == len(field) {
				return ip, mask, gw, dns, false
			}
			field[n] = b[start:i]
			n++
			start = i + 1
		}
	}
	slash := -1
	for i, c := range field[0] {
		if c == '/' {
			slash = i
		}
	}
	if slash < 0 {
		return ip, mask, gw, dns, false
	}
	ip, ok1 := parseQuad(field[0][:slash])
	prefix, ok2 := parseDec(field[0][slash+1:], 32)
	if !ok1 || !ok2 || prefix == 0 || !usable(ip) {
		return ip, mask, gw, dns, false
	}
	m := ^uint32(0) << (32 - prefix)
	mask = [4]byte{byte(m >> 24), byte(m >> 16), byte(m >> 8), byte(m)}
	if n > 1 {
		if gw, ok1 = parseQuad(field[1]); !ok1 || !usable(gw) {
			return ip, mask, gw, dns, false
		}
	}
	if n > 2 {
		if dns, ok1 = parseQuad(field[2]); !ok1 || !usable(dns) {
			return ip, mask, gw, dns, false
		}
	}
	return ip, mask, gw, dns, true
}

func usable(a [4]byte) bool { return a != [4]byte{} && !isLimitedBroadcast(a) && !isMulticast(a) }

// parseQuad reads a dotted quad, four decimals 0 to 255.
func parseQuad(b []byte) ([4]byte, bool) {
	var a [4]byte
	part := 0
	start := 0
	for i := 0; i <= len(b); i++ {
		if i == len(b) || b[i] == '.' {
			if part == 4 {
				return a, false
			}
			v, ok := parseDec(b[start:i], 255)
			if !ok {
				return a, false
			}
			a[part] = byte(v)
			part++
			start = i + 1
		}
	}
	return a, part == 4
}

// parseDec reads 1 to 3 decimal digits, at most max, with no leading
// zero (which some parsers read as octal: 010 is 8 to inet_aton).
func parseDec(b []byte, max int) (int, bool) {
	if len(b) == 0 || len(b) > 3 || len(b) > 1 && b[0] == '0' {
		return 0, false
	}
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, v <= max
}
