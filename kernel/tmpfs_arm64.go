package kernel

import "github.com/gometal/gometal/kernel/mm"

// The tmpfs's size limit (kernel/fs), as Linux's tmpfs has one: by
// default half of memory; the boot argument gometal.tmpfs_size=SIZE
// (e.g. 64M or 25%) sets it.

// tmpSizeArg is the boot argument's value, nil for the default.
var tmpSizeArg []byte

// tmpfsDefaultPercent of memory is the limit without a boot argument.
const tmpfsDefaultPercent = 50

// TmpfsLimit returns the tmpfs's size limit in bytes.
func TmpfsLimit() uint64 {
	total := uint64(mm.Pages.Total() * mm.PageSize)
	size := total / 100 * tmpfsDefaultPercent
	if len(tmpSizeArg) > 0 {
		if n, ok := parseSize(tmpSizeArg, total); ok {
			size = n
		} else if Info("ignoring gometal.tmpfs_size=") {
			PutBytes(tmpSizeArg)
			Puts(": want a size like 64M or 25%")
			InfoEnd()
		}
	}
	return size
}
