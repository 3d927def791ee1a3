package fbcon

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/x/vt"
)

// The console against a terminal emulator library (charmbracelet's vt,
// xterm's behaviour, which the Linux console shares for these): random
// streams of text, line ends, backspaces and the control sequences the
// console obeys (cursor moves, erasing, colours) leave the same text on
// the screen and the cursor in the same place. (Not saving and
// restoring, nor ED 1: the emulator keeps a pending wrap through ESC 8,
// which Linux's restore_cur clears, and its ED 1 clears the cursor's
// whole row, not up to the cursor; TestCursorAndErase covers them.) The
// console's LF is a CR LF (its output comes after ONLCR), so the
// streams give CR LF; a stream that scrolls is compared too.
func TestAgainstTerminalEmulator(t *testing.T) {
	const cols, rows = 12, 5
	tokens := []func(r *rand.Rand) string{
		func(r *rand.Rand) string { return strings.Repeat(string(rune('a'+r.IntN(26))), 1+r.IntN(14)) },
		func(r *rand.Rand) string { return "\r\n" },
		func(r *rand.Rand) string { return "\r" },
		func(r *rand.Rand) string { return "\b" },
		// A move's count is absent or 1-7: an explicit 0 moves one on
		// Linux (vt.c: "if (!vc->vc_par[0]) vc->vc_par[0]++"), none on
		// the emulator.
		func(r *rand.Rand) string {
			n := []string{"", fmt.Sprint(1 + r.IntN(7))}[r.IntN(2)]
			return fmt.Sprintf("\x1b[%s%c", n, "ABCDEFGd"[r.IntN(8)])
		},
		func(r *rand.Rand) string { return fmt.Sprintf("\x1b[%d;%dH", r.IntN(rows+2), r.IntN(cols+2)) },
		func(r *rand.Rand) string { return fmt.Sprintf("\x1b[%dK", r.IntN(3)) },
		func(r *rand.Rand) string { return fmt.Sprintf("\x1b[%dJ", 2*r.IntN(2)) },
		func(r *rand.Rand) string { return fmt.Sprintf("\x1b[%d;%dm", r.IntN(50), r.IntN(50)) },
	}
	for seed := uint64(0); seed < 400; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		m := newMem(cols*CellW, rows*16)
		var c Console
		c.Init(m, cols*CellW, rows*16)
		e := vt.NewEmulator(cols, rows)
		var in strings.Builder
		// Compared after every token: a failure names the stream up to
		// the first that differs.
		for k := 0; k < 40; k++ {
			tok := tokens[r.IntN(len(tokens))](r)
			if c.x >= c.Cols && (strings.HasSuffix(tok, "J") || strings.HasSuffix(tok, "K")) {
				// A pending wrap through an erase: Linux's csi_J and
				// csi_K end it, the emulator keeps it.
				continue
			}
			in.WriteString(tok)
			e.Write([]byte(tok))
			write(&c, strings.ReplaceAll(tok, "\r\n", "\n"))
			if d := differs(&c, e); d != "" {
				t.Fatalf("seed %d: %s; stream %q", seed, d, in.String())
			}
		}
	}
}

// differs says how the console's screen and cursor differ from the
// emulator's, or "".
func differs(c *Console, e *vt.Emulator) string {
	for y := 0; y < c.Rows; y++ {
		var b strings.Builder
		for x := 0; x < c.Cols; x++ {
			if cl := e.CellAt(x, y); cl == nil || cl.Content == "" {
				b.WriteByte(' ')
			} else {
				b.WriteString(cl.Content)
			}
		}
		if want, got := strings.TrimRight(b.String(), " "), c.text(y); got != want {
			return fmt.Sprintf("row %d %q, the emulator's %q", y, got, want)
		}
	}
	p := e.CursorPosition()
	if x := min(c.x, c.Cols-1); x != p.X || c.y != p.Y {
		return fmt.Sprintf("cursor at %d,%d, the emulator's %d,%d", x, c.y, p.X, p.Y)
	}
	return ""
}
