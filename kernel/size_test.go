package kernel

import "testing"

func TestParseSize(t *testing.T) {
	const total = 1 << 30
	for _, c := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"4096", 4096, true}, {"64K", 64 << 10, true}, {"8M", 8 << 20, true}, {"2g", 2 << 30, true},
		{"50%", total / 2, true}, {"100%", total, true},
		{"", 0, false}, {"M", 0, false}, {"12X", 0, false}, {"-1", 0, false}, {"101%", 0, false},
		{"1.5M", 0, false}, {"99999999999999999999", 0, false}, {"9999999999G", 0, false},
	} {
		got, ok := parseSize([]byte(c.in), total)
		if got != c.want || ok != c.ok {
			t.Errorf("parseSize(%q) = %d %v, want %d %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
