// procfs checks /proc as a program sees it (proc(5)), each check
// printing "ok NAME" or "FAIL NAME: why", then "procfs ok" if all
// passed. Every line is the same on Linux 6.1 booted with this program
// as init (which mounts /proc first, as gometal's kernel does at boot).
package main

import (
	"fmt"
	"github.com/gometal/gometal/tests/progs/internal/guest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// check prints "ok NAME" or "FAIL NAME: why".
var check = guest.Checkf

// read is what a file holds, or the error.
var read = guest.ReadFile

func main() {
	if len(os.Args) > 1 && os.Args[1] == "sleep" {
		var b [1]byte
		os.Stdin.Read(b[:]) // until the parent closes the pipe
		return
	}
	if _, err := os.Stat("/proc/self"); err != nil {
		os.MkdirAll("/proc", 0o555)
		syscall.Mount("proc", "/proc", "proc", 0, "")
	}
	os.MkdirAll("/tmp", 0o1777)
	if len(os.Args) > 1 && os.Args[1] == "load" {
		load()
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "devfd" {
		devfd()
		if guest.Failed() {
			os.Exit(1)
		}
		fmt.Println("procfs ok")
		return
	}
	if _, err := os.Stat("/dev/null"); err != nil {
		syscall.Mknod("/dev/null", syscall.S_IFCHR|0o666, 1<<8|3) // a bare Linux initramfs has none
	}
	self()
	stat()
	status()
	fds()
	tasks()
	children()
	system()
	readOnly()
	if guest.Failed() {
		os.Exit(1)
	}
	fmt.Println("procfs ok")
}

// self: /proc/self names the caller's directory; exe, cwd, comm,
// cmdline and environ are its own.
func self() {
	pid := os.Getpid()
	l, err := os.Readlink("/proc/self")
	check("self", err == nil && l == strconv.Itoa(pid), "readlink /proc/self = %q, %v; want %d", l, err, pid)
	exe, err := os.Executable()
	check("exe", err == nil && exe == "/init", "os.Executable = %q, %v", exe, err)
	os.Chdir("/tmp")
	cwd, err := os.Readlink("/proc/self/cwd")
	check("cwd", err == nil && cwd == "/tmp", "cwd link %q, %v", cwd, err)
	os.Chdir("/")
	comm := read("/proc/self/comm")
	check("comm", comm == "init\n", "comm %q", comm)
	cmd := read("/proc/self/cmdline")
	check("cmdline", cmd == strings.Join(os.Args, "\x00")+"\x00", "cmdline %q, args %q", cmd, os.Args)
	os.Setenv("PROCFS_MARK", "1") // the process's environ is what it started with
	env := read("/proc/self/environ")
	check("environ", !strings.Contains(env, "PROCFS_MARK") && strings.HasSuffix(env, "\x00") || env == "",
		"environ %q", env)
	root, err := os.Readlink("/proc/self/root")
	check("root", err == nil && root == "/", "root link %q, %v", root, err)
}

// stat: 52 fields as Linux 6.1 prints them; the first ones right.
func stat() {
	s := read("/proc/self/stat")
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+2:])
	check("stat-fields", i > 0 && len(f)+2 == 52, "%d fields in %q", len(f)+2, s)
	if len(f) < 50 {
		return
	}
	pgid, _ := syscall.Getpgid(0)
	sid, _, _ := syscall.RawSyscall(syscall.SYS_GETSID, 0, 0, 0)
	// The process's state is its leader thread's: running if that is
	// the thread reading, else perhaps asleep.
	check("stat-ids", regexp.MustCompile(`^`+strconv.Itoa(os.Getpid())+` \(init\) [RS] `).MatchString(s) &&
		f[1] == strconv.Itoa(os.Getppid()) && f[2] == strconv.Itoa(pgid) && f[3] == strconv.Itoa(int(sid)),
		"pid, comm, state, ppid, pgrp, session in %q", s[:min(len(s), 60)])
	threads, _ := strconv.Atoi(f[17])
	check("stat-threads", threads >= 1, "num_threads %q", f[17])
	rss, _ := strconv.Atoi(f[21])
	vsize, _ := strconv.ParseUint(f[20], 10, 64)
	check("stat-memory", rss > 100 && vsize > uint64(rss)*4096, "vsize %d rss %d pages", vsize, rss)
}

