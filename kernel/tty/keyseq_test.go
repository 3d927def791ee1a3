package tty

import "testing"

// A sequence is open from its ESC to its last byte: Up (ESC [ A), F5
// (ESC [ 1 5 ~), Ctrl+Right (ESC [ 1 ; 5 C), F1 (ESC O P), Alt+x (ESC
// x); plain bytes never open one, and an ESC inside a sequence starts
// another.
func TestKeySeq(t *testing.T) {
	for _, tc := range []struct {
		in   string
		open []bool // after each byte
	}{
		{"\x1b[A", []bool{true, true, false}},
		{"\x1b[15~", []bool{true, true, true, true, false}},
		{"\x1b[1;5C", []bool{true, true, true, true, true, false}},
		{"\x1bOP", []bool{true, true, false}},
		{"\x1bx", []bool{true, false}},
		{"ab[A", []bool{false, false, false, false}},
		{"\x1b[\x1b[B", []bool{true, true, true, true, false}},
	} {
		var k KeySeq
		for i := range len(tc.in) {
			k.Next(tc.in[i])
			if k.Open() != tc.open[i] {
				t.Errorf("%q: after byte %d open = %v, want %v", tc.in, i, k.Open(), tc.open[i])
			}
		}
	}
}
