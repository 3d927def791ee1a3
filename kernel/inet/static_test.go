package inet

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParseStatic(t *testing.T) {
	for in, want := range map[string][4][4]byte{
		"10.0.2.15/24":                       {{10, 0, 2, 15}, {255, 255, 255, 0}},
		"10.0.2.15/24,10.0.2.2":              {{10, 0, 2, 15}, {255, 255, 255, 0}, {10, 0, 2, 2}},
		"192.168.1.7/32,192.168.1.1,1.1.1.1": {{192, 168, 1, 7}, {255, 255, 255, 255}, {192, 168, 1, 1}, {1, 1, 1, 1}},
		"172.16.0.1/12":                      {{172, 16, 0, 1}, {255, 240, 0, 0}},
	} {
		ip, mask, gw, dns, ok := ParseStatic([]byte(in))
		if !ok || [4][4]byte{ip, mask, gw, dns} != want {
			t.Errorf("ParseStatic(%q) = %v %v %v %v %v, want %v", in, ip, mask, gw, dns, ok, want)
		}
	}
	for _, in := range []string{"", "10.0.2.15", "10.0.2.15/0", "10.0.2.15/33", "10.0.2/24", "10.0.2.15.1/24",
		"256.0.0.1/24", "0.0.0.0/24", "255.255.255.255/24", "224.0.0.1/24", "10.0.2.15/24,", "10.0.2.15/24,1,2,3",
		"10.0.2.15/24,10.0.2.2,10.0.2.3,x", "1..2.3/8", "a.b.c.d/8", "10.0.2.15/2a", "0010.0.2.15/24"} {
		if _, _, _, _, ok := ParseStatic([]byte(in)); ok {
			t.Errorf("ParseStatic(%q) took it", in)
		}
	}
}

// Whatever it is given, ParseStatic agrees with net/netip on the address
// and prefix it accepts.
func FuzzParseStatic(f *testing.F) {
	f.Add("10.0.2.15/24,10.0.2.2,10.0.2.3")
	f.Add("1.2.3.4/8")
	f.Fuzz(func(t *testing.T, s string) {
		ip, mask, _, _, ok := ParseStatic([]byte(s))
		if !ok {
			return
		}
		first, _, _ := strings.Cut(s, ",")
		p, err := netip.ParsePrefix(first)
		if err != nil || p.Addr().As4() != ip {
			t.Fatalf("ParseStatic(%q) took %v, netip says %v, %v", s, ip, p, err)
		}
		bits := 0
		for _, b := range mask {
			for ; b&0x80 != 0; b <<= 1 {
				bits++
			}
		}
		if bits != p.Bits() {
			t.Fatalf("ParseStatic(%q): mask %v, netip's prefix /%d", s, mask, p.Bits())
		}
	})
}
