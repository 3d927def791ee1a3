// Hello is the first program to boot on gometal: an ordinary Go program,
// built unmodified for linux/arm64, that shows the runtime is really
// running (goroutines, channels, timers, the GC) on the bare-metal kernel.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
)

func main() {
	fmt.Println("Hello from Go on gometal!")
	fmt.Printf("  args: %q\n", os.Args)
	fmt.Printf("  %s on %s/%s, NumCPU=%d, GOMAXPROCS=%d\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0))

	// Goroutines over channels: a small pipeline of squarers.
	in, out := make(chan int), make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range in {
				out <- n * n
			}
		}()
	}
	go func() { wg.Wait(); close(out) }()
	go func() {
		for i := 1; i <= 100; i++ {
			in <- i
		}
		close(in)
	}()
	sum := 0
	for v := range out {
		sum += v
	}
	fmt.Printf("  sum of squares 1..100 over 4 goroutines: %d\n", sum)

	start := time.Now()
	time.Sleep(50 * time.Millisecond)
	fmt.Printf("  slept %v; wall clock says %s\n", time.Since(start).Round(time.Millisecond), time.Now().UTC().Format(time.RFC3339))

	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	fmt.Printf("  GC cycles: %d, heap in use: %d KiB\n", ms.NumGC, ms.HeapInuse>>10)
}
