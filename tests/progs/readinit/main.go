// Readinit reads its own binary back out of the initramfs and lists /.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
)

func main() {
	b, err := os.ReadFile("/init")
	if err != nil {
		fmt.Println("FAIL:", err)
		os.Exit(1)
	}
	st, err := os.Stat("/init")
	if err != nil {
		fmt.Println("FAIL:", err)
		os.Exit(1)
	}
	fmt.Printf("read %d bytes, stat size %d, elf=%v, mode=%v\n", len(b), st.Size(), bytes.HasPrefix(b, []byte("\x7fELF")), st.Mode())
	ents, err := os.ReadDir("/")
	if err != nil {
		fmt.Println("FAIL:", err)
		os.Exit(1)
	}
	for _, e := range ents {
		fmt.Println("entry:", e.Name(), e.IsDir())
	}
	if _, err := os.Open("/no/such/file"); !os.IsNotExist(err) {
		fmt.Println("FAIL: want ENOENT, got", err)
		os.Exit(1)
	}
	// The program running is busy, as on Linux: writing it is ETXTBSY
	// (open(2)), though the file system is writable.
	if err := os.WriteFile("/init", []byte("x"), 0o755); !errors.Is(err, syscall.ETXTBSY) {
		fmt.Println("FAIL: overwriting the running /init: want ETXTBSY, got", err)
		os.Exit(1)
	}
	if err := os.Truncate("/init", 0); !errors.Is(err, syscall.ETXTBSY) {
		fmt.Println("FAIL: truncating the running /init: want ETXTBSY, got", err)
		os.Exit(1)
	}
	if int64(len(b)) == st.Size() {
		fmt.Println("readinit ok")
	}
}
