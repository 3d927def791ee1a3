package inet

import "testing"

func TestParseFault(t *testing.T) {
	for in, want := range map[string][2]uint32{
		"drop=100": {100, 0}, "dup=7": {0, 7}, "drop=2,dup=1000000": {2, 1000000}, "dup=3,drop=50": {50, 3},
	} {
		d, u, ok := ParseFault([]byte(in))
		if !ok || d != want[0] || u != want[1] {
			t.Errorf("ParseFault(%q) = %d, %d, %v; want %v", in, d, u, ok, want)
		}
	}
	for _, in := range []string{"", "drop=", "drop=1", "drop=0", "drop=010", "drop=1000001", "drop=5,drop=6",
		"drop=5,", ",drop=5", "loss=5", "drop=5x", "dup=-3", "drop=99999999"} {
		if d, u, ok := ParseFault([]byte(in)); ok {
			t.Errorf("ParseFault(%q) took it: %d, %d", in, d, u)
		}
	}
}

func TestFaultEvery(t *testing.T) {
	Stats = Counters{}
	f := Fault{DropEvery: 4, DupEvery: 3}
	var drops, dups []int
	for i := 1; i <= 12; i++ {
		d, u := f.Next()
		if d {
			drops = append(drops, i)
		}
		if u {
			dups = append(dups, i)
		}
	}
	// Frame 12 is both 4th and 3rd: a dropped frame is not also sent twice.
	if len(drops) != 3 || drops[0] != 4 || len(dups) != 3 || dups[0] != 3 || dups[2] != 9 {
		t.Errorf("drops %v dups %v", drops, dups)
	}
	if Stats.FaultDropped != 3 || Stats.FaultDuplicated != 3 {
		t.Errorf("stats %+v", Stats)
	}
}
