package sdhci

import "testing"

// setCSD puts value v at CSD bits hi..lo of response registers r (CSD bit
// n at register bit n-8).
func setCSD(r *[4]uint32, hi, lo uint, v uint64) {
	for b := lo; b <= hi; b++ {
		if v>>(b-lo)&1 != 0 {
			r[(b-8)/32] |= 1 << ((b - 8) % 32)
		}
	}
}

func TestCSDBlocks(t *testing.T) {
	// Version 2.0 (SDHC): C_SIZE 15159 is a "8 GB" card: 15160 x 512 KiB.
	var v2 [4]uint32
	setCSD(&v2, 127, 126, 1)
	setCSD(&v2, 69, 48, 15159)
	if got, want := CSDBlocks(v2), uint64(15160*1024); got != want {
		t.Errorf("v2: %d blocks, want %d", got, want)
	}
	// Version 1.0 (SDSC): 1 GiB as QEMU's sd.c encodes it: READ_BL_LEN 9,
	// C_SIZE_MULT 7 (x512), C_SIZE 4095: 4096 x 512 x 512 bytes.
	var v1 [4]uint32
	setCSD(&v1, 83, 80, 9)
	setCSD(&v1, 73, 62, 4095)
	setCSD(&v1, 49, 47, 7)
	if got, want := CSDBlocks(v1), uint64(1<<30/512); got != want {
		t.Errorf("v1: %d blocks, want %d", got, want)
	}
	var v3 [4]uint32
	setCSD(&v3, 127, 126, 2) // reserved structure version
	if got := CSDBlocks(v3); got != 0 {
		t.Errorf("reserved CSD version: %d blocks, want 0", got)
	}
}
