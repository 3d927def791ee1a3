package fbcon

import (
	"image"
	"strings"
	"testing"

	"golang.org/x/image/font/basicfont"
)

// mem is a Surface in memory: a pixel a byte (1 lit), two screens tall.
type mem struct {
	w, h int
	px   []byte
	pan  int
	pans int
}

func newMem(w, h int) *mem { return &mem{w: w, h: h, px: make([]byte, w*2*h)} }

func (m *mem) Cell(x, y int, rows *[MaxCellH]uint8, h int) {
	for j := 0; j < h; j++ {
		for i := 0; i < CellW; i++ {
			m.px[(y+j)*m.w+x+i] = rows[j] >> (7 - i) & 1
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
	write(&c, "ab\tc\rX\x1b[1;31mred\x1b[0m\bD\n\xe2\x82\xacuro\x07\n0123456789wrap")
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
			want := g[j] >> (7 - i) & 1
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
