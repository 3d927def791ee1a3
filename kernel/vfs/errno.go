package vfs

import "golang.org/x/sys/unix"

// Results are X0 values, as the Linux ABI returns them: a count, or
// -errno (the top 4,095 values).

// Err returns the X0 value for error e.
func Err(e unix.Errno) uint64 { return uint64(-int64(e)) }

// IsErr says whether r is an error.
func IsErr(r uint64) bool { return r > ^uint64(4095) }

// errAgain is Err(unix.EAGAIN) as a constant (-x == ^(x-1)): a global
// whose value needs code would never be set (package initializers do not
// run).
const errAgain = ^uint64(unix.EAGAIN - 1)
