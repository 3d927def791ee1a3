package linux

import "unsafe"

// Little-endian fields in byte buffers the kernel lays out for the app
// (the signal frame, the vDSO page). Both arm64 and the hosts that run
// the unit tests are little-endian, and the kernel maps its memory
// Normal, so plain (possibly unaligned) loads and stores do; the first
// index checks that the whole field lies inside b.

func put16(b []byte, off int, v uint16) {
	_ = b[off+1]
	*(*uint16)(unsafe.Pointer(&b[off])) = v
}

func put32(b []byte, off int, v uint32) {
	_ = b[off+3]
	*(*uint32)(unsafe.Pointer(&b[off])) = v
}

func put64(b []byte, off int, v uint64) {
	_ = b[off+7]
	*(*uint64)(unsafe.Pointer(&b[off])) = v
}

func get32(b []byte, off int) uint32 {
	_ = b[off+3]
	return *(*uint32)(unsafe.Pointer(&b[off]))
}

func get64(b []byte, off int) uint64 {
	_ = b[off+7]
	return *(*uint64)(unsafe.Pointer(&b[off]))
}
