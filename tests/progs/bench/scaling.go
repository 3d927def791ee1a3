//go:build linux && arm64

package main

import (
	"fmt"
	"syscall"
	"time"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

// The scaling figures: the same independent kernel work on 1, 2 and 4
// cores at once, each core's share on threads pinned to it. Nothing is
// shared between cores but the kernel itself, so a kernel that serializes
// them (a big lock) shows as a per-core throughput that falls as cores
// are added. Each figure is per-core throughput with n cores busy over
// that with one: 1.0 is perfect scaling. (Under QEMU's TCG the host's own
// cores bound it too: 4 virtual CPUs on 2 host CPUs cannot all run at
// once, which is why the Linux guest's figure from the same run is the
// one to compare with.)

// scaleCores are the core counts measured; the first is the baseline.
var scaleCores = []int{1, 2, 4}

// scaling measures work (which returns the units it did) on n cores for
// each n in scaleCores, reporting scale<n>_<name>_x for n > 1. perCore
// makes the functions one core runs (the first is timed).
func scaling(name string, perCore func() []func() int) {
	scalingTimed(name, func() []func() (int, time.Duration) {
		var fns []func() (int, time.Duration)
		for _, work := range perCore() {
			fns = append(fns, func() (int, time.Duration) {
				t0 := time.Now()
				units := work()
				return units, time.Since(t0)
			})
		}
		return fns
	})
}

// scalingTimed is scaling for work that times itself (the part it
// returns the duration of), so that it can set up and clean up around
// what it measures.
func scalingTimed(name string, perCore func() []func() (int, time.Duration)) {
	var base float64
	for _, n := range scaleCores {
		var cores []int
		var fns []func()
		rates := make([]float64, n)
		for c := 0; c < n; c++ {
			for k, work := range perCore() {
				cores = append(cores, c)
				if k > 0 {
					fns = append(fns, func() { work() })
					continue
				}
				fns = append(fns, func() {
					units, d := work()
					rates[c] = float64(units) / d.Seconds()
				})
			}
		}
		pinned(cores, fns...)
		var mean float64
		for _, r := range rates {
			mean += r / float64(n)
		}
		if n == scaleCores[0] {
			base = mean
			continue
		}
		report(fmt.Sprintf("scale%d_%s_x", n, name), mean/base, "x")
	}
}

// scaleGetpid: each core's thread makes independent getpid calls.
func scaleGetpid(s scale) {
	scaling("getpid", func() []func() int {
		return []func() int{func() int {
			for i := 0; i < s.scaleOps; i++ {
				syscall.Getpid()
			}
			return s.scaleOps
		}}
	})
}

// scaleFutex: each core runs a futex ping-pong between two threads
// pinned to it (so every wake is a switch on that core).
func scaleFutex(s scale) {
	scaling("futex", func() []func() int {
		ping, pong := futexPingPong(s.scaleRounds)
		return []func() int{ping, pong}
	})
}

// scaleChunk is the pipe pairs' write size, as in pipe_mib_per_s.
const scaleChunk = 64 << 10

// scalePipe: each core moves bytes through a blocking pipe from one
// thread to another, both pinned to it.
func scalePipe(s scale) {
	scaling("pipe", func() []func() int {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
			guest.Fail("pipe2: " + err.Error())
		}
		total := s.scalePipeMiB << 20
		return []func() int{
			func() int { // the reader, timed: it sees the last byte
				buf := make([]byte, scaleChunk)
				for n := 0; n < total; {
					m, err := unix.Read(p[0], buf)
					if err != nil || m == 0 {
						guest.Fail(fmt.Sprint("pipe read: ", m, err))
					}
					n += m
				}
				unix.Close(p[0])
				return total
			},
			func() int {
				buf := make([]byte, scaleChunk)
				for sent := 0; sent < total; {
					m, err := unix.Write(p[1], buf)
					if err != nil {
						guest.Fail("pipe write: " + err.Error())
					}
					sent += m
				}
				unix.Close(p[1])
				return total
			},
		}
	})
}

// scaleFaults: each core's thread first-touches its own fresh anonymous
// mapping of scaleFaultMiB, a page at a time (as page_fault_ns does
// with one thread), then unmaps it untimed. Threads of one process share
// its address space, so this is what a parallel Go program's heap
// growth meets: a kernel that serves faults under one lock per address
// space, or one for the whole kernel, serializes them.
func scaleFaults(s scale) {
	scalingTimed("fault", func() []func() (int, time.Duration) {
		return []func() (int, time.Duration){func() (int, time.Duration) {
			size := s.scaleFaultMiB << 20
			mem := anonMap(size)
			t0 := time.Now()
			for off := 0; off < size; off += pageSize {
				mem[off] = 1
			}
			d := time.Since(t0)
			anonUnmap(mem)
			return size / pageSize, d
		}}
	})
}

// scaleMmaps: each core's thread maps a small anonymous region, touches
// its first page and unmaps it, in a loop: the churn of a program that
// maps and frees memory (the Go runtime's own heap arenas and stacks
// come and go so, and a C allocator's large blocks).
func scaleMmaps(s scale) {
	scaling("mmap", func() []func() int {
		return []func() int{func() int {
			for i := 0; i < s.scaleMmaps; i++ {
				mem := anonMap(scaleMmapSize)
				mem[0] = 1
				anonUnmap(mem)
			}
			return s.scaleMmaps
		}}
	})
}

// pageSize is the page the fault figures touch one byte of.
const pageSize = 4096

// scaleMmapSize is the mmap churn's region: a few pages, as a small
// arena or a thread stack's guard would be.
const scaleMmapSize = 4 * pageSize

// anonMap maps size bytes of fresh private anonymous memory.
func anonMap(size int) []byte {
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		guest.Fail("mmap: " + err.Error())
	}
	return mem
}

func anonUnmap(mem []byte) {
	if err := syscall.Munmap(mem); err != nil {
		guest.Fail("munmap: " + err.Error())
	}
}
