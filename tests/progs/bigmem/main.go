// Command bigmem touches more memory than the Raspberry Pi 4's first
// GiB holds (TestRPi4MemoryAboveOneGiB): 100 MiB slices, every page of
// each written with its own byte and read back after all are written,
// so a page the kernel mapped twice, or memory that is not there, shows
// as a wrong byte. It prints /proc/meminfo's MemTotal first.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

func main() {
	const mib, page = 1 << 20, 4096
	total := 1500
	if len(os.Args) > 1 {
		total, _ = strconv.Atoi(os.Args[1])
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		s := bufio.NewScanner(f)
		for s.Scan() {
			if strings.HasPrefix(s.Text(), "MemTotal:") {
				fmt.Println("bigmem:", strings.Join(strings.Fields(s.Text()), " "))
			}
		}
		f.Close()
	}
	var bufs [][]byte
	for i := 0; i < total/100; i++ {
		b := make([]byte, 100*mib)
		for j := 0; j < len(b); j += page {
			b[j] = byte(i*7 + j/page)
		}
		bufs = append(bufs, b)
	}
	bad := 0
	for i, b := range bufs {
		for j := 0; j < len(b); j += page {
			if b[j] != byte(i*7+j/page) {
				bad++
			}
		}
	}
	fmt.Printf("bigmem: %d MiB touched, %d pages wrong\n", len(bufs)*100, bad)
	if bad != 0 {
		os.Exit(1)
	}
}
