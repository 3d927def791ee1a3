//go:build linux && arm64

package main

import (
	"encoding/binary"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/gometal/gometal/tests/progs/internal/guest"
)

// The process figures: fork, vfork+execve, os/exec and a round trip
// between two processes over pipes. Each child made with a raw clone runs
// nothing but system calls (procs_arm64.s); the programs executed are a
// tiny static ELF written to /tmp/true at run time (exit(0) in three
// instructions) and this program itself (its exit0 and pong modes, which
// main runs before anything else).

// Clone calls in procs_arm64.s; each returns clone's raw result.
func forkExit(flags uintptr) (r uintptr)
func vforkExec(path *byte, argv, envp **byte) (r uintptr)

// The programs the figures execute.
const (
	truePath = "/tmp/true" // written by procSetup
	selfPath = "/init"     // this program, on both kernels
)

// The child modes: os.Args[1] of this program run by a figure.
const (
	modeExit0 = "exit0" // exit at once with status 0, printing nothing
	modePong  = "pong"  // echo each byte read on fd 3 to fd 4 until EOF
)

// childMode runs this program's child modes, which exit, if args ask
// for one (main calls it before it prints anything).
func childMode(args []string) {
	if len(args) == 0 {
		return
	}
	switch args[0] {
	case modeExit0:
		os.Exit(0)
	case modePong:
		var b [1]byte
		for {
			n, err := syscall.Read(3, b[:])
			if err == syscall.EINTR {
				continue
			}
			if n <= 0 {
				os.Exit(0)
			}
			if _, err := syscall.Write(4, b[:]); err != nil {
				os.Exit(1)
			}
		}
	}
}

// trueELF is a static arm64 Linux executable that calls exit(0): an ELF
// header, one read+execute PT_LOAD segment mapping the whole file at
// 0x400000, and the code after the program header. (Written out by hand:
// debug/elf's package initializers would slow every start of this
// program, which exec_go_us times.)
func trueELF() []byte {
	const (
		base  = 0x400000
		ehdr  = 64 // ELF64 header
		phdr  = 56 // one program header
		entry = base + ehdr + phdr
	)
	code := []uint32{
		0xd2800000, // movz x0, #0
		0xd2800ba8, // movz x8, #93 (exit)
		0xd4000001, // svc #0
	}
	size := uint64(ehdr + phdr + 4*len(code))
	b := make([]byte, 0, size)
	le := binary.LittleEndian
	// e_ident: magic, ELFCLASS64, ELFDATA2LSB, EV_CURRENT, padding.
	b = append(b, 0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	b = le.AppendUint16(b, 2)      // e_type: ET_EXEC
	b = le.AppendUint16(b, 183)    // e_machine: EM_AARCH64
	b = le.AppendUint32(b, 1)      // e_version
	b = le.AppendUint64(b, entry)  // e_entry
	b = le.AppendUint64(b, ehdr)   // e_phoff
	b = le.AppendUint64(b, 0)      // e_shoff
	b = le.AppendUint32(b, 0)      // e_flags
	b = le.AppendUint16(b, ehdr)   // e_ehsize
	b = le.AppendUint16(b, phdr)   // e_phentsize
	b = le.AppendUint16(b, 1)      // e_phnum
	b = le.AppendUint16(b, 64)     // e_shentsize
	b = le.AppendUint16(b, 0)      // e_shnum
	b = le.AppendUint16(b, 0)      // e_shstrndx
	b = le.AppendUint32(b, 1)      // p_type: PT_LOAD
	b = le.AppendUint32(b, 5)      // p_flags: PF_R|PF_X
	b = le.AppendUint64(b, 0)      // p_offset
	b = le.AppendUint64(b, base)   // p_vaddr
	b = le.AppendUint64(b, base)   // p_paddr
	b = le.AppendUint64(b, size)   // p_filesz
	b = le.AppendUint64(b, size)   // p_memsz
	b = le.AppendUint64(b, 0x1000) // p_align
	for _, c := range code {
		b = le.AppendUint32(b, c)
	}
	return b
}

var procSetupOnce sync.Once

// procSetup makes what the process figures need on both kernels: /tmp
// with /tmp/true in it, and /dev/null for os/exec (Linux's initramfs
// here has only /dev/console).
func procSetup() {
	procSetupOnce.Do(func() {
		if err := os.MkdirAll("/tmp", 0o1777); err != nil {
			guest.Fail("mkdir /tmp: " + err.Error())
		}
		if _, err := os.Stat(os.DevNull); err != nil {
			if err := syscall.Mknod(os.DevNull, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
				guest.Fail("mknod /dev/null: " + err.Error())
			}
		}
		if err := os.WriteFile(truePath, trueELF(), 0o755); err != nil {
			guest.Fail("write " + truePath + ": " + err.Error())
		}
		if err := os.Chmod(truePath, 0o755); err != nil {
			guest.Fail("chmod " + truePath + ": " + err.Error())
		}
	})
}

// medianUs is the median of d in microseconds.
func medianUs(d []time.Duration) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[len(s)/2].Nanoseconds()) / 1000
}

