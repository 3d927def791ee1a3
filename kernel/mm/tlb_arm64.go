package mm

import "gometal/drivers/cpu"

func flushPage(va uintptr) { cpu.TLBIPage(va) }
