//go:build linux && arm64

// Command pipes moves bytes through pipes from every core at once, the
// way that runs without the kernel lock (kernel/vfs/unlockedio.go), while
// other threads do what that way must meet safely: munmap the buffers
// being read into, close descriptors in use, and read and write the same
// pipes through epoll (Go's os.Pipe). Every byte is checked against its
// position in its stream. It prints one line per part and "PASS", or
// "FAIL: ..." and exits 1.
//
//	pipes [MiB]   MiB per stream (default 8)
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

func main() {
	mib := guest.Arg(1, 8)
	streams(mib)
	unmapRace()
	closeRace()
	polled(mib)
	if guest.Failed() {
		os.Exit(1)
	}
	fmt.Println("PASS")
}

// pipeBuf is PIPE_BUF, the largest write pipe(7) makes atomic.
const pipeBuf = 4096

// pattern is the byte at stream position i: not periodic in any power
// of two a ring or a page could alias.
func pattern(i int) byte { return byte(i*131 + i>>9) }

// streams runs one blocking raw pipe per core, writer and reader each
// on a locked OS thread, with write and read sizes that differ and
// change (1 byte to 3 pipe buffers), so the ring wraps at every offset,
// writes fill it part-way and block, and reads find it partly full.
func streams(mib int) {
	n := runtime.NumCPU()
	total := mib << 20
	var wg sync.WaitGroup
	bad := make([]string, n)
	for s := 0; s < n; s++ {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
			guest.Fail("pipe2: " + err.Error())
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			buf := make([]byte, 3<<16)
			size := 1
			for sent := 0; sent < total; {
				k := min(size, total-sent)
				for i := range k {
					buf[i] = pattern(sent + i)
				}
				// A write of more than PIPE_BUF that a signal interrupts
				// after moving some bytes returns that count, on Linux
				// as here (pipe_write: "if (signal_pending(current)) {
				// if (!ret) ret = -ERESTARTSYS; break; }"), and the Go
				// runtime's SIGURG can reach a thread in a write; the
				// rest is written again, as os.File.Write does. A write
				// of at most PIPE_BUF is atomic: never short.
				m, err := unix.Write(p[1], buf[:k])
				for err == nil && m > 0 && m < k && k > pipeBuf {
					var more int
					more, err = unix.Write(p[1], buf[m:k])
					m += max(more, 0)
					if more == 0 {
						break
					}
				}
				if err != nil || m != k {
					bad[s] = fmt.Sprint("write: ", m, " of ", k, " ", err)
					break
				}
				sent += m
				size = size*7 + 3
				if size > len(buf) {
					size %= 5000
				}
			}
			unix.Close(p[1])
		}()
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			buf := make([]byte, 100_000)
			size := 4096
			got := 0
			for {
				m, err := unix.Read(p[0], buf[:size])
				if err != nil {
					bad[s] = "read: " + err.Error()
					break
				}
				if m == 0 {
					break
				}
				for i := 0; i < m; i++ {
					if buf[i] != pattern(got+i) {
						bad[s] = fmt.Sprintf("byte %d is %#x, want %#x", got+i, buf[i], pattern(got+i))
						m = -1
						break
					}
				}
				if m < 0 {
					break
				}
				got += m
				size = size*5%len(buf) + 1
			}
			if got != total && bad[s] == "" {
				bad[s] = fmt.Sprint("got ", got, " bytes of ", total)
			}
			unix.Close(p[0])
		}()
	}
	wg.Wait()
	for s, b := range bad {
		guest.Check(fmt.Sprint("stream ", s), b == "", b)
	}
	fmt.Printf("streams: %d pipes, %d MiB each, intact\n", n, mib)
}