// status: the lines tools and Go's tests read.
func status() {
	s := read("/proc/self/status")
	for _, re := range []string{`(?m)^Name:\tinit$`, `(?m)^State:\t(R \(running\)|S \(sleeping\))$`, `(?m)^Pid:\t1$`, `(?m)^PPid:\t0$`,
		`(?m)^Uid:\t0\t0\t0\t0$`, `(?m)^Gid:\t0\t0\t0\t0$`, `(?m)^Threads:\t\d+$`, `(?m)^VmRSS:\s+\d+ kB$`,
		`(?m)^SigCgt:\t[0-9a-f]{16}$`, `(?m)^Umask:\t0022$`} {
		check("status "+re[4:strings.IndexByte(re, ':')], regexp.MustCompile(re).MatchString(s), "no %s in\n%s", re, s)
	}
	m := read("/proc/self/maps")
	check("maps", regexp.MustCompile(`(?m)^[0-9a-f]{8,}-[0-9a-f]{8,} r-xp 00000000 [0-9a-f]{2}:[0-9a-f]{2} \d+ +/init$`).MatchString(m) &&
		strings.Contains(m, "[stack]") && strings.Contains(m, "[vdso]"), "maps:\n%s", m)
}

// fds: a link per descriptor, naming what it holds.
func fds() {
	f, _ := os.CreateTemp("/tmp", "procfs")
	defer os.Remove(f.Name())
	r, w, _ := os.Pipe()
	l, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	check("fd-file", err == nil && l == f.Name(), "fd link %q, %v; want %s", l, err, f.Name())
	l, err = os.Readlink(fmt.Sprintf("/proc/self/fd/%d", r.Fd()))
	check("fd-pipe", err == nil && regexp.MustCompile(`^pipe:\[\d+\]$`).MatchString(l), "pipe link %q, %v", l, err)
	ents, _ := os.ReadDir("/proc/self/fd")
	seen := map[string]bool{}
	for _, e := range ents {
		seen[e.Name()] = true
	}
	want := []string{"0", "1", "2", strconv.Itoa(int(f.Fd())), strconv.Itoa(int(w.Fd()))}
	all := true
	for _, n := range want {
		all = all && seen[n]
	}
	check("fd-list", all, "fd lists %v, want %v among them", seen, want)
	n := int(f.Fd())
	f.Close()
	_, err = os.Readlink(fmt.Sprintf("/proc/self/fd/%d", n))
	check("fd-closed", os.IsNotExist(err), "a closed descriptor's link: %v", err)
	// Opening a descriptor's link opens its file (a path to follow).
	g, _ := os.Create("/tmp/procfs-open")
	g.WriteString("through fd")
	h, err := os.Open(fmt.Sprintf("/proc/self/fd/%d", g.Fd()))
	var b [16]byte
	k := 0
	if err == nil {
		k, _ = h.Read(b[:])
		h.Close()
	}
	check("fd-open", string(b[:k]) == "through fd", "read through the link: %q, %v", b[:k], err)
	g.Close()
	// A pipe's link leads to the pipe itself: open(2) makes a new end
	// of it, stat(2) describes it.
	w2, err := os.OpenFile(fmt.Sprintf("/proc/self/fd/%d", w.Fd()), os.O_WRONLY, 0)
	if err == nil {
		w2.WriteString("via /proc")
		w2.Close()
	}
	var pb [16]byte
	k, _ = r.Read(pb[:])
	check("fd-open-pipe", err == nil && string(pb[:k]) == "via /proc", "write through the pipe's link: %q, %v", pb[:k], err)
	st, err := os.Stat(fmt.Sprintf("/proc/self/fd/%d", r.Fd()))
	check("fd-stat-pipe", err == nil && st.Mode()&os.ModeNamedPipe != 0, "stat of the pipe's link: %v, %v", st, err)
	r.Close()
	w.Close()
}

