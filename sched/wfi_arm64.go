package sched

import "gometal/drivers/cpu"

func waitForInterrupt() { cpu.WFI() }
