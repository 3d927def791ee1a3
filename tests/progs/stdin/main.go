// Stdin reads lines from the console until EOF-free input ends with "quit".
package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	s := bufio.NewScanner(os.Stdin)
	n := 0
	for s.Scan() {
		line := s.Text()
		if line == "quit" {
			break
		}
		n++
		fmt.Printf("got %q\n", line)
	}
	fmt.Printf("stdin ok: %d lines\n", n)
}
