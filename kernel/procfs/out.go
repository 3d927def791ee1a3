package procfs

// Out is where a /proc file's bytes are made before a read copies its
// window of them (under the kernel lock: one at a time). A file longer
// than Out is cut at its end, as none of those gometal makes comes near.
var Out Buf

// OutSize bounds a /proc file.
const OutSize = 64 << 10

// Buf is a fixed buffer text is appended to; what does not fit is
// dropped.
type Buf struct {
	b [OutSize]byte
	n int
}

// Reset empties the buffer.
func (b *Buf) Reset() { b.n = 0 }

// Bytes is what was appended.
func (b *Buf) Bytes() []byte { return b.b[:b.n] }

// Len is how much was appended.
func (b *Buf) Len() int { return b.n }

// Str appends s.
func (b *Buf) Str(s string) *Buf {
	b.n += copy(b.b[b.n:], s)
	return b
}

// Raw appends p.
func (b *Buf) Raw(p []byte) *Buf {
	b.n += copy(b.b[b.n:], p)
	return b
}

// Byte appends c.
func (b *Buf) Byte(c byte) *Buf {
	if b.n < len(b.b) {
		b.b[b.n] = c
		b.n++
	}
	return b
}

// Dec appends v in decimal.
func (b *Buf) Dec(v int64) *Buf {
	var d [24]byte
	return b.Raw(Decimal(d[:], v))
}

// Udec appends v in decimal.
func (b *Buf) Udec(v uint64) *Buf {
	var d [24]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return b.Raw(d[i:])
}

// Pad appends v in decimal right-aligned in width columns (the
// "%8lu" of /proc/meminfo).
func (b *Buf) Pad(v uint64, width int) *Buf {
	var d [24]byte
	n := len(Decimal(d[:], int64(v)))
	for ; n < width; n++ {
		b.Byte(' ')
	}
	return b.Udec(v)
}

// Hex appends v in lowercase hexadecimal, at least width digits (zero
// padded: the "%08lx" of maps, "%016llx" of status's masks).
func (b *Buf) Hex(v uint64, width int) *Buf {
	var d [16]byte
	i := len(d)
	for {
		i--
		d[i] = "0123456789abcdef"[v&15]
		v >>= 4
		if v == 0 && len(d)-i >= width || i == 0 {
			break
		}
	}
	return b.Raw(d[i:])
}

// Oct appends v in octal, at least width digits (status's Umask).
func (b *Buf) Oct(v uint64, width int) *Buf {
	var d [22]byte
	i := len(d)
	for {
		i--
		d[i] = byte('0' + v&7)
		v >>= 3
		if v == 0 && len(d)-i >= width || i == 0 {
			break
		}
	}
	return b.Raw(d[i:])
}

// Frac appends v/100 with two decimals ("12.34": uptime, loadavg).
func (b *Buf) Frac(v uint64) *Buf {
	b.Udec(v / 100).Byte('.')
	if v%100 < 10 {
		b.Byte('0')
	}
	return b.Udec(v % 100)
}

// Decimal writes v into buf, right-aligned, and returns the digits.
func Decimal(buf []byte, v int64) []byte {
	neg := v < 0
	u := uint64(v)
	if neg {
		u = -u
	}
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
		if u == 0 || i == 0 {
			break
		}
	}
	if neg && i > 0 {
		i--
		buf[i] = '-'
	}
	return buf[i:]
}

// Window copies into dst the part of Out from off on, and returns how
// much.
func Window(dst []byte, off int64) int {
	if off >= int64(Out.n) || off < 0 {
		return 0
	}
	return copy(dst, Out.b[off:Out.n])
}
