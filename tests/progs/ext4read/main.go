// Command ext4read reads the files of a directory on a disk all at once
// (TestExt4ReadsInFlight): a goroutine a file with read(2), and the last
// file also through mmap, pread and readv at the same time, so that the
// page cache's reads in flight are slept on, polled for (a fault, which
// may not sleep) and resumed in the middle of a readv. It prints each
// file's SHA-256 per way of reading, for the host to compare with its own.
package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"golang.org/x/sys/unix"
)

func main() {
	dir := os.Args[1]
	names, err := filepath.Glob(filepath.Join(dir, "f*"))
	if err != nil || len(names) == 0 {
		fmt.Println("ext4read: no files:", err)
		os.Exit(1)
	}
	slices.Sort(names)
	last := names[len(names)-1]
	var mu sync.Mutex
	var lines []string
	say := func(format string, a ...any) {
		mu.Lock()
		lines = append(lines, fmt.Sprintf(format, a...))
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for _, name := range names {
		wg.Go(func() {
			f, err := os.Open(name)
			if err != nil {
				say("ext4read: %s: %v", filepath.Base(name), err)
				return
			}
			defer f.Close()
			h := sha256.New()
			n, err := io.CopyBuffer(h, f, make([]byte, 1<<20))
			say("ext4read: read %s %d %x %v", filepath.Base(name), n, h.Sum(nil), err)
		})
	}
	wg.Go(func() { say("ext4read: mmap %s", mmapSum(last)) })
	wg.Go(func() { say("ext4read: pread %s", preadSum(last)) })
	wg.Go(func() { say("ext4read: readv %s", readvSum(last)) })
	wg.Wait()
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	fmt.Println("ext4read: done")
}

// mmapSum sums the file through a private mapping: each fault on a page
// whose run is in flight polls for it.
func mmapSum(name string) string {
	f, err := os.Open(name)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	st, _ := f.Stat()
	b, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return err.Error()
	}
	defer unix.Munmap(b)
	return fmt.Sprintf("%s %d %x", filepath.Base(name), len(b), sha256.Sum256(b))
}

// preadSum sums the file in 100,000-byte preads from the end backwards.
func preadSum(name string) string {
	f, err := os.Open(name)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	st, _ := f.Stat()
	b := make([]byte, st.Size())
	const chunk = 100_000
	for off := (st.Size() - 1) / chunk * chunk; off >= 0; off -= chunk {
		end := min(off+chunk, st.Size())
		if n, err := f.ReadAt(b[off:end], off); n != int(end-off) {
			return fmt.Sprintf("pread at %d: %d %v", off, n, err)
		}
	}
	return fmt.Sprintf("%s %d %x", filepath.Base(name), len(b), sha256.Sum256(b))
}

// readvSum sums the file in readv calls of three buffers of odd sizes.
func readvSum(name string) string {
	fd, err := unix.Open(name, unix.O_RDONLY, 0)
	if err != nil {
		return err.Error()
	}
	defer unix.Close(fd)
	h := sha256.New()
	total := 0
	for {
		a, b, c := make([]byte, 70_001), make([]byte, 300_007), make([]byte, 5)
		n, err := unix.Readv(fd, [][]byte{a, b, c})
		if err != nil {
			return "readv: " + err.Error()
		}
		if n == 0 {
			break
		}
		all := append(append(a, b...), c...)
		h.Write(all[:n])
		total += n
	}
	return fmt.Sprintf("%s %d %x", filepath.Base(name), total, h.Sum(nil))
}
