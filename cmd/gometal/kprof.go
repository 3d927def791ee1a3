package main

import (
	"bufio"
	"debug/elf"
	"debug/gosym"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/google/pprof/profile"

	"github.com/gometal/gometal/kernel/prof"
)

// The whole-system profile on the host: the kernel's per-core sample
// tables (format: kernel/prof) turned into a pprof profile
// (github.com/google/pprof/profile), with the app's functions and lines
// from its own pclntab (debug/gosym), and the kernel's activities and
// idle time as frames of their own, so go tool pprof shows app code,
// system calls, interrupts, waiting for the kernel lock and idle cores
// in one flame graph.

type kprofile struct {
	Freq, Period uint64
	Cores        []kprofCore
}

type kprofCore struct {
	Dropped uint64
	Samples []prof.Sample // those with a count
}

// readProfile reads and checks a raw profile file.
func readProfile(path string) (*kprofile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var h prof.Header
	if err := binary.Read(r, binary.LittleEndian, &h); err != nil {
		return nil, fmt.Errorf("%s: not a gometal profile (too short for its header)", path)
	}
	switch {
	case string(h.Magic[:]) != prof.Magic:
		return nil, fmt.Errorf("%s: not a gometal profile (bad magic %q)", path, h.Magic[:])
	case h.Version != prof.Version:
		return nil, fmt.Errorf("%s: profile format version %d; this gometal reads version %d", path, h.Version, prof.Version)
	case h.Cores == 0 || h.Cores > maxTraceCores || h.Freq == 0 || h.Period == 0:
		return nil, fmt.Errorf("%s: corrupt profile header (%d cores, %d Hz, period %d)", path, h.Cores, h.Freq, h.Period)
	}
	heads := make([]prof.CoreHeader, h.Cores)
	if err := binary.Read(r, binary.LittleEndian, heads); err != nil {
		return nil, fmt.Errorf("%s: truncated profile (core headers): %v", path, err)
	}
	p := &kprofile{Freq: h.Freq, Period: h.Period, Cores: make([]kprofCore, h.Cores)}
	for i, ch := range heads {
		if ch.Kept > prof.TableEntries {
			return nil, fmt.Errorf("%s: corrupt profile: core %d has %d samples (table: %d)", path, i, ch.Kept, prof.TableEntries)
		}
		all := make([]prof.Sample, ch.Kept)
		if err := binary.Read(r, binary.LittleEndian, all); err != nil {
			return nil, fmt.Errorf("%s: truncated profile: core %d: %v", path, i, err)
		}
		p.Cores[i].Dropped = ch.Dropped
		for _, s := range all {
			if s.Count == 0 {
				continue
			}
			if s.Frames > prof.MaxFrames {
				return nil, fmt.Errorf("%s: corrupt profile: a sample with %d frames", path, s.Frames)
			}
			p.Cores[i].Samples = append(p.Cores[i].Samples, s)
		}
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("%s: corrupt profile: data after the last core's samples", path)
	}
	return p, nil
}

// symbolizer names an app PC with the app's pclntab.
type symbolizer struct {
	tab *gosym.Table
}

func newSymbolizer(appELF string) (*symbolizer, error) {
	f, err := elf.Open(appELF)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pcln, text := f.Section(".gopclntab"), f.Section(".text")
	if pcln == nil || text == nil {
		return nil, fmt.Errorf("%s: no .gopclntab: not a Go binary, or stripped", appELF)
	}
	data, err := pcln.Data()
	if err != nil {
		return nil, err
	}
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr))
	if err != nil {
		return nil, err
	}
	return &symbolizer{tab: tab}, nil
}

// The pages the kernel maps into every app that the app's ELF does not
// name (kernel/linux: VDSOPage, SigTrampPage; kprof_test.go checks the
// copies). Under QEMU's TCG the vDSO's clock read is often the app's
// hottest PC: its counter read takes QEMU's global lock.
const (
	vdsoPage     = 0x0000_FFFF_FFFF_A000
	sigTrampPage = 0x0000_FFFF_FFFF_E000
	appPageSize  = 0x1000
)

func (s *symbolizer) lookup(pc uint64) (fn, file string, line int) {
	switch {
	case pc >= vdsoPage && pc < vdsoPage+appPageSize:
		return "[vdso] __kernel_clock_gettime", "", 0
	case pc >= sigTrampPage && pc < sigTrampPage+appPageSize:
		return "[signal return trampoline]", "", 0
	}
	if s == nil {
		return fmt.Sprintf("app %#x", pc), "", 0
	}
	file, line, f := s.tab.PCToLine(pc)
	if f == nil {
		return fmt.Sprintf("app %#x", pc), "", 0
	}
	return f.Name, file, line
}

