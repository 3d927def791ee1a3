// klog checks the kernel log as programs read it: syslog(2) (what dmesg
// calls: SYSLOG_ACTION_READ_ALL, SIZE_BUFFER, CLEAR, CONSOLE_LEVEL) and
// /dev/kmsg (a record per read, writes as records, seeks), each check
// printing "ok NAME" or "FAIL NAME: why", then "klog ok".
package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

var check = guest.Checkf

// The actions of syslog(2) (include/linux/syslog.h).
const (
	actionReadAll      = 3
	actionClear        = 5
	actionConsoleLevel = 8
	actionSizeBuffer   = 10
)

func readAll() string {
	n, _ := unix.Klogctl(actionSizeBuffer, nil)
	b := make([]byte, n)
	m, err := unix.Klogctl(actionReadAll, b)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(b[:m])
}

func main() {
	guest.LinuxDev()
	size, err := unix.Klogctl(actionSizeBuffer, nil)
	check("size-buffer", err == nil && size > 0, "%d %v", size, err)
	all := readAll()
	// The kernel's own boot lines, at KERN_INFO (gometal's "cores: 4 of
	// 4 online", Linux's "smp: Brought up 1 node, 4 CPUs").
	line := regexp.MustCompile(`(?m)^<6>\[ *\d+\.\d{6}\] (cores: \d+ of \d+ online|smp: Brought up .*)$`)
	check("boot-lines", line.MatchString(all), "%q", all)

	// Raw calls: an os.File of a non-blocking descriptor would wait in
	// Go's poller for EAGAIN instead of returning it (on Linux too).
	fd, err := unix.Open("/dev/kmsg", unix.O_RDWR|unix.O_NONBLOCK, 0)
	check("kmsg-open", err == nil, "%v", err)
	b := make([]byte, 8192)
	n, err := unix.Read(fd, b)
	rec := regexp.MustCompile(`^6,0,\d+,-;\S.*\n$`)
	check("kmsg-first", err == nil && n > 0 && rec.Match(b[:n]), "%v %q", err, b[:max(n, 0)])
	_, err = unix.Read(fd, b[:4])
	check("kmsg-short-buffer", errors.Is(err, syscall.EINVAL), "%v", err)
	_, err = unix.Seek(fd, 0, unix.SEEK_END)
	check("kmsg-seek-end", err == nil, "%v", err)
	_, err = unix.Read(fd, b)
	check("kmsg-eagain", errors.Is(err, syscall.EAGAIN), "%v", err)
	_, err = unix.Seek(fd, 0, unix.SEEK_CUR)
	check("kmsg-seek-cur", errors.Is(err, syscall.EINVAL), "%v", err)
	_, err = unix.Seek(fd, 5, unix.SEEK_SET)
	check("kmsg-seek-off", errors.Is(err, syscall.ESPIPE), "%v", err)
	unix.Seek(fd, 0, unix.SEEK_END)
	_, err = unix.Write(fd, []byte("<5>hello from init\n"))
	n, rerr := unix.Read(fd, b)
	check("kmsg-write", err == nil && rerr == nil && regexp.MustCompile(`^13,\d+,\d+,-;hello from init\n$`).Match(b[:max(n, 0)]), "%v %v %q", err, rerr, b[:max(n, 0)])
	// Each write ends its line: Linux keeps a record without a newline
	// open for a continuation, unread until the next one closes it.
	unix.Write(fd, []byte("plain\x01\n"))
	n, _ = unix.Read(fd, b)
	got := string(b[:max(n, 0)])
	check("kmsg-escape", strings.HasSuffix(got, ",-;plain\\x01\n") && strings.HasPrefix(got, "12,"), "%q", got)
	check("syslog-sees-write", strings.Contains(readAll(), "<13>[") && strings.Contains(readAll(), "] hello from init\n"), "%q", readAll())

	_, err = unix.Klogctl(actionClear, nil)
	after := readAll()
	check("clear", err == nil && after == "", "%v %q", err, after)
	unix.Write(fd, []byte("<6>after clear\n"))
	check("after-clear", regexp.MustCompile(`^<14>\[ *\d+\.\d{6}\] after clear\n$`).MatchString(readAll()), "%q", readAll())
	_, err = unix.Klogctl(actionConsoleLevel, nil)
	check("console-level-bad", errors.Is(err, syscall.EINVAL), "%v", err)
	_, err = unix.Klogctl(99, nil)
	check("bad-action", errors.Is(err, syscall.EINVAL), "%v", err)
	// Go's Klogctl passes a non-NULL pointer for an empty buffer: read 0.
	n, err = unix.Klogctl(actionReadAll, nil)
	check("read-all-empty", n == 0 && err == nil, "%d %v", n, err)
	_, _, e := unix.Syscall(unix.SYS_SYSLOG, actionReadAll, 0, 16)
	check("read-all-null", e == unix.EINVAL, "%v", e)
	unix.Close(fd)
	blockedReaderWakes()

	if guest.Failed() {
		os.Exit(1)
	}
	fmt.Println("klog ok")
}

// blockedReaderWakes: a reader blocked on /dev/kmsg (as `dmesg -w`)
// wakes for a line the kernel itself writes, here SysRq's help, which
// Linux's __handle_sysrq and gometal both write to the log.
func blockedReaderWakes() {
	fd, err := unix.Open("/dev/kmsg", unix.O_RDONLY, 0)
	check("kmsg-blocking-open", err == nil, "%v", err)
	unix.Seek(fd, 0, unix.SEEK_END)
	got := make(chan string, 1)
	go func() {
		b := make([]byte, 8192)
		n, err := unix.Read(fd, b)
		got <- fmt.Sprint(string(b[:max(n, 0)]), err)
	}()
	time.Sleep(200 * time.Millisecond) // the reader is blocked by now, or soon: either way it must see the line
	err = os.WriteFile("/proc/sysrq-trigger", []byte("h"), 0)
	check("sysrq-help", err == nil, "%v", err)
	select {
	case s := <-got:
		check("kmsg-woken-by-kernel-line", strings.Contains(s, "HELP : "), "%q", s)
	case <-time.After(10 * time.Second):
		check("kmsg-woken-by-kernel-line", false, "no record 10 s after SysRq h")
	}
}
