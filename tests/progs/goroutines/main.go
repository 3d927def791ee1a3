// Goroutines passes a token through a ring of 10,000 goroutines connected
// by unbuffered channels, then fans 10,000 results in through one channel.
package main

import (
	"fmt"
	"sync"
)

const n = 10000

func main() {
	first := make(chan int)
	in := first
	for i := 0; i < n; i++ {
		out := make(chan int)
		go func(in <-chan int, out chan<- int) { out <- 1 + <-in }(in, out)
		in = out
	}
	first <- 0
	fmt.Println("ring:", <-in)

	results := make(chan int, 64)
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func(i int) { defer wg.Done(); results <- i }(i)
	}
	go func() { wg.Wait(); close(results) }()
	sum := 0
	for v := range results {
		sum += v
	}
	fmt.Println("sum:", sum)
}
