// Hello prints its arguments and an environment variable.
package main

import (
	"fmt"
	"os"
	"runtime"
)

func main() {
	fmt.Println("hello from gometal")
	fmt.Printf("args=%q\n", os.Args[1:])
	fmt.Printf("GREETING=%s\n", os.Getenv("GREETING"))
	fmt.Printf("cpus=%d gomaxprocs=%d\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	wd, err := os.Getwd()
	fmt.Printf("wd=%s err=%v\n", wd, err)
}
