// Command blink blinks a GPIO line through Linux's GPIO character
// device with go-gpiocdev, as it would on a Pi's Linux: by default the
// Raspberry Pi 4's green activity LED (line 42 of gpiochip0, named
// STATUS_LED_G_CLK in the device tree), which nothing else in gometal
// holds.
//
//	bin/gometal run -board rpi4 ./examples/blink -- -n 6 -period 250ms
//	bin/gometal run ./examples/blink -- -line 0   # virt's PL061
//
// On a board, an LED of your own: its anode through a 330 Ω resistor to
// header pin 11 (GPIO17), its cathode to pin 9 (GND), then -line GPIO17.
// With -watch LINE it also requests that line as an input with a pull-up
// and prints its edges while blinking: wire pin 11 to pin 13 (GPIO27)
// through a 1 kΩ resistor and run -line GPIO17 -watch GPIO27 to see
// each blink come back as an edge event from the GPIO interrupt.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/warthog618/go-gpiocdev"
	"golang.org/x/sys/unix"
)

func main() {
	chip := flag.String("chip", "gpiochip0", "the GPIO chip")
	line := flag.String("line", "STATUS_LED_G_CLK", "the line to blink: its name, or its offset")
	watch := flag.String("watch", "", "a line to watch for edges while blinking (name or offset)")
	n := flag.Int("n", 10, "blinks")
	period := flag.Duration("period", 500*time.Millisecond, "one blink: on, then off")
	flag.Parse()

	// As PID 1 (gometal run boots it as init) there is no /sys yet, and
	// go-gpiocdev checks the chip's device number there: mount it as an
	// init would.
	if os.Getpid() == 1 {
		os.MkdirAll("/sys", 0o755)
		if err := unix.Mount("sysfs", "/sys", "sysfs", 0, ""); err != nil {
			fmt.Fprintln(os.Stderr, "blink: mount /sys:", err)
		}
	}
	c, err := gpiocdev.NewChip(*chip, gpiocdev.WithConsumer("blink"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "blink: %s: %v (the Pi's GPIO is gpiochip0 on -board rpi4, virt's PL061 gpiochip0 on virt)\n", *chip, err)
		os.Exit(1)
	}
	defer c.Close()
	offset := find(c, *line)
	l, err := c.RequestLine(offset, gpiocdev.AsOutput(0))
	if err != nil {
		fmt.Fprintf(os.Stderr, "blink: request %s line %d: %v\n", *chip, offset, err)
		os.Exit(1)
	}
	defer l.Close()
	if *watch != "" {
		w := find(c, *watch)
		wl, err := c.RequestLine(w, gpiocdev.WithPullUp, gpiocdev.WithBothEdges,
			gpiocdev.WithEventHandler(func(e gpiocdev.LineEvent) {
				fmt.Printf("blink: line %d %v at %v\n", e.Offset, e.Type, e.Timestamp)
			}))
		if err != nil {
			fmt.Fprintf(os.Stderr, "blink: watch line %d: %v\n", w, err)
			os.Exit(1)
		}
		defer wl.Close()
	}
	fmt.Printf("blink: %s line %d (%s), %d times every %v\n", *chip, offset, *line, *n, *period)
	for k := 0; k < *n; k++ {
		for _, v := range []int{1, 0} {
			if err := l.SetValue(v); err != nil {
				fmt.Fprintln(os.Stderr, "blink:", err)
				os.Exit(1)
			}
			got, _ := l.Value()
			fmt.Printf("blink: %d set %d reads %d\n", k+1, v, got)
			time.Sleep(*period / 2)
		}
	}
}

// find returns the offset of line name (or a number) on c.
func find(c *gpiocdev.Chip, name string) int {
	var o int
	if _, err := fmt.Sscan(name, &o); err == nil {
		return o
	}
	o, err := c.FindLine(name)
	if err != nil {
		fmt.Fprintf(os.Stderr, "blink: no line %q on %s (%s): %v; name one with -line (a name or an offset)\n", name, c.Name, c.Label, err)
		os.Exit(1)
	}
	return o
}
