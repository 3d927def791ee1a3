// Sleep checks time.Sleep against the monotonic clock and that the wall
// clock came from the RTC; with the argument no-rtc (the Raspberry Pi 4
// has no real-time clock, so its wall clock starts at the epoch, as
// Linux's does there without a network time source) only the clocks'
// progress is checked.
package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	start := time.Now()
	time.Sleep(100 * time.Millisecond)
	d := time.Since(start)
	fmt.Printf("slept %v\n", d.Round(time.Millisecond))
	if d < 100*time.Millisecond || d > 5*time.Second {
		fmt.Println("FAIL: sleep duration out of range")
		os.Exit(1)
	}
	// Timers from several goroutines fire in order.
	done := make(chan int, 3)
	for _, ms := range []int{30, 10, 20} {
		go func(ms int) { time.Sleep(time.Duration(ms) * time.Millisecond); done <- ms }(ms)
	}
	fmt.Println("order:", <-done, <-done, <-done)
	fmt.Println("year:", time.Now().Year())
	noRTC := len(os.Args) > 1 && os.Args[1] == "no-rtc"
	if !noRTC && time.Now().Year() < 2024 {
		fmt.Println("FAIL: wall clock not set")
		os.Exit(1)
	}
	fmt.Println("sleep ok")
}
