package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/gometal/gometal/kernel/linux"
	"github.com/gometal/gometal/kernel/prof"
)

// profileBytes writes a raw profile as the kernel does.
func profileBytes(version uint32, cores [][]prof.Sample) []byte {
	var b bytes.Buffer
	h := prof.Header{Version: version, Cores: uint32(len(cores)), Freq: 1_000_000, Period: 1000}
	copy(h.Magic[:], prof.Magic)
	binary.Write(&b, binary.LittleEndian, h)
	for range cores {
		binary.Write(&b, binary.LittleEndian, prof.CoreHeader{Kept: prof.TableEntries, Dropped: 2})
	}
	for _, c := range cores {
		table := make([]prof.Sample, prof.TableEntries)
		copy(table, c)
		binary.Write(&b, binary.LittleEndian, table)
	}
	return b.Bytes()
}

// The kernel's tables become a pprof profile: app frames named from the
// binary's pclntab, the kernel's activity and idle as frames of their
// own under [kernel] and [idle], a sample per distinct stack with its
// count and time.
func TestProfileToPprof(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// This test binary stands in for the app: a Go ELF with a pclntab.
	pc := uint64(reflect.ValueOf(TestProfileToPprof).Pointer())
	app := prof.Sample{Count: 7, Kind: prof.KindApp, Frames: 1, TID: 3, PID: 2}
	app.PC[0] = pc
	kern := prof.Sample{Count: 2, Kind: prof.KindKernel, Arg: prof.ArgSyscall + 98}
	idle := prof.Sample{Count: 5, Kind: prof.KindIdle}
	raw := writeTemp(t, profileBytes(prof.Version, [][]prof.Sample{{app, kern}, {idle}}))
	out := writeTemp(t, nil)
	p, pp, err := writePprof(raw, exe, out)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.summary(); !strings.Contains(got, "14 samples") || !strings.Contains(got, "app 50%") || !strings.Contains(got, "4 dropped") {
		t.Errorf("summary %q", got)
	}
	top := topFunctions(pp, 3)
	want := []string{"github.com/gometal/gometal/cmd/gometal.TestProfileToPprof", "[idle] WFI", "kernel: syscall futex"}
	if strings.Join(top, "|") != strings.Join(want, "|") {
		t.Errorf("top %q, want %q", top, want)
	}
	if pp.Period != 1_000_000 || pp.Sample[0].Value[1] != 7_000_000 {
		t.Errorf("period %d, first sample %v", pp.Period, pp.Sample[0].Value)
	}
	if l := pp.Sample[0].NumLabel; l["pid"][0] != 2 || l["tid"][0] != 3 {
		t.Errorf("the app sample's labels %v, want pid 2 and tid 3 (per-process profiles: -tagfocus pid=2)", l)
	}
}

// A file that is not a whole profile gets one clear error.
func TestProfileBadFiles(t *testing.T) {
	good := profileBytes(prof.Version, [][]prof.Sample{{{Count: 1, Kind: prof.KindIdle}}})
	for _, c := range []struct {
		data []byte
		want string
	}{
		{good[:10], "too short"},
		{append([]byte("gmtrace\x00"), good[8:]...), "bad magic"},
		{profileBytes(9, nil), "version 9"},
		{good[:len(good)-10], "truncated"},
		{append(append([]byte{}, good...), 0), "data after"},
	} {
		if _, err := readProfile(writeTemp(t, c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want %q, got %v", c.want, err)
		}
	}
}

// A PC in the vDSO or the signal trampoline, pages the app's ELF does not
// name, is named for what the kernel put there; the addresses are the
// kernel's own.
func TestProfileNamesKernelPages(t *testing.T) {
	if vdsoPage != linux.VDSOPage || sigTrampPage != linux.SigTrampPage {
		t.Fatalf("kprof.go's pages %#x, %#x; the kernel maps them at %#x, %#x", vdsoPage, sigTrampPage, linux.VDSOPage, linux.SigTrampPage)
	}
	var sym *symbolizer
	for _, c := range []struct {
		pc   uint64
		want string
	}{
		{linux.VDSOPage + 0x958, "[vdso] __kernel_clock_gettime"},
		{linux.SigTrampPage + 4, "[signal return trampoline]"},
		{linux.VDSOPage - 4, "app 0xffffffff9ffc"},
	} {
		if got, _, _ := sym.lookup(c.pc); got != c.want {
			t.Errorf("lookup(%#x) = %q, want %q", c.pc, got, c.want)
		}
	}
}
