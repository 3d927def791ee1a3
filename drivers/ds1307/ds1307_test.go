package ds1307

import (
	"testing"
	"time"
)

// Encode and Decode against package time over the chip's century, and
// the registers of the datasheet's example layouts.
func TestRoundTrip(t *testing.T) {
	start := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for tm := start; tm.Year() < 2100; tm = tm.Add(37*time.Hour + 13*time.Minute + 7*time.Second) {
		in := Time{tm.Year(), int(tm.Month()), tm.Day(), tm.Hour(), tm.Minute(), tm.Second(), int(tm.Weekday())}
		var r [Regs]byte
		if !Encode(in, &r) {
			t.Fatalf("Encode(%v) refused", tm)
		}
		out, ok := Decode(&r)
		if !ok || out != in {
			t.Fatalf("Decode(Encode(%v)) = %+v, %v", tm, out, ok)
		}
	}
	var r [Regs]byte
	if Encode(Time{Year: 2100, Month: 1, Day: 1}, &r) || Encode(Time{Year: 1999, Month: 12, Day: 31}, &r) {
		t.Error("Encode took a year outside 2000-2099")
	}
}

func TestDecodeRegisters(t *testing.T) {
	// 2026-11-27 21:30:05, a Friday, 24-hour mode.
	r := [Regs]byte{0x05, 0x30, 0x21, 6, 0x27, 0x11, 0x26}
	if got, ok := Decode(&r); !ok || got != (Time{2026, 11, 27, 21, 30, 5, 5}) {
		t.Errorf("24-hour: %+v %v", got, ok)
	}
	// 9:30:05 PM in 12-hour mode is the same time.
	r[2] = hour12 | hourPM | 0x09
	if got, ok := Decode(&r); !ok || got.Hour != 21 {
		t.Errorf("12-hour PM: %+v %v", got, ok)
	}
	// 12 AM is hour 0.
	r[2] = hour12 | 0x12
	if got, ok := Decode(&r); !ok || got.Hour != 0 {
		t.Errorf("12 AM: %+v %v", got, ok)
	}
	for _, bad := range [][Regs]byte{
		{0x80, 0, 0, 1, 1, 1, 0},    // oscillator stopped (a chip never set)
		{0x5a, 0, 0, 1, 1, 1, 0},    // not BCD
		{0x00, 0x60, 0, 1, 1, 1, 0}, // minute 60
		{0x00, 0, 0x24, 1, 1, 1, 0}, // hour 24
		{0x00, 0, 0, 1, 0, 1, 0},    // day 0
		{0x00, 0, 0, 1, 1, 0x13, 0}, // month 13
	} {
		if got, ok := Decode(&bad); ok {
			t.Errorf("Decode(% x) = %+v, want refused", bad, got)
		}
	}
}
