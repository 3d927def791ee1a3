package clock

import (
	"math/rand"
	"testing"
	"time"
)

// The civil conversions against package time, over leap years, the
// epoch, negative times and centuries that are not leap years.
func TestCivilAgainstTime(t *testing.T) {
	secs := []int64{0, -1, 86399, 86400, 951782400 /* 2000-02-29 */, 4107542399 /* 2100-02-28 23:59:59 */, -2208988800, 1<<31 - 1, 1 << 31, 253402300799}
	rng := rand.New(rand.NewSource(1))
	for range 20000 {
		secs = append(secs, rng.Int63n(2*253402300799)-253402300799)
	}
	for _, s := range secs {
		want := time.Unix(s, 0).UTC()
		c := ToCivil(s)
		if c.Year != int64(want.Year()) || c.Month != int(want.Month()) || c.Day != want.Day() ||
			c.Hour != want.Hour() || c.Min != want.Minute() || c.Sec != want.Second() ||
			c.Weekday != int(want.Weekday()) || c.Yday != want.YearDay()-1 {
			t.Fatalf("ToCivil(%d) = %+v, want %v (yday %d)", s, c, want, want.YearDay()-1)
		}
		if back := FromCivil(&c); back != s {
			t.Fatalf("FromCivil(ToCivil(%d)) = %d", s, back)
		}
	}
}
