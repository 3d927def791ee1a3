package inet

// Checksum is the Internet checksum (RFC 1071 §4.1): the one's complement
// of the one's-complement sum of b as 16-bit big-endian words (an odd last
// byte padded with zero), started from sum (a partial sum, such as a
// pseudo-header's, or 0).
func Checksum(b []byte, sum uint32) uint16 {
	return ^fold(sumWords(b, sum))
}

// sumWords adds b's 16-bit words to sum without folding.
func sumWords(b []byte, sum uint32) uint32 {
	s := uint64(sum)
	for len(b) >= 2 {
		s += uint64(b[0])<<8 | uint64(b[1])
		b = b[2:]
	}
	if len(b) == 1 {
		s += uint64(b[0]) << 8
	}
	for s>>32 != 0 {
		s = s&0xffffffff + s>>32
	}
	return uint32(s)
}

// fold adds the carries back in (RFC 1071 §4.1: "end-around carry").
func fold(s uint32) uint16 {
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	return uint16(s)
}

// pseudoSum is the partial sum of the IPv4 pseudo-header that UDP and TCP
// checksums cover (RFC 768, "Fields"; RFC 793 §3.1).
func pseudoSum(src, dst [4]byte, proto uint8, length int) uint32 {
	s := uint32(src[0])<<8 | uint32(src[1])
	s += uint32(src[2])<<8 | uint32(src[3])
	s += uint32(dst[0])<<8 | uint32(dst[1])
	s += uint32(dst[2])<<8 | uint32(dst[3])
	s += uint32(proto)
	s += uint32(length)
	return s
}