// unmapRace reads from a pipe into freshly mmap'd buffers that other
// threads munmap at once: each read either lands whole (the munmap came
// after) or answers EFAULT, and the kernel survives either way; the
// bytes that landed are the stream's.
func unmapRace() {
	var p [2]int
	if err := unix.Pipe2(p[:], 0); err != nil {
		guest.Fail("pipe2: " + err.Error())
	}
	const rounds = 2000
	var stop atomic.Bool
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		runtime.LockOSThread()
		b := make([]byte, 4096)
		for !stop.Load() {
			if _, err := unix.Write(p[1], b); err != nil {
				return
			}
		}
	}()
	faults, landed := 0, 0
	for i := 0; i < rounds; i++ {
		buf, err := unix.Mmap(-1, 0, 8192, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
		if err != nil {
			guest.Fail("mmap: " + err.Error())
		}
		buf[0] = 1 // present, so the read may go the unlocked way
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			unix.Munmap(buf)
		}()
		n, _, e := syscall.Syscall(syscall.SYS_READ, uintptr(p[0]), uintptr(unsafeAddr(buf)), 8192)
		switch {
		case e == syscall.EFAULT:
			faults++
		case e != 0:
			guest.Check("read into a buffer being unmapped", false, e)
		case n > 0:
			landed++
		}
		wg.Wait()
	}
	stop.Store(true)
	unix.Close(p[0]) // the writer's next write is EPIPE
	<-writerDone     // before its descriptor's number can be reused
	unix.Close(p[1])
	guest.Check("unmap race reads", faults+landed == rounds, faults, " faulted + ", landed, " landed")
	fmt.Printf("unmap race: %d reads, each whole or EFAULT (%d landed)\n", rounds, landed)
}

// unsafeAddr is the address of b's first byte, for a raw read(2).
func unsafeAddr(b []byte) unsafe.Pointer { return unsafe.Pointer(&b[0]) }

// closeRace closes a pipe's read descriptor from one thread while
// another blocks reading it through a dup, and the write end while a
// reader waits: the blocked reader sees the writer's close as EOF, and
// the dup keeps the description alive.
func closeRace() {
	const rounds = 300
	for i := 0; i < rounds; i++ {
		var p [2]int
		if err := unix.Pipe2(p[:], 0); err != nil {
			guest.Fail("pipe2: " + err.Error())
		}
		d, err := unix.Dup(p[0])
		if err != nil {
			guest.Fail("dup: " + err.Error())
		}
		done := make(chan int)
		go func() {
			b := make([]byte, 16)
			total := 0
			for {
				n, err := unix.Read(d, b)
				if n <= 0 || err != nil {
					break
				}
				total += n
			}
			done <- total
		}()
		unix.Close(p[0])
		unix.Write(p[1], []byte("x"))
		unix.Close(p[1])
		if got := <-done; got != 1 {
			guest.Check("read through a dup of a closed descriptor", false, got, " bytes, want 1")
			break
		}
		unix.Close(d)
	}
	fmt.Printf("close race: %d pipes closed under a reader\n", rounds)
}

// polled moves bytes through os.Pipe (non-blocking, so every empty or
// full pipe is an EAGAIN and a park on the runtime's epoll) between
// goroutines, one pipe per core, all at once.
func polled(mib int) {
	n := runtime.NumCPU()
	total := int64(mib << 20)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for s := 0; s < n; s++ {
		r, w, err := os.Pipe()
		if err != nil {
			guest.Fail("os.Pipe: " + err.Error())
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			buf := make([]byte, 50_000)
			for sent := 0; sent < int(total); {
				k := min(len(buf), int(total)-sent)
				for i := range k {
					buf[i] = pattern(sent + i)
				}
				m, err := w.Write(buf[:k])
				if err != nil {
					errs[s] = err
					break
				}
				sent += m
			}
			w.Close()
		}()
		go func() {
			defer wg.Done()
			buf := make([]byte, 30_000)
			got := 0
			for {
				m, err := r.Read(buf)
				for i := 0; i < m; i++ {
					if buf[i] != pattern(got+i) {
						errs[s] = fmt.Errorf("byte %d is %#x", got+i, buf[i])
						r.Close()
						return
					}
				}
				got += m
				if err == io.EOF {
					break
				}
				if err != nil {
					errs[s] = err
					break
				}
			}
			if int64(got) != total && errs[s] == nil {
				errs[s] = fmt.Errorf("got %d bytes of %d", got, total)
			}
			r.Close()
		}()
	}
	wg.Wait()
	for s, err := range errs {
		guest.Check(fmt.Sprint("polled pipe ", s), err == nil, err)
	}
	fmt.Printf("polled: %d os.Pipes, %d MiB each, intact\n", n, mib)
}
