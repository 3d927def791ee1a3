package psci

func hvc(fn, a1, a2, a3 uint64) int64
func smc(fn, a1, a2, a3 uint64) int64
