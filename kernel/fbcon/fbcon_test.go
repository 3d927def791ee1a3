package fbcon

import (
	"image"
	"strings"
	"testing"

	"golang.org/x/image/font/basicfont"
)

// mem is a Surface in memory: a pixel a byte (its colour's index in
// Palette), two screens tall.
type mem struct {
	w, h int
	px   []byte
	pan  int
	pans int
}

func newMem(w, h int) *mem { return &mem{w: w, h: h, px: make([]byte, w*2*h)} }

func (m *mem) Cell(x, y int, rows *[MaxCellH]uint8, h int, fg, bg uint8) {
	for j := 0; j < h; j++ {
		for i := 0; i < CellW; i++ {
			px := bg
			if rows[j]>>(7-i)&1 != 0 {
				px = fg
			}
			m.px[(y+j)*m.w+x+i] = px
		}
	}
}

func (m *mem) Clear(y, h int) {
	for k := y * m.w; k < (y+h)*m.w && k < len(m.px); k++ {
		m.px[k] = 0
	}
}

func (m *mem) Pan(y int) { m.pan = y; m.pans++ }

// shown is the screen as the view shows it: h lines from the pan.
func (m *mem) shown() []byte { return m.px[m.pan*m.w : (m.pan+m.h)*m.w] }

// text returns screen row y's text as the cells hold it.
func (c *Console) text(y int) string {
	r := (c.top + y) % c.Rows
	b := make([]byte, c.Cols)
	for x := range b {
		switch g := int(c.cells[r][x]) - 1; {
		case g < 0:
			b[x] = ' '
		case g == replacement:
			b[x] = '?'
		default:
			b[x] = byte(' ' + g)
		}
	}
	return strings.TrimRight(string(b), " ")
}

// TestFontAgainstBasicfont checks the generated table against the
// library it came from, pixel by pixel.
func TestFontAgainstBasicfont(t *testing.T) {
	f := basicfont.Face7x13
	m := f.Mask.(*image.Alpha)
	if f.Width != glyphW || f.Ascent+f.Descent != glyphH || m.Rect.Dy() != len(font)*glyphH {
		t.Fatalf("basicfont's face is %dx%d with %d lines; the table's %dx%d with %d glyphs", f.Width, f.Ascent+f.Descent, m.Rect.Dy(), glyphW, glyphH, len(font))
	}
	for g := range font {
		for y := 0; y < glyphH; y++ {
			for x := 0; x < glyphW; x++ {
				lit := m.AlphaAt(x, g*glyphH+y).A >= 0x80
				if got := font[g][y]>>(7-x)&1 == 1; got != lit {
					t.Fatalf("glyph %d pixel (%d,%d): %v, basicfont %v", g, x, y, got, lit)
				}
			}
		}
	}
}

func TestCellHeight(t *testing.T) {
	for h, want := range map[int]int{480: 16, 1080: 15, 768: 16, 720: 16, 600: 15, 1200: 16, 1000: 20, 997: 16} {
		if got := CellHeight(h); got != want {
			t.Errorf("CellHeight(%d) = %d, want %d", h, got, want)
		}
	}
}

func write(c *Console, s string) {
	for i := 0; i < len(s); i++ {
		c.Putc(s[i])
	}
}

func TestTextAndControls(t *testing.T) {
	m := newMem(80, 64) // 10 columns, 4 rows of 16
	var c Console
	c.Init(m, 80, 64)
	if c.Cols != 10 || c.Rows != 4 {
		t.Fatalf("%dx%d cells, want 10x4", c.Cols, c.Rows)
	}
	write(&c, "ab\tc\rX\x1b[1;31mred\x1b[0m\bD\n\xe2\x82\xacuro\x07\n0123456789wrap\x1b[?25l")
	for y, want := range []string{"XreD    c", "?uro", "0123456789", "wrap"} {
		if got := c.text(y); got != want {
			t.Errorf("row %d %q, want %q", y, got, want)
		}
	}
	// The pixels shown: row 0's 'X' is drawn in its cell (glyph 'X' at
	// column 0), the same in the ring's second copy.
	g := font['X'-' ']
	for j := 0; j < glyphH; j++ {
		for i := 0; i < glyphW; i++ {
			want := g[j] >> (7 - i) & 1 * colourGrey
			if got := m.shown()[(glyphTop+j)*80+1+i]; got != want {
				t.Fatalf("'X' pixel (%d,%d) = %d, want %d", i, j, got, want)
			}
			if got := m.px[(64+glyphTop+j)*80+1+i]; got != want {
				t.Fatalf("'X' copy pixel (%d,%d) = %d, want %d", i, j, got, want)
			}
		}
	}
}

