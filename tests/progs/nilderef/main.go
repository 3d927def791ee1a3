// Nilderef dereferences nil: the kernel turns the data abort into SIGSEGV,
// Go's handler turns that into a panic, and recover catches it.
package main

import (
	"fmt"
	"os"
)

type T struct{ x int }

//go:noinline
func deref(p *T) int { return p.x }

func main() {
	for i := 0; i < 3; i++ {
		func() {
			defer func() {
				r := recover()
				fmt.Println("recovered:", r)
			}()
			var p *T
			fmt.Println(deref(p))
		}()
	}
	if len(os.Args) > 1 && os.Args[1] == "unrecovered" {
		var p *T
		fmt.Println(deref(p))
	}
	fmt.Println("nilderef ok")
}
