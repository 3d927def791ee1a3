package linux

import (
	"github.com/gometal/gometal/drivers/cpu"
	"github.com/gometal/gometal/kernel"
	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/sched"

	"golang.org/x/sys/unix"
)

// Random bytes for AT_RANDOM and getrandom: a ChaCha20 keystream (RFC 8439
// §2.3) keyed from the DTB's /chosen rng-seed (QEMU fills it from the
// host) mixed with counter jitter. Not a substitute for a hardware RNG
// driver; good enough for hash seeds and tests.

var (
	rngKey     [8]uint32
	rngCounter uint32
	rngReady   bool
)

func rotl(x uint32, n uint) uint32 { return x<<n | x>>(32-n) }

func quarter(s *[16]uint32, a, b, c, d int) {
	s[a] += s[b]
	s[d] = rotl(s[d]^s[a], 16)
	s[c] += s[d]
	s[b] = rotl(s[b]^s[c], 12)
	s[a] += s[b]
	s[d] = rotl(s[d]^s[a], 8)
	s[c] += s[d]
	s[b] = rotl(s[b]^s[c], 7)
}

func chachaBlock(out *[64]byte) {
	var s, in [16]uint32
	in[0], in[1], in[2], in[3] = 0x61707865, 0x3320646e, 0x79622d32, 0x6b206574
	copy(in[4:12], rngKey[:])
	in[12] = rngCounter
	rngCounter++
	s = in
	for i := 0; i < 10; i++ {
		quarter(&s, 0, 4, 8, 12)
		quarter(&s, 1, 5, 9, 13)
		quarter(&s, 2, 6, 10, 14)
		quarter(&s, 3, 7, 11, 15)
		quarter(&s, 0, 5, 10, 15)
		quarter(&s, 1, 6, 11, 12)
		quarter(&s, 2, 7, 8, 13)
		quarter(&s, 3, 4, 9, 14)
	}
	for i := range s {
		v := s[i] + in[i]
		out[4*i], out[4*i+1], out[4*i+2], out[4*i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
}

func seedRandom() {
	for i := range rngKey {
		k := uint32(kernel.RNGSeed[4*i]) | uint32(kernel.RNGSeed[4*i+1])<<8 | uint32(kernel.RNGSeed[4*i+2])<<16 | uint32(kernel.RNGSeed[4*i+3])<<24
		rngKey[i] = k ^ uint32(cpu.ReadCNTVCT()*0x9E3779B97F4A7C15>>(i*4))
	}
	rngReady = true
}

func fillRandom(b []byte) {
	if !rngReady {
		seedRandom()
	}
	var blk [64]byte
	for len(b) > 0 {
		chachaBlock(&blk)
		n := copy(b, blk[:])
		b = b[n:]
	}
	// Fast key erasure: the next output cannot reveal this one.
	chachaBlock(&blk)
	for i := range rngKey {
		rngKey[i] ^= uint32(blk[4*i]) | uint32(blk[4*i+1])<<8 | uint32(blk[4*i+2])<<16 | uint32(blk[4*i+3])<<24
	}
}

const getrandomMax = 1 << 25

func sysGetrandom(t *sched.Thread, f *sched.Frame) uint64 {
	buf, n, flags := uintptr(f.X[0]), f.X[1], f.X[2]
	if flags&^uint64(unix.GRND_NONBLOCK|unix.GRND_RANDOM|unix.GRND_INSECURE) != 0 {
		return errno(unix.EINVAL)
	}
	return fillUser(buf, min(n, getrandomMax), true)
}

// fillUser writes n random bytes (or zeros) to app address buf, a chunk
// at a time. Like read(2) it returns how many it wrote before a bad
// address, or EFAULT if it wrote none.
func fillUser(buf uintptr, n uint64, random bool) uint64 {
	var chunk [256]byte
	done := uint64(0)
	for done < n {
		m := min(n-done, uint64(len(chunk)))
		if random {
			fillRandom(chunk[:m])
		} else {
			clear(chunk[:m])
		}
		if !usermem.CopyOut(buf+uintptr(done), chunk[:m]) {
			if done > 0 {
				return done
			}
			return errno(unix.EFAULT)
		}
		done += m
	}
	return done
}
