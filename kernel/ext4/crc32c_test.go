package ext4

import (
	"hash/crc32"
	"math/rand"
	"testing"
)

// TestCrc32cMatchesCastagnoli checks the literal table and the raw (no
// inversion) form against hash/crc32: Castagnoli's standard CRC is the raw
// one seeded with ~0 and inverted at the end.
func TestCrc32cMatchesCastagnoli(t *testing.T) {
	tab := crc32.MakeTable(crc32.Castagnoli)
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 300; n++ {
		p := make([]byte, n*7)
		r.Read(p)
		seed := r.Uint32()
		if got, want := Crc32c(seed, p), ^crc32.Update(^seed, tab, p); got != want {
			t.Fatalf("len %d seed %#x: got %#x want %#x", len(p), seed, got, want)
		}
		if got, want := ^Crc32c(^uint32(0), p), crc32.Checksum(p, tab); got != want {
			t.Fatalf("len %d: standard form %#x want %#x", len(p), got, want)
		}
	}
	if got, want := crc32cLE32(5, 0x01020304), Crc32c(5, []byte{4, 3, 2, 1}); got != want {
		t.Fatalf("crc32cLE32 %#x want %#x", got, want)
	}
}
