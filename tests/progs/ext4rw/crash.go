//go:build linux && arm64

package main

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// crash is the crash trials' workload (the CrashMonkey/ALICE method):
// forever, a step at a time, it changes one of eight files in
// /mnt/crash (replaces it through a temporary file and rename, appends
// to it, truncates it, or unlinks it) and makes the change durable
// (fsync of the file, then of the directory). Before a step it prints
// the state the file goes to ("crash: begin NAME LEN SHA256", or "gone"),
// after it "crash: durable NAME": once that line is out, the state must
// survive the host killing QEMU at any moment. os.Args[2] seeds the
// choices.
func crash() {
	seed, _ := strconv.Atoi(os.Args[2])
	r := rand.New(rand.NewPCG(uint64(seed), 7))
	dir := p("crash")
	os.MkdirAll(dir, 0o755)
	d, err := os.Open(dir)
	if err != nil {
		fmt.Println("ext4rw: crash dir:", err)
		return
	}
	have := map[string][]byte{}
	fmt.Println("crash: started")
	for step := 0; ; step++ {
		name := fmt.Sprintf("f%d", r.IntN(8))
		path := dir + "/" + name
		old, exists := have[name]
		op := r.IntN(10)
		var next []byte
		switch {
		case !exists || op < 4: // replace
			next = make([]byte, r.IntN(300000))
			for i := range next {
				next[i] = byte(i*13 + step)
			}
		case op < 7: // append
			next = append(old[:len(old):len(old)], make([]byte, 1+r.IntN(50000))...)
			for i := len(old); i < len(next); i++ {
				next[i] = byte(i*3 + step)
			}
		case op < 9: // truncate
			next = old[:r.IntN(len(old)+1)]
		default: // unlink
			fmt.Printf("crash: begin %s gone\n", name)
			check(unix.Unlink(path))
			check(d.Sync())
			delete(have, name)
			fmt.Printf("crash: durable %s\n", name)
			continue
		}
		fmt.Printf("crash: begin %s %d %x\n", name, len(next), sha256.Sum256(next))
		switch {
		case !exists || op < 4:
			tmp := path + ".tmp"
			f, err := os.Create(tmp)
			check(err)
			_, err = f.Write(next)
			check(err)
			check(f.Sync())
			f.Close()
			check(os.Rename(tmp, path))
			check(d.Sync())
		case op < 7:
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			check(err)
			_, err = f.Write(next[len(old):])
			check(err)
			check(f.Sync())
			f.Close()
		default:
			check(os.Truncate(path, int64(len(next))))
			f, err := os.Open(path)
			check(err)
			check(f.Sync())
			f.Close()
		}
		have[name] = next
		fmt.Printf("crash: durable %s\n", name)
	}
}

// check ends the workload on an error, saying so (the host then fails
// the trial: a change the kernel refused is not a crash).
func check(err error) {
	if err != nil {
		fmt.Println("crash: error:", err)
		os.Exit(2)
	}
}
