package trace

import "github.com/gometal/gometal/drivers/cpu"

func now() uint64 { return cpu.ReadCNTVCT() }