// TestScrollByPanning fills more lines than the screen has: each scroll
// is a pan, never a copy, and what the view shows is the last rows, in
// order, pixel for pixel what a fresh console drawing them shows.
func TestScrollByPanning(t *testing.T) {
	m := newMem(80, 64)
	var c Console
	c.Init(m, 80, 64)
	for i := 0; i < 11; i++ {
		write(&c, strings.Repeat(string(rune('a'+i)), 3)+"\n")
	}
	write(&c, "end")
	for y, want := range []string{"iii", "jjj", "kkk", "end"} {
		if got := c.text(y); got != want {
			t.Errorf("row %d %q, want %q", y, got, want)
		}
	}
	if m.pans != 1+8 { // Init's, then one a scroll
		t.Errorf("%d pans, want 9", m.pans)
	}
	fresh := newMem(80, 64)
	var f Console
	f.Init(fresh, 80, 64)
	write(&f, "iii\njjj\nkkk\nend")
	if string(m.shown()) != string(fresh.shown()) {
		t.Error("the scrolled screen's pixels differ from a fresh one's with the same text")
	}
	c.Redraw()
	if string(m.shown()) != string(fresh.shown()) {
		t.Error("a redraw changed what the screen shows")
	}
}

// cellColours is the colours of screen row y's cell x as drawn: the
// foreground (of its first lit pixel; the background's if none) and
// the background (of its top-left pixel, which no glyph lights).
func (m *mem) cellColours(c *Console, x, y int) (fg, bg uint8) {
	at := func(i, j int) uint8 { return m.shown()[(y*c.CellH+j)*m.w+x*CellW+i] }
	bg = at(0, 0)
	fg = bg
	for j := 0; j < c.CellH && fg == bg; j++ {
		for i := 0; i < CellW; i++ {
			if p := at(i, j); p != bg {
				fg = p
				break
			}
		}
	}
	return fg, bg
}

// SGR: colours, bright colours, bold as bright, reverse, the defaults
// back; 256-colour forms end the list; the cells keep their colours
// through a redraw.
func TestColours(t *testing.T) {
	m := newMem(160, 64)
	var c Console
	c.Init(m, 160, 64)
	write(&c, "\x1b[?25l\x1b[31ma\x1b[1mb\x1b[0;44;93mc\x1b[7md\x1b[27;39;49me\x1b[38;5;200mf\x1b[mg\x1b[102mh\x1b[0m")
	want := []struct{ fg, bg uint8 }{{1, 0}, {9, 0}, {11, 4}, {4, 11}, {7, 0}, {7, 0}, {7, 0}, {7, 10}}
	for pass := 0; pass < 2; pass++ {
		for x, w := range want {
			if fg, bg := m.cellColours(&c, x, 0); fg != w.fg || bg != w.bg {
				t.Errorf("pass %d: cell %d (%q): fg %d bg %d, want %d %d", pass, x, c.text(0)[x], fg, bg, w.fg, w.bg)
			}
		}
		c.Redraw()
	}
}

