// Tmpfs exercises the writable file system over the initramfs: temp
// directories, writes, appends, seeks, truncation, renames, listing and
// removal, and changes to a file that came in the initramfs.
//
//	tmpfs        the checks above
//	tmpfs fill   write /tmp full: ENOSPC at the size limit, and the app
//	             (its heap, its goroutines) still works; removing the file
//	             gives the space back
//	tmpfs fifo   mkfifo: a blocking open waits for its partner, a
//	             non-blocking writer without a reader is ENXIO, data then
//	             EOF, O_RDWR never waits (each checked against Linux)
package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
)

func check(err error) {
	if err != nil {
		fmt.Println("FAIL:", err)
		os.Exit(1)
	}
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "fill" {
		fill()
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "fifo" {
		fifo()
		return
	}
	dir, err := os.MkdirTemp("", "gometal-")
	check(err)
	big := bytes.Repeat([]byte("0123456789abcdef"), 300000) // 4.8 MB: index pages
	check(os.WriteFile(filepath.Join(dir, "big"), big, 0o644))
	got, err := os.ReadFile(filepath.Join(dir, "big"))
	check(err)
	if !bytes.Equal(got, big) {
		fmt.Println("FAIL: big file differs")
		os.Exit(1)
	}
	f, err := os.OpenFile(filepath.Join(dir, "log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	check(err)
	f.WriteString("one\n")
	f.WriteString("two\n")
	check(f.Close())
	b, _ := os.ReadFile(filepath.Join(dir, "log"))
	fmt.Printf("log=%q\n", b)

	f, err = os.OpenFile(filepath.Join(dir, "sparse"), os.O_CREATE|os.O_RDWR, 0o644)
	check(err)
	_, err = f.WriteAt([]byte("end"), 10000)
	check(err)
	st, _ := f.Stat()
	check(f.Truncate(5000))
	st2, _ := f.Stat()
	f.Close()
	fmt.Println("sparse size", st.Size(), "truncated", st2.Size())

	check(os.MkdirAll(filepath.Join(dir, "a", "b", "c"), 0o755))
	check(os.WriteFile(filepath.Join(dir, "a", "b", "c", "f"), []byte("x"), 0o644))
	check(os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "z")))
	if _, err := os.Stat(filepath.Join(dir, "z", "b", "c", "f")); err != nil {
		fmt.Println("FAIL: rename did not move the tree:", err)
		os.Exit(1)
	}
	check(os.Symlink("z/b", filepath.Join(dir, "link")))
	if b, err := os.ReadFile(filepath.Join(dir, "link", "c", "f")); err != nil || string(b) != "x" {
		fmt.Println("FAIL: through symlink:", err)
	}
	ents, err := os.ReadDir(dir)
	check(err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	fmt.Println("entries:", names)
	if err := os.Remove(filepath.Join(dir, "z")); err == nil {
		fmt.Println("FAIL: removed a non-empty directory")
	}
	check(os.RemoveAll(dir))
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		fmt.Println("FAIL: RemoveAll left", dir, err)
		os.Exit(1)
	}
	initramfsWritable()
	fmt.Println("tmpfs ok")
}

// initramfsWritable changes a file that came in the initramfs, as on
// Linux, whose initramfs is unpacked into a writable tmpfs: the old
// bytes stay, the new ones follow, and it may be renamed and removed.
// The file is the CLI's own (/.gometal/argv, read by the kernel before
// the app starts), so that the program run on a host changes nothing.
func initramfsWritable() {
	const name = "/.gometal/argv"
	old, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Println("not under gometal: no", name, "to change")
		return
	}
	check(err)
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	check(err)
	_, err = f.WriteString("127.0.0.2 extra\n")
	check(err)
	check(f.Close())
	check(os.Rename(name, name+".old"))
	now, err := os.ReadFile(name + ".old")
	check(err)
	if string(now) != string(old)+"127.0.0.2 extra\n" {
		fmt.Printf("FAIL: %s after an append: %q (was %q)\n", name, now, old)
		os.Exit(1)
	}
	check(os.Remove(name + ".old"))
	if _, err := os.Stat(name); !errors.Is(err, fs.ErrNotExist) {
		fmt.Println("FAIL: renamed", name, "still there:", err)
		os.Exit(1)
	}
	fmt.Println("initramfs file appended, renamed, removed")
}

func fill() {
	f, err := os.Create("/tmp/fill")
	check(err)
	chunk := bytes.Repeat([]byte{0xa5}, 1<<20)
	mib := 0
	for ; mib < 1<<14; mib++ {
		if _, err = f.Write(chunk); err != nil {
			break
		}
	}
	fmt.Printf("filled %d MiB: %v\n", mib, err)
	if !errors.Is(err, syscall.ENOSPC) {
		fmt.Println("FAIL: want ENOSPC")
		os.Exit(1)
	}
	// The app's own memory is not what the tmpfs took.
	heap := make([][]byte, 32)
	for i := range heap {
		heap[i] = bytes.Repeat([]byte{byte(i)}, 1<<20)
	}
	done := make(chan int)
	for i := 0; i < 100; i++ {
		go func(i int) { done <- len(heap[i%32]) }(i)
	}
	sum := 0
	for i := 0; i < 100; i++ {
		sum += <-done
	}
	fmt.Printf("after: 32 MiB of heap, 100 goroutines, %d bytes\n", sum)
	f.Close()
	check(os.Remove("/tmp/fill"))
	check(os.WriteFile("/tmp/again", chunk, 0o644))
	fmt.Println("tmpfs fill ok")
}

func fifo() {
	dir, err := os.MkdirTemp("", "fifo-")
	check(err)
	name := filepath.Join(dir, "f")
	check(syscall.Mkfifo(name, 0o600))
	st, err := os.Stat(name)
	check(err)
	fmt.Println("fifo mode:", st.Mode()&fs.ModeNamedPipe != 0)

	_, err = os.OpenFile(name, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	fmt.Println("writer without reader:", errors.Is(err, syscall.ENXIO))

	// The reader's open blocks until the writer's: open both at once.
	opened := make(chan *os.File)
	go func() {
		r, err := os.Open(name)
		check(err)
		opened <- r
	}()
	w, err := os.OpenFile(name, os.O_WRONLY, 0)
	check(err)
	r := <-opened
	_, err = w.Write([]byte("through the fifo"))
	check(err)
	check(w.Close())
	got, err := io.ReadAll(r)
	check(err)
	fmt.Printf("read %q then EOF\n", got)
	check(r.Close())

	rw, err := os.OpenFile(name, os.O_RDWR, 0)
	check(err)
	_, err = rw.Write([]byte("x"))
	check(err)
	var b [1]byte
	_, err = rw.Read(b[:])
	check(err)
	check(rw.Close())
	fmt.Println("O_RDWR:", string(b[:]))

	check(os.RemoveAll(dir))
	fmt.Println("fifo ok")
}
