package qemu

import (
	"debug/elf"
	"debug/gosym"
	"fmt"
	"regexp"
	"strconv"
)

// Symbolizer maps kernel addresses to function, file and line using the Go
// line table in the kernel ELF.
type Symbolizer struct {
	table          *gosym.Table
	textLo, textHi uint64
}

// NewSymbolizer reads the kernel ELF's .gopclntab.
func NewSymbolizer(path string) (*Symbolizer, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	text := f.Section(".text")
	pcln := f.Section(".gopclntab")
	if text == nil || pcln == nil {
		return nil, fmt.Errorf("%s has no .text or .gopclntab", path)
	}
	data, err := pcln.Data()
	if err != nil {
		return nil, err
	}
	t, err := gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr))
	if err != nil {
		return nil, err
	}
	return &Symbolizer{table: t, textLo: text.Addr, textHi: text.Addr + text.Size}, nil
}

// Lookup describes one address, or "" if it is not kernel text.
func (s *Symbolizer) Lookup(pc uint64) string {
	if pc < s.textLo || pc >= s.textHi {
		return ""
	}
	file, line, fn := s.table.PCToLine(pc)
	if fn == nil {
		return ""
	}
	return fmt.Sprintf("%s+%#x %s:%d", fn.Name, pc-fn.Entry, file, line)
}

var hexRE = regexp.MustCompile(`0x[0-9a-fA-F]+`)

// Annotate returns "addr = func+off file:line" for every kernel text
// address in a line of a panic report.
func (s *Symbolizer) Annotate(line string) []string {
	var out []string
	for _, h := range hexRE.FindAllString(line, -1) {
		v, err := strconv.ParseUint(h[2:], 16, 64)
		if err != nil {
			continue
		}
		if d := s.Lookup(v); d != "" {
			out = append(out, h+" = "+d)
		}
	}
	return out
}