// Cursor moves and erasing, as a line editor uses them: CUP, CUU/CUD/
// CUF/CUB, CHA, VPA, EL and ED in each mode, save and restore.
func TestCursorAndErase(t *testing.T) {
	m := newMem(80, 64) // 10x4
	var c Console
	c.Init(m, 80, 64)
	write(&c, "0123456789abcdefghij\nklmno")
	write(&c, "\x1b[1;3HX\x1b[BY\x1b[2DZ\x1b[7GW\x1b[4dV\x1b[1;1H\x1b[2CU")
	for y, want := range []string{"01U3456789", "abZYefWhij", "klmno", "       V"} {
		if got := c.text(y); got != want {
			t.Errorf("after moves, row %d %q, want %q", y, got, want)
		}
	}
	write(&c, "\x1b[2;5H\x1b[K\x1b[3;3H\x1b[1K\x1b[4;1H\x1b[2K")
	for y, want := range []string{"01U3456789", "abZY", "   no", ""} {
		if got := c.text(y); got != want {
			t.Errorf("after EL, row %d %q, want %q", y, got, want)
		}
	}
	write(&c, "\x1b7\x1b[2;2H\x1b[J\x1b8")
	for y, want := range []string{"01U3456789", "a", "", ""} {
		if got := c.text(y); got != want {
			t.Errorf("after ED 0, row %d %q, want %q", y, got, want)
		}
	}
	if c.x != 0 || c.y != 3 {
		t.Errorf("restored cursor at %d,%d, want 0,3", c.x, c.y)
	}
	write(&c, "\x1b[1;2H\x1b[1J")
	if got := c.text(0); got != "  U3456789" {
		t.Errorf("after ED 1, row 0 %q, want %q", got, "  U3456789")
	}
	write(&c, "\x1b[99;99Hend\x1b[2J")
	for y := 0; y < c.Rows; y++ {
		if got := c.text(y); got != "" {
			t.Errorf("after ED 2, row %d %q", y, got)
		}
	}
}

// The cursor is drawn as an underline where it is, taken from where it
// was, kept off a scrolled row, and hidden and shown by DECTCEM.
func TestCursorDrawn(t *testing.T) {
	m := newMem(80, 64)
	var c Console
	c.Init(m, 80, 64)
	underlined := func(x, y int) bool {
		for i := 0; i < CellW; i++ {
			if m.shown()[(y*c.CellH+c.CellH-1)*m.w+x*CellW+i] != colourGrey {
				return false
			}
		}
		return true
	}
	count := func() int {
		n := 0
		for y := 0; y < c.Rows; y++ {
			for x := 0; x < c.Cols; x++ {
				if underlined(x, y) {
					n++
				}
			}
		}
		return n
	}
	write(&c, "ab")
	if !underlined(2, 0) || count() != 1 {
		t.Errorf("after \"ab\": cursor at (2,0) %v, %d cursors", underlined(2, 0), count())
	}
	write(&c, "\n\n\n\n\nxy")
	if !underlined(2, 3) || count() != 1 {
		t.Errorf("after a scroll: cursor at (2,3) %v, %d cursors", underlined(2, 3), count())
	}
	write(&c, "\x1b[?25l")
	if count() != 0 {
		t.Errorf("hidden: %d cursors", count())
	}
	write(&c, "\x1b[?25h\x1b[1;1H")
	if !underlined(0, 0) || count() != 1 {
		t.Errorf("shown at (0,0) %v, %d cursors", underlined(0, 0), count())
	}
}

// counting is a mem that counts the cells drawn.
type counting struct {
	*mem
	cells int
}

func (m *counting) Cell(x, y int, rows *[MaxCellH]uint8, h int, fg, bg uint8) {
	m.cells++
	m.mem.Cell(x, y, rows, h, fg, bg)
}

// With Defer, writing marks and Flush draws: after each flush the
// screen is, pixel for pixel, what drawing every byte at once shows,
// and a burst that scrolls the screen many times draws about a screen's
// worth of cells, not every line's.
func TestDeferredDrawing(t *testing.T) {
	now, later := newMem(96, 80), &counting{mem: newMem(96, 80)}
	var c, d Console
	c.Init(now, 96, 80)
	d.Init(later, 96, 80)
	d.Defer = true
	for k, s := range []string{"ab\x1b[31mcd\x1b[0m\n", "\x1b[2;3H\x1b[K", "line\nline\nline\nline\nline\nline\n", "\x1b[?25l", "x\x1b[?25h\x1b[1;1H\x1b[2J"} {
		write(&c, s)
		write(&d, s)
		d.Flush()
		if string(now.shown()) != string(later.shown()) {
			t.Fatalf("after %d (%q) the deferred screen differs", k, s)
		}
	}
	later.cells = 0
	for i := 0; i < 200; i++ {
		write(&d, "0123456789\n")
	}
	d.Flush()
	if max := 2 * (d.Rows*d.Cols + 2); later.cells > max {
		t.Errorf("200 lines drew %d cells, want at most %d", later.cells, max)
	}
	for i := 0; i < 200; i++ {
		write(&c, "0123456789\n")
	}
	if string(now.shown()) != string(later.shown()) {
		t.Error("after the burst the deferred screen differs")
	}
}