// pprof builds the profile: samples/count and cpu/nanoseconds per
// sample, labelled with the core (and the thread, for app code).
func (p *kprofile) pprof(sym *symbolizer) *profile.Profile {
	periodNs := int64(p.Period * 1e9 / p.Freq)
	out := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     periodNs,
	}
	mapping := &profile.Mapping{ID: 1, Start: 0, Limit: ^uint64(0), File: "gometal", HasFunctions: true, HasFilenames: true, HasLineNumbers: true}
	out.Mapping = []*profile.Mapping{mapping}
	funcs := map[string]*profile.Function{}
	fn := func(name, file string) *profile.Function {
		if f, ok := funcs[name]; ok {
			return f
		}
		f := &profile.Function{ID: uint64(len(out.Function) + 1), Name: name, SystemName: name, Filename: file}
		funcs[name] = f
		out.Function = append(out.Function, f)
		return f
	}
	locs := map[string]*profile.Location{}
	loc := func(key string, addr uint64, name, file string, line int) *profile.Location {
		if l, ok := locs[key]; ok {
			return l
		}
		l := &profile.Location{ID: uint64(len(out.Location) + 1), Mapping: mapping, Address: addr,
			Line: []profile.Line{{Function: fn(name, file), Line: int64(line)}}}
		locs[key] = l
		out.Location = append(out.Location, l)
		return l
	}
	synthetic := func(name string) *profile.Location { return loc("s:"+name, 0, name, "", 0) }
	for core, c := range p.Cores {
		for _, s := range c.Samples {
			var stack []*profile.Location
			switch s.Kind {
			case prof.KindApp:
				for i := 0; i < int(s.Frames); i++ {
					pc := s.PC[i]
					look := pc
					if i > 0 {
						look = pc - 1 // a return address: the call is just before it
					}
					name, file, line := sym.lookup(look)
					stack = append(stack, loc(fmt.Sprintf("a:%x", pc), pc, name, file, line))
				}
				stack = append(stack, synthetic("[app]"))
			case prof.KindKernel:
				stack = append(stack, synthetic(kernelActivity(s.Arg)), synthetic("[kernel]"))
			default:
				stack = append(stack, synthetic("[idle] WFI"))
			}
			ps := &profile.Sample{Location: stack, Value: []int64{int64(s.Count), int64(s.Count) * periodNs},
				NumLabel: map[string][]int64{"core": {int64(core)}}}
			if s.PID != 0 {
				ps.NumLabel["pid"] = []int64{int64(s.PID)}
			}
			if s.TID != 0 {
				ps.NumLabel["tid"] = []int64{int64(s.TID)}
			}
			out.Sample = append(out.Sample, ps)
		}
	}
	return out
}

// kernelActivity names what the kernel was doing (prof.Arg*).
func kernelActivity(arg uint32) string {
	switch {
	case arg >= prof.ArgSyscall:
		return "kernel: syscall " + syscallName(uint16(arg-prof.ArgSyscall))
	case arg == prof.ArgIRQ:
		return "kernel: interrupts"
	case arg == prof.ArgFault:
		return "kernel: fault or exception"
	case arg == prof.ArgLockWait:
		return "kernel: waiting for the kernel lock"
	}
	return "kernel"
}

// profileSummary is one line: samples, and the shares of app, kernel and
// idle, and what the full tables dropped.
func (p *kprofile) summary() string {
	var app, kern, idle, dropped uint64
	for _, c := range p.Cores {
		dropped += c.Dropped
		for _, s := range c.Samples {
			switch s.Kind {
			case prof.KindApp:
				app += s.Count
			case prof.KindKernel:
				kern += s.Count
			default:
				idle += s.Count
			}
		}
	}
	total := app + kern + idle
	if total == 0 {
		return "no samples"
	}
	pct := func(n uint64) float64 { return 100 * float64(n) / float64(total) }
	return fmt.Sprintf("%d samples at %d Hz per core: app %.0f%%, kernel %.0f%%, idle %.0f%% (%d dropped: tables full)",
		total, p.Freq/p.Period, pct(app), pct(kern), pct(idle), dropped)
}

// topFunctions returns the functions with the most flat samples, best
// first (for a one-line report and the tests).
func topFunctions(pp *profile.Profile, n int) []string {
	flat := map[string]int64{}
	for _, s := range pp.Sample {
		if len(s.Location) > 0 && len(s.Location[0].Line) > 0 {
			flat[s.Location[0].Line[0].Function.Name] += s.Value[0]
		}
	}
	var names []string
	for k := range flat {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if flat[names[i]] != flat[names[j]] {
			return flat[names[i]] > flat[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > n {
		names = names[:n]
	}
	return names
}

// writePprof converts the raw profile at raw to a pprof file at out.
func writePprof(raw, appELF, out string) (*kprofile, *profile.Profile, error) {
	p, pp, err := buildPprof(raw, appELF)
	if err != nil {
		return nil, nil, err
	}
	return p, pp, savePprof(pp, out)
}

// buildPprof reads a raw profile and makes the pprof profile of it.
func buildPprof(raw, appELF string) (*kprofile, *profile.Profile, error) {
	p, err := readProfile(raw)
	if err != nil {
		return nil, nil, err
	}
	sym, err := newSymbolizer(appELF)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gometal: profile: %v; app frames are left as addresses\n", err)
		sym = nil
	}
	pp := p.pprof(sym)
	if err := pp.CheckValid(); err != nil {
		return nil, nil, fmt.Errorf("profile: %v", err)
	}
	return p, pp, nil
}

// savePprof writes pp to out.
func savePprof(pp *profile.Profile, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := pp.Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var errNoProfile = errors.New("no profile was written: the kernel writes it when the app exits, so a run that timed out, was killed or panicked has none")
