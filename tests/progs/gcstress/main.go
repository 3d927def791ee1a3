// Gcstress allocates several times the guest's memory in total while
// keeping a bounded live set, so it passes only if the GC and the kernel
// really give memory back (MADV_DONTNEED, munmap).
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
)

type node struct {
	next *node
	buf  [96]byte
}

func main() {
	totalMiB := 1024
	if len(os.Args) > 1 {
		totalMiB, _ = strconv.Atoi(os.Args[1])
	}
	var live [64]*node
	allocated := 0
	for i := 0; allocated < totalMiB<<20; i++ {
		// A chain of small objects plus a large slice per round.
		var head *node
		for j := 0; j < 1000; j++ {
			head = &node{next: head}
			head.buf[j%96] = byte(j)
		}
		live[i%len(live)] = head
		big := make([]byte, 1<<20)
		big[len(big)-1] = 1
		allocated += 1000*112 + len(big)
	}
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("allocated %d MiB, numgc=%d, heapsys=%d MiB\n", allocated>>20, ms.NumGC, ms.HeapSys>>20)
	if ms.NumGC == 0 {
		fmt.Println("FAIL: no GC ran")
		os.Exit(1)
	}
	fmt.Println("gcstress ok")
}
