package vfs

import "unsafe"

func indexOf(f *File) int32 {
	return int32((uintptr(unsafe.Pointer(f)) - uintptr(unsafe.Pointer(&Files[0]))) / unsafe.Sizeof(Files[0]))
}
