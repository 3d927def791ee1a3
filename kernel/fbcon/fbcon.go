//go:generate go run gen_font.go

// Package fbcon is a text console on a framebuffer, what Linux's fbcon
// is to a Pi on a monitor: the console's bytes (the boot log, the
// program's output) as white text on black in cells of the 6x13
// misc-fixed font, a line feed at the bottom scrolling the screen. It
// scrolls by panning, not by copying pixels: the framebuffer is two
// screens tall, every text row is drawn twice (at its place in a ring of
// rows and one ring's height below), and the view starts at the ring's
// top row, so a scroll is one row cleared and a pan (Linux's fbcon does
// the same with its "ywrap"/"pan" scroll modes). Escape sequences are
// skipped, not obeyed. The drawing is the Surface's; this package is the
// grid of cells, which builds on the host: go test ./kernel/fbcon.
package fbcon

// Cell geometry: a cell is CellW pixels wide and cellH tall (chosen per
// screen, so that whole rows fill it), the glyph in its top-left
// corner, one pixel from the left and glyphTop from the top.
const (
	CellW    = 8
	glyphW   = 6
	glyphH   = 13
	glyphTop = 1
	minCellH = 14
	// MaxCellH bounds a cell's height (and a Surface's rows).
	MaxCellH = 20
	// prefCellH is the height chosen when several fit the screen.
	prefCellH = 16

	MaxCols = 256 // a 2048-pixel-wide screen
	MaxRows = 80  // a 1280-line screen at 16

	replacement = 95 // U+FFFD's glyph
)

// Surface is where the console draws: a framebuffer two screens tall.
type Surface interface {
	// Cell draws a cell at pixel (x, y): rows are its CellW-bit rows,
	// the leftmost pixel in bit 7, h of them, fg where set, bg
	// elsewhere.
	Cell(x, y int, rows *[MaxCellH]uint8, h int)
	// Clear blanks pixel lines [y, y+h).
	Clear(y, h int)
	// Pan shows the screen from pixel line y.
	Pan(y int)
}

// Console is one console's state.
type Console struct {
	S          Surface
	Cols, Rows int
	CellH      int
	x, y       int // the cursor: column, screen row
	top        int // the ring row shown at the top
	esc        uint8
	cells      [MaxRows][MaxCols]byte // glyph index+1 by ring row; 0 blank
	glyph      [MaxCellH]uint8
	period     int // the ring's height in pixels: Rows*CellH
	height     int // the screen's
}

// Escape states.
const (
	escNone = iota
	escStart
	escCSI
)

// CellHeight picks the cell height for a screen h pixels tall: one in
// [minCellH, MaxCellH] that divides h (so no pixel line is left over),
// the closest to prefCellH; prefCellH when none does.
func CellHeight(h int) int {
	best := 0
	for c := minCellH; c <= MaxCellH; c++ {
		if h%c == 0 && (best == 0 || abs(c-prefCellH) < abs(best-prefCellH)) {
			best = c
		}
	}
	if best == 0 {
		return prefCellH
	}
	return best
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// Init starts a console of a w x h screen on s, blank.
func (c *Console) Init(s Surface, w, h int) {
	c.S = s
	c.CellH = CellHeight(h)
	c.Cols, c.Rows = min(w/CellW, MaxCols), min(h/c.CellH, MaxRows)
	c.period = c.Rows * c.CellH
	c.height = h
	c.Redraw()
}

// Redraw blanks both screens and draws every cell again (after another
// user of the framebuffer gave it back).
func (c *Console) Redraw() {
	c.S.Clear(0, 2*c.height)
	for r := 0; r < c.Rows; r++ {
		for x := 0; x < c.Cols; x++ {
			if c.cells[r][x] != 0 {
				c.draw(r, x)
			}
		}
	}
	c.S.Pan(c.top * c.CellH)
}

// draw draws ring row r's cell x, in both copies.
func (c *Console) draw(r, x int) {
	g := int(c.cells[r][x]) - 1
	c.glyph = [MaxCellH]uint8{}
	if g >= 0 {
		for k := 0; k < glyphH; k++ {
			c.glyph[glyphTop+k] = font[g][k] >> 1
		}
	}
	c.S.Cell(x*CellW, r*c.CellH, &c.glyph, c.CellH)
	c.S.Cell(x*CellW, r*c.CellH+c.period, &c.glyph, c.CellH)
}

// Putc writes byte b: printable ASCII is drawn at the cursor, which
// moves on (wrapping at the right edge); LF moves to the next line's
// start (the console's output is a terminal's after ONLCR), scrolling at
// the bottom; CR, BS and TAB move the cursor; escape sequences are
// skipped; a UTF-8 sequence is one replacement glyph; other control
// bytes are ignored.
func (c *Console) Putc(b byte) {
	switch c.esc {
	case escStart:
		c.esc = escNone
		if b == '[' {
			c.esc = escCSI
		}
		return
	case escCSI:
		if b >= 0x40 && b <= 0x7e {
			c.esc = escNone
		}
		return
	}
	switch {
	case b == 0x1b:
		c.esc = escStart
	case b == '\n':
		c.newline()
	case b == '\r':
		c.x = 0
	case b == '\b':
		if c.x > 0 {
			c.x--
		}
	case b == '\t':
		c.x = min((c.x+8)&^7, c.Cols-1)
	case b >= ' ' && b < 0x7f:
		c.put(int(b-' ') + 1)
	case b >= 0xc0: // a UTF-8 sequence's first byte; its others (0x80-0xbf) are skipped
		c.put(replacement + 1)
	}
}

// put draws glyph g+1 at the cursor and moves it on.
func (c *Console) put(g int) {
	if c.x >= c.Cols {
		c.newline()
	}
	r := (c.top + c.y) % c.Rows
	c.cells[r][c.x] = byte(g)
	c.draw(r, c.x)
	c.x++
}

// newline moves the cursor to the next line's start, scrolling the
// screen up a row at the bottom: the ring's top row becomes the new
// bottom one, blanked, and the view pans to the new top.
func (c *Console) newline() {
	c.x = 0
	if c.y < c.Rows-1 {
		c.y++
		return
	}
	r := c.top
	c.top = (c.top + 1) % c.Rows
	c.cells[r] = [MaxCols]byte{}
	c.S.Clear(r*c.CellH, c.CellH)
	c.S.Clear(r*c.CellH+c.period, c.CellH)
	c.S.Pan(c.top * c.CellH)
}
