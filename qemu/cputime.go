package qemu

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clkTck is sysconf(_SC_CLK_TCK) on Linux, the unit of /proc/pid/stat's
// CPU times.
const clkTck = 100

// CPUTime returns a process's user plus system CPU time so far (proc(5):
// fields 14 and 15 of /proc/<pid>/stat). Sampled around a stretch of
// guest idleness, it shows whether QEMU busy-polls.
func CPUTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 > len(s) {
		return 0, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, s)
	}
	f := strings.Fields(s[i+2:]) // fields 3 on
	if len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, s)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, s)
	}
	return time.Duration(utime+stime) * time.Second / clkTck, nil
}