// reap waits for child pid and fails unless it exited with status 0.
func reap(what string, pid int) {
	var ws syscall.WaitStatus
	for {
		got, err := syscall.Wait4(pid, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || got != pid {
			guest.Fail(what + ": wait4: " + errString(err))
		}
		break
	}
	if !ws.Exited() || ws.ExitStatus() != 0 {
		guest.Fail(what + ": the child did not exit 0: status " + strconv.Itoa(int(ws)))
	}
}

func errString(err error) string {
	if err == nil {
		return "another child"
	}
	return err.Error()
}

// cloneErr returns the PID in clone's raw result r, or fails with its
// error.
func cloneErr(what string, r uintptr) int {
	if int(r) < 0 {
		guest.Fail(what + ": clone: " + syscall.Errno(-int(r)).Error())
	}
	return int(r)
}

// forkWaits times n rounds of fork (clone(SIGCHLD)), the child's
// exit_group(0) and the parent's wait4. The heap the figures before
// left behind goes back to the kernel first: what fork has to share is
// then the same whichever figures ran.
func forkWaits(what string, n int) []time.Duration {
	debug.FreeOSMemory()
	d := make([]time.Duration, n)
	for i := range d {
		t0 := time.Now()
		pid := cloneErr(what, forkExit(uintptr(syscall.SIGCHLD)))
		reap(what, pid)
		d[i] = time.Since(t0)
	}
	return d
}

// forkExitWait: fork, exit at once, wait4; median of s.forks rounds.
func forkExitWait(s scale) {
	report("fork_exit_wait_us", medianUs(forkWaits("fork", s.forks)), "us")
}

// fork64MiB: the same with 64 MiB of touched anonymous memory in the
// parent, which fork must share copy-on-write (and the child's exit
// let go of).
func fork64MiB(s scale) {
	const size = 64 << 20
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		guest.Fail("mmap: " + err.Error())
	}
	for off := 0; off < size; off += 4096 {
		mem[off] = 1
	}
	d := forkWaits("fork 64 MiB", s.bigForks)
	if err := syscall.Munmap(mem); err != nil {
		guest.Fail("munmap: " + err.Error())
	}
	report("fork_64mib_us", medianUs(d), "us")
}

// The execve arguments of the vfork child: globals, so nothing the
// child reads is on a stack that could move.
var (
	truePathZ = append([]byte(truePath), 0)
	trueArgv  = [2]*byte{&truePathZ[0], nil}
	trueEnvp  = [1]*byte{nil}
)

// vforkExecWait: vfork (clone(CLONE_VM|CLONE_VFORK|SIGCHLD)), execve
// of /tmp/true in the child, wait4 in the parent; median of s.execs.
func vforkExecWait(s scale) {
	procSetup()
	d := make([]time.Duration, s.execs)
	for i := range d {
		t0 := time.Now()
		pid := cloneErr("vfork", vforkExec(&truePathZ[0], &trueArgv[0], &trueEnvp[0]))
		reap("vfork+execve "+truePath, pid)
		d[i] = time.Since(t0)
	}
	report("vfork_exec_wait_us", medianUs(d), "us")
}

// runs times n runs of a command made by mk; the median.
func runs(what string, n int, mk func() *exec.Cmd) float64 {
	procSetup()
	d := make([]time.Duration, n)
	for i := range d {
		cmd := mk()
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			guest.Fail(what + ": " + err.Error())
		}
		d[i] = time.Since(t0)
	}
	return medianUs(d)
}

// execCommand: os/exec runs /tmp/true (Go's fork+exec, pidfd wait, its
// /dev/null descriptors).
func execCommand(s scale) {
	report("exec_command_us", runs("exec "+truePath, s.execs, func() *exec.Cmd { return exec.Command(truePath) }), "us")
}

// execGo: os/exec runs a static Go program (this one, exiting at once):
// the Go runtime's start-up on top of exec_command_us.
func execGo(s scale) {
	report("exec_go_us", runs("exec "+selfPath+" "+modeExit0, s.goExecs, func() *exec.Cmd { return exec.Command(selfPath, modeExit0) }), "us")
}

// procPingpong: one byte there and back between this process and a
// child (this program in pong mode) over two blocking pipes; the mean
// round trip over s.procPingpongs.
func procPingpong(s scale) {
	procSetup()
	var there, back [2]int
	if err := syscall.Pipe2(there[:], syscall.O_CLOEXEC); err != nil {
		guest.Fail("pipe2: " + err.Error())
	}
	if err := syscall.Pipe2(back[:], syscall.O_CLOEXEC); err != nil {
		guest.Fail("pipe2: " + err.Error())
	}
	in, out := os.NewFile(uintptr(there[0]), "there"), os.NewFile(uintptr(back[1]), "back")
	cmd := exec.Command(selfPath, modePong)
	cmd.ExtraFiles = []*os.File{in, out} // fds 3 and 4
	if err := cmd.Start(); err != nil {
		guest.Fail("start pong: " + err.Error())
	}
	in.Close()
	out.Close()
	b := []byte{'x'}
	trip := func() {
		if _, err := syscall.Write(there[1], b); err != nil {
			guest.Fail("pingpong write: " + err.Error())
		}
		for {
			n, err := syscall.Read(back[0], b)
			if err == syscall.EINTR {
				continue
			}
			if n != 1 {
				guest.Fail("pingpong read: " + errString(err))
			}
			return
		}
	}
	trip() // the child is up
	t0 := time.Now()
	for i := 0; i < s.procPingpongs; i++ {
		trip()
	}
	d := time.Since(t0)
	syscall.Close(there[1])
	if err := cmd.Wait(); err != nil {
		guest.Fail("pong: " + err.Error())
	}
	syscall.Close(back[0])
	report("proc_pingpong_us", perOp(d, s.procPingpongs)/1000, "us")
}