// devfd: gometal's initramfs links /dev/fd, /dev/stdin, /dev/stdout and
// /dev/stderr into /proc/self/fd, as udev does on a distribution (a bare
// Linux initramfs has none; this part is not in the Linux comparison).
func devfd() {
	r, w, _ := os.Pipe()
	f, err := os.OpenFile(fmt.Sprintf("/dev/fd/%d", w.Fd()), os.O_WRONLY, 0)
	if err == nil {
		f.WriteString("dev fd")
		f.Close()
	}
	var b [16]byte
	n, _ := r.Read(b[:])
	check("dev-fd", err == nil && string(b[:n]) == "dev fd", "write through /dev/fd/%d: %q, %v", w.Fd(), b[:n], err)
	out, err := os.OpenFile("/dev/stdout", os.O_WRONLY, 0)
	if err == nil {
		fmt.Fprintln(out, "written to /dev/stdout")
		out.Close()
	}
	check("dev-stdout", err == nil, "open /dev/stdout: %v", err)
	r.Close()
	w.Close()
}

// tasks: a directory per thread under task/, and /proc/TID found
// though not listed.
func tasks() {
	ents, err := os.ReadDir("/proc/self/task")
	check("task-list", err == nil && len(ents) >= 2, "task lists %d threads, %v (a Go program has several)", len(ents), err)
	other := ""
	for _, e := range ents {
		if e.Name() != strconv.Itoa(os.Getpid()) {
			other = e.Name()
		}
	}
	st := read("/proc/" + other + "/status")
	check("task-status", strings.Contains(st, "\nTgid:\t1\n") && strings.Contains(st, "\nPid:\t"+other+"\n"),
		"/proc/%s/status:\n%s", other, st)
	st = read("/proc/self/task/" + other + "/stat")
	check("task-stat", strings.HasPrefix(st, other+" (init) "), "task stat %q", st)
	top, _ := os.ReadDir("/proc")
	listed := false
	for _, e := range top {
		listed = listed || e.Name() == other
	}
	check("task-hidden", !listed, "/proc lists thread %s", other)
}

// children: another process's directory, while it lives and as a
// zombie, gone once reaped.
func children() {
	cmd := exec.Command("/init", "sleep")
	in, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		check("child", false, "start: %v", err)
		return
	}
	pid := cmd.Process.Pid
	dir := "/proc/" + strconv.Itoa(pid)
	st := read(dir + "/stat")
	check("child-stat", strings.HasPrefix(st, strconv.Itoa(pid)+" (init) ") &&
		strings.Fields(st[strings.LastIndexByte(st, ')')+2:])[1] == "1", "child's stat %q", st)
	cl := read(dir + "/cmdline")
	check("child-cmdline", cl == "/init\x00sleep\x00", "child's cmdline %q", cl)
	in.Close()
	// Wait for it to exit without reaping it: a zombie.
	var info [128]byte
	syscall.Syscall6(syscall.SYS_WAITID, 1 /* P_PID */, uintptr(pid), uintptr(unsafePointer(&info)),
		syscall.WEXITED|0x01000000 /* WNOWAIT */, 0, 0)
	st = read(dir + "/stat")
	z := strings.Fields(st[strings.LastIndexByte(st, ')')+2:])
	check("child-zombie", len(z) > 0 && z[0] == "Z", "a zombie's stat %q", st)
	cmd.Wait()
	_, err := os.Stat(dir)
	check("child-reaped", os.IsNotExist(err), "after the reap, %s: %v", dir, err)
	ents, _ := os.ReadDir("/proc")
	one, self, gone := false, false, true
	for _, e := range ents {
		one = one || e.Name() == "1" && e.IsDir()
		self = self || e.Name() == "self" && e.Type()&os.ModeSymlink != 0
		gone = gone && e.Name() != strconv.Itoa(pid)
	}
	check("pids", one && self && gone, "/proc lists 1: %v, self: %v, the reaped child: %v", one, self, !gone)
}

