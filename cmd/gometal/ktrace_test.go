package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gometal/gometal/sched/trace"
)

// traceBytes lays out a trace file as the kernel writes it.
func traceBytes(version uint32, freq uint64, cores [][]trace.Event, written []uint64) []byte {
	var b bytes.Buffer
	h := trace.Header{Version: version, Cores: uint32(len(cores)), Freq: freq}
	copy(h.Magic[:], trace.Magic)
	binary.Write(&b, binary.LittleEndian, h)
	for i, ev := range cores {
		binary.Write(&b, binary.LittleEndian, trace.CoreHeader{Written: written[i], Kept: uint64(len(ev))})
	}
	for _, ev := range cores {
		binary.Write(&b, binary.LittleEndian, ev)
	}
	return b.Bytes()
}

func writeTemp(t *testing.T, data []byte) string {
	p := filepath.Join(t.TempDir(), "k.trace")
	os.WriteFile(p, data, 0o644)
	return p
}

// A thread's run, a syscall, idle and an SGI become spans and marks on
// the right core's lanes, with µs from the first event.
func TestTraceToChromeEvents(t *testing.T) {
	core0 := []trace.Event{
		{TS: 1000, Kind: trace.KindRun, Arg: 7},
		{TS: 1100, Kind: trace.KindSyscall, Num: 98, Arg: 7},
		{TS: 1200, Kind: trace.KindSysret, Num: 98, Arg: 7, Code: 1},
		{TS: 1200, Kind: trace.KindStop, Code: trace.StopBlocked, Num: 1, Arg: 7},
		{TS: 1300, Kind: trace.KindSGI, Code: trace.SGIWakeup, Arg: 1},
		{TS: 1400, Kind: trace.KindIdle},
		{TS: 2000, Kind: trace.KindWake},
	}
	core1 := []trace.Event{{TS: 1350, Kind: trace.KindIRQ, Code: trace.IRQSGI}, {TS: 1360, Kind: trace.KindSignal, Num: 23, Arg: 8}}
	kt, err := readTrace(writeTemp(t, traceBytes(trace.Version, 1_000_000, [][]trace.Event{core0, core1}, []uint64{9, 2})))
	if err != nil {
		t.Fatal(err)
	}
	if kt.Cores[0].lost() != 2 {
		t.Errorf("core 0 lost %d, want 2", kt.Cores[0].lost())
	}
	var got []string
	for _, e := range kt.chromeEvents() {
		if e.Ph != "M" {
			got = append(got, strings.Join([]string{e.Ph, e.Name, ftoa(e.Ts), ftoa(e.Dur), strconv.Itoa(e.Pid), strconv.Itoa(e.Tid)}, "|"))
		}
	}
	want := []string{
		"X|futex|100|100|0|1",
		"X|thread 7|0|200|0|0",
		"i|SGI → core 1 (wake-up)|300|0|0|0",
		"X|idle (WFI)|400|600|0|0",
		"i|IRQ SGI|350|0|1|0",
		"i|SIGURG (preemption) → thread 8|360|0|1|0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var sum bytes.Buffer
	kt.writeSummary(&sum)
	if !strings.Contains(sum.String(), "SIGURG") || strings.Count(sum.String(), "\n") != 3 {
		t.Errorf("summary:\n%s", sum.String())
	}
}

// KindProc groups name a thread's runs after its process and program,
// as they were when each run began; a group cut short is left out.
func TestTraceNamesProcesses(t *testing.T) {
	group := func(ts uint64, tid, pid uint32, comm string) []trace.Event {
		var b [16]byte
		copy(b[:], comm)
		ev := []trace.Event{{TS: ts, Kind: trace.KindProc, Code: 0, Arg: tid}, {TS: ts, Kind: trace.KindProc, Code: 1, Arg: pid}}
		for i := 0; i < 4; i++ {
			ev = append(ev, trace.Event{TS: ts, Kind: trace.KindProc, Code: uint8(2 + i), Arg: binary.LittleEndian.Uint32(b[4*i:])})
		}
		return ev
	}
	core0 := group(900, 9, 9, "init")
	core0 = append(core0, trace.Event{TS: 1000, Kind: trace.KindRun, Arg: 9}, trace.Event{TS: 1100, Kind: trace.KindStop, Code: trace.StopExit, Arg: 9})
	core0 = append(core0, group(1150, 9, 9, "cat")...)
	core0 = append(core0, group(1160, 10, 9, "x")[:3]...) // cut short
	core0 = append(core0, trace.Event{TS: 1200, Kind: trace.KindRun, Arg: 9}, trace.Event{TS: 1300, Kind: trace.KindStop, Code: trace.StopExit, Arg: 9})
	core0 = append(core0, trace.Event{TS: 1400, Kind: trace.KindRun, Arg: 10}, trace.Event{TS: 1500, Kind: trace.KindStop, Code: trace.StopExit, Arg: 10})
	kt, err := readTrace(writeTemp(t, traceBytes(trace.Version, 1_000_000, [][]trace.Event{core0}, []uint64{uint64(len(core0))})))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range kt.chromeEvents() {
		if e.Ph == "X" {
			got = append(got, e.Name)
		}
	}
	if want := "init[9] thread 9,cat[9] thread 9,thread 10"; strings.Join(got, ",") != want {
		t.Errorf("runs named %q, want %q", strings.Join(got, ","), want)
	}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Bad files get one clear error each, never a crash or a silent success.
func TestTraceBadFiles(t *testing.T) {
	ok := traceBytes(trace.Version, 1000, [][]trace.Event{{{TS: 1, Kind: trace.KindIdle}}}, []uint64{1})
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "too short for its header"},
		{"not a trace", []byte(strings.Repeat("x", 64)), "bad magic"},
		{"version", traceBytes(99, 1000, [][]trace.Event{{}}, []uint64{0}), "version 99"},
		{"no cores", traceBytes(trace.Version, 1000, nil, nil), "0 cores"},
		{"zero frequency", traceBytes(trace.Version, 0, [][]trace.Event{{}}, []uint64{0}), "frequency 0"},
		{"kept more than written", traceBytes(trace.Version, 1000, [][]trace.Event{{{TS: 1}}}, []uint64{0}), "keeps 1 of 0"},
		{"truncated", ok[:len(ok)-3], "truncated trace: core 0"},
		{"trailing data", append(append([]byte{}, ok...), 0), "data after"},
	} {
		_, err := readTrace(writeTemp(t, c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", c.name, err, c.want)
		}
	}
}