// system: the system-wide files in Linux's formats.
func system() {
	mi := read("/proc/meminfo")
	for _, k := range []string{"MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached", "Shmem", "SReclaimable", "SwapTotal", "SwapFree"} {
		check("meminfo "+k, regexp.MustCompile(`(?m)^`+k+`: +\d+ kB$`).MatchString(mi), "no %s line in\n%s", k, mi)
	}
	check("uptime", regexp.MustCompile(`^\d+\.\d\d \d+\.\d\d\n$`).MatchString(read("/proc/uptime")), "uptime %q", read("/proc/uptime"))
	check("loadavg", regexp.MustCompile(`^\d+\.\d\d \d+\.\d\d \d+\.\d\d \d+/\d+ \d+\n$`).MatchString(read("/proc/loadavg")), "loadavg %q", read("/proc/loadavg"))
	check("stat-cpu", regexp.MustCompile(`(?m)^cpu  (\d+ ){9}\d+$`).MatchString(read("/proc/stat")) &&
		strings.Contains(read("/proc/stat"), "\nbtime "), "stat:\n%s", read("/proc/stat"))
	ci := read("/proc/cpuinfo")
	check("cpuinfo", strings.Count(ci, "processor\t: ") >= 1 && strings.Contains(ci, "\nFeatures\t: fp asimd"), "cpuinfo:\n%s", ci)
	check("mounts", regexp.MustCompile(`(?m)^proc /proc proc rw`).MatchString(read("/proc/mounts")), "mounts %q", read("/proc/mounts"))
	check("filesystems", strings.Contains(read("/proc/filesystems"), "nodev\tproc\n"), "filesystems %q", read("/proc/filesystems"))
	check("version", strings.HasPrefix(read("/proc/version"), "Linux version "), "version %q", read("/proc/version"))
	check("cmdline-kernel", strings.HasSuffix(read("/proc/cmdline"), "\n"), "cmdline %q", read("/proc/cmdline"))
}

// readOnly: nothing is made, written or removed in /proc.
func readOnly() {
	err := os.WriteFile("/proc/version", []byte("x"), 0)
	check("ro-write", err != nil, "writing /proc/version worked")
	err = os.Mkdir("/proc/x", 0o755)
	check("ro-mkdir", err != nil, "mkdir in /proc worked")
	err = os.Remove("/proc/uptime")
	check("ro-remove", err != nil, "removing /proc/uptime worked")
	_, err = os.Create("/proc/new")
	check("ro-create", err != nil, "creating /proc/new worked")
	fmt.Println(filepath.Base("/proc"), "ro done")
}

// load: two threads spinning for 12 s (two and a bit of the kernel's
// 5-second load periods) lift the 1-minute load average from 0 to about
// 2*(1-exp(-10/60)) = 0.31 or more; /proc/loadavg and sysinfo(2) agree.
func load() {
	var stop atomic.Bool
	for i := 0; i < 2; i++ {
		go func() {
			runtime.LockOSThread()
			for !stop.Load() {
			}
		}()
	}
	time.Sleep(12 * time.Second)
	stop.Store(true)
	var l1 float64
	fmt.Sscanf(read("/proc/loadavg"), "%f", &l1)
	var si unix.Sysinfo_t
	unix.Sysinfo(&si)
	s1 := float64(si.Loads[0]) / 65536
	check("loadavg-rises", l1 >= 0.25 && l1 <= 2.5, "1-minute load %.2f after 12 s of 2 spinning threads (%q)", l1, read("/proc/loadavg"))
	check("sysinfo-loads", s1 > l1-0.02 && s1 < l1+0.02, "sysinfo %.3f, /proc/loadavg %.2f", s1, l1)
	if !guest.Failed() {
		fmt.Println("procfs ok")
	}
}
