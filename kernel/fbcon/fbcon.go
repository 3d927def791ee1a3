//go:generate go run gen_font.go

// Package fbcon is a text console on a framebuffer, what Linux's fbcon
// and vt are to a Pi on a monitor: the console's bytes (the boot log,
// the program's output) as text in cells of the 6x13 misc-fixed font,
// grey on black, a line feed at the bottom scrolling the screen. It
// scrolls by panning, not by copying pixels: the framebuffer is two
// screens tall, every text row is drawn twice (at its place in a ring of
// rows and one ring's height below), and the view starts at the ring's
// top row, so a scroll is one row cleared and a pan (Linux's fbcon does
// the same with its "ywrap"/"pan" scroll modes). It obeys the part of
// the Linux console's escape sequences (console_codes(4)) a shell and
// its line editor use: colours and attributes (SGR), cursor moves,
// erasing in the line and the screen, the cursor saved and restored,
// shown and hidden; it draws the cursor as Linux's default underline
// (not blinking). The drawing is the Surface's; this package is the grid
// of cells, which builds on the host: go test ./kernel/fbcon.
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
	// the leftmost pixel in bit 7, h of them, Palette[fg] where set,
	// Palette[bg] elsewhere.
	Cell(x, y int, rows *[MaxCellH]uint8, h int, fg, bg uint8)
	// Clear blanks pixel lines [y, y+h) to Palette[0].
	Clear(y, h int)
	// Pan shows the screen from pixel line y.
	Pan(y int)
}

// Palette is the console's 16 colours, XRGB8888: Linux's default VGA
// palette (drivers/tty/vt/vt.c, default_red, default_grn, default_blu),
// the eight of SGR 30-37 and 40-47, then their bright forms (90-97,
// 100-107, and bold text).
var Palette = [16]uint32{
	0x000000, 0xaa0000, 0x00aa00, 0xaa5500, 0x0000aa, 0xaa00aa, 0x00aaaa, 0xaaaaaa,
	0x555555, 0xff5555, 0x55ff55, 0xffff55, 0x5555ff, 0xff55ff, 0x55ffff, 0xffffff,
}

// Colours by index in Palette.
const (
	colourBlack  = 0
	colourGrey   = 7 // Linux's default foreground
	colourBright = 8 // added to a colour: its bright form
	defaultAttr  = colourGrey | colourBlack<<4
)

// Console is one console's state.
type Console struct {
	S          Surface
	Cols, Rows int
	CellH      int
	// The cursor: column (Cols while a wrap is pending, as Linux's
	// need_wrap) and screen row; the one saved (ESC 7, CSI s).
	x, y           int
	savedX, savedY int
	top            int // the ring row shown at the top
	// The escape sequence being read: its state, its parameters.
	esc     uint8
	private bool // CSI ? (DEC private modes)
	params  [maxParams]int
	nparams int
	// Graphic rendition (SGR): colours, bold, reverse.
	fg, bg        uint8
	bold, reverse bool
	hidden        bool // the cursor is hidden (CSI ?25l)
	// cursorRow and cursorCol are the ring cell the cursor is drawn in
	// (cursorRow -1: none).
	cursorRow, cursorCol int
	// Defer, set, makes writing only mark what changed: ring row r's
	// cells [dirtyLo[r], dirtyHi[r]), the view's position (panned), the
	// cursor; Flush draws it. A burst of output then draws the screen
	// it leaves, once, not every line that scrolled through.
	Defer            bool
	dirtyLo, dirtyHi [MaxRows]uint16
	panned           bool
	cells            [MaxRows][MaxCols]byte  // glyph index+1 by ring row; 0 blank
	attrs            [MaxRows][MaxCols]uint8 // colours: fg | bg<<4
	glyph            [MaxCellH]uint8
	period           int // the ring's height in pixels: Rows*CellH
	height           int // the screen's
}

// maxParams bounds a CSI sequence's parameters (Linux's NPAR is 16).
const maxParams = 16

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
	c.fg, c.bg = colourGrey, colourBlack
	for r := range c.attrs[:c.Rows] {
		c.blankRow(r)
	}
	c.cursorRow = -1
	c.Redraw()
}

// Redraw blanks both screens and draws every cell again (after another
// user of the framebuffer gave it back), and the cursor.
func (c *Console) Redraw() {
	c.S.Clear(0, 2*c.height)
	c.cursorRow = -1
	c.dirtyLo, c.dirtyHi, c.panned = [MaxRows]uint16{}, [MaxRows]uint16{}, false
	for r := 0; r < c.Rows; r++ {
		for x := 0; x < c.Cols; x++ {
			if c.cells[r][x] != 0 || c.attrs[r][x] != defaultAttr {
				c.draw(r, x)
			}
		}
	}
	c.S.Pan(c.top * c.CellH)
	c.placeCursor()
}

// ring is screen row y's row in the ring.
func (c *Console) ring(y int) int { return (c.top + y) % c.Rows }

// draw draws ring row r's cell x, in both copies, with the cursor's
// underline if the cursor is there (Linux's default CUR_UNDERLINE: the
// cell's last two pixel lines).
func (c *Console) draw(r, x int) {
	g := int(c.cells[r][x]) - 1
	c.glyph = [MaxCellH]uint8{}
	if g >= 0 {
		for k := 0; k < glyphH; k++ {
			c.glyph[glyphTop+k] = font[g][k] >> 1
		}
	}
	a := c.attrs[r][x]
	if r == c.ring(c.y) && x == min(c.x, c.Cols-1) && !c.hidden {
		c.glyph[c.CellH-2], c.glyph[c.CellH-1] = 0xff, 0xff
		c.cursorRow, c.cursorCol = r, x
	} else if r == c.cursorRow && x == c.cursorCol {
		c.cursorRow = -1
	}
	c.S.Cell(x*CellW, r*c.CellH, &c.glyph, c.CellH, a&0xf, a>>4)
	c.S.Cell(x*CellW, r*c.CellH+c.period, &c.glyph, c.CellH, a&0xf, a>>4)
}

// touch draws ring row r's cell x, or with Defer marks it for Flush.
func (c *Console) touch(r, x int) {
	if !c.Defer {
		c.draw(r, x)
		return
	}
	if c.dirtyLo[r] == c.dirtyHi[r] {
		c.dirtyLo[r], c.dirtyHi[r] = uint16(x), uint16(x+1)
		return
	}
	c.dirtyLo[r], c.dirtyHi[r] = min(c.dirtyLo[r], uint16(x)), max(c.dirtyHi[r], uint16(x+1))
}

// Flush draws what writing with Defer marked: the changed cells, the
// cursor where it is, the view where it is.
func (c *Console) Flush() {
	for r := 0; r < c.Rows; r++ {
		for x := int(c.dirtyLo[r]); x < int(c.dirtyHi[r]); x++ {
			c.draw(r, x)
		}
		c.dirtyLo[r], c.dirtyHi[r] = 0, 0
	}
	c.placeCursor()
	if c.panned {
		c.panned = false
		c.S.Pan(c.top * c.CellH)
	}
}

// placeCursor draws the cursor where it is now, taking it from the cell
// it was drawn in, if another.
func (c *Console) placeCursor() {
	r, x := c.ring(c.y), min(c.x, c.Cols-1)
	if c.cursorRow >= 0 && (c.cursorRow != r || c.cursorCol != x || c.hidden) {
		c.draw(c.cursorRow, c.cursorCol)
	}
	if !c.hidden && (c.cursorRow != r || c.cursorCol != x) {
		c.draw(r, x)
	}
}

// attr is the colours a cell written now takes: bold brightens the
// foreground, reverse swaps the two (Linux's vt build_attr).
func (c *Console) attr() uint8 {
	f, b := c.fg, c.bg
	if c.bold && f < colourBright {
		f += colourBright
	}
	if c.reverse {
		f, b = b, f
	}
	return f | b<<4
}

// Putc writes byte b: printable ASCII is drawn at the cursor, which
// moves on (wrapping at the right edge); LF moves to the next line's
// start (the console's output is a terminal's after ONLCR), scrolling at
// the bottom; CR, BS and TAB move the cursor; an escape sequence is
// obeyed (escape) or skipped; a UTF-8 sequence is one replacement
// glyph; other control bytes are ignored.
func (c *Console) Putc(b byte) {
	switch c.esc {
	case escStart:
		c.esc = escNone
		switch b {
		case '[':
			c.esc, c.private, c.nparams, c.params = escCSI, false, 0, [maxParams]int{}
		case '7': // DECSC
			c.savedX, c.savedY = c.x, c.y
		case '8': // DECRC
			c.x, c.y = c.savedX, c.savedY
		}
	case escCSI:
		switch {
		case b == '?' && c.nparams == 0:
			c.private = true
		case b >= '0' && b <= '9':
			if c.nparams == 0 {
				c.nparams = 1
			}
			if p := &c.params[c.nparams-1]; *p < 10000 {
				*p = *p*10 + int(b-'0')
			}
		case b == ';':
			if c.nparams == 0 {
				c.nparams = 1
			}
			if c.nparams < maxParams {
				c.nparams++
			}
		case b >= 0x40 && b <= 0x7e:
			c.esc = escNone
			c.csi(b)
		case b < ' ':
			c.esc = escNone // a control byte ends it (Linux obeys it; here it is dropped)
		}
	default:
		switch {
		case b == 0x1b:
			c.esc = escStart
		case b == '\n':
			c.newline()
		case b == '\r':
			c.x = 0
		case b == '\b':
			c.x = min(c.x, c.Cols-1)
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
	if c.esc == escNone && !c.Defer {
		c.placeCursor()
	}
}

// param is parameter i of the sequence, or def when it is absent or 0.
func (c *Console) param(i, def int) int {
	if i >= c.nparams || c.params[i] == 0 {
		return def
	}
	return c.params[i]
}

// csi obeys a control sequence ended by final (console_codes(4), "ECMA-48
// CSI sequences"); what it does not know it skips.
func (c *Console) csi(final byte) {
	if c.private {
		if final == 'h' || final == 'l' {
			for i := 0; i < c.nparams; i++ {
				if c.params[i] == 25 { // DECTCEM: the cursor shown or hidden
					c.hidden = final == 'l'
				}
			}
		}
		return
	}
	if final == 'm' {
		c.sgr()
		return
	}
	// Every other sequence ends a pending wrap (vt.c's gotoxy, csi_J,
	// csi_K: need_wrap = 0).
	n := c.param(0, 1)
	x := min(c.x, c.Cols-1)
	c.x = x
	switch final {
	case 'A':
		c.y = max(c.y-n, 0)
	case 'B', 'e':
		c.y = min(c.y+n, c.Rows-1)
	case 'C', 'a':
		c.x = min(x+n, c.Cols-1)
	case 'D':
		c.x = max(x-n, 0)
	case 'E':
		c.x, c.y = 0, min(c.y+n, c.Rows-1)
	case 'F':
		c.x, c.y = 0, max(c.y-n, 0)
	case 'G', '`':
		c.x = min(n, c.Cols) - 1
	case 'd':
		c.y = min(n, c.Rows) - 1
	case 'H', 'f':
		c.y, c.x = min(n, c.Rows)-1, min(c.param(1, 1), c.Cols)-1
	case 'K':
		r := c.ring(c.y)
		switch c.param(0, 0) {
		case 0:
			c.erase(r, x, c.Cols)
		case 1:
			c.erase(r, 0, x+1)
		case 2:
			c.erase(r, 0, c.Cols)
		}
	case 'J':
		switch c.param(0, 0) {
		case 0:
			c.erase(c.ring(c.y), x, c.Cols)
			for y := c.y + 1; y < c.Rows; y++ {
				c.erase(c.ring(y), 0, c.Cols)
			}
		case 1:
			for y := 0; y < c.y; y++ {
				c.erase(c.ring(y), 0, c.Cols)
			}
			c.erase(c.ring(c.y), 0, x+1)
		case 2, 3:
			for y := 0; y < c.Rows; y++ {
				c.erase(c.ring(y), 0, c.Cols)
			}
		}
	case 's':
		c.savedX, c.savedY = c.x, c.y
	case 'u':
		c.x, c.y = c.savedX, c.savedY
	}
}

// sgr obeys Select Graphic Rendition: each parameter in turn (none is
// 0, the defaults).
func (c *Console) sgr() {
	for i := 0; i < max(c.nparams, 1); i++ {
		switch p := c.params[i]; {
		case p == 0:
			c.fg, c.bg, c.bold, c.reverse = colourGrey, colourBlack, false, false
		case p == 1:
			c.bold = true
		case p == 22:
			c.bold = false
		case p == 7:
			c.reverse = true
		case p == 27:
			c.reverse = false
		case p >= 30 && p <= 37:
			c.fg = uint8(p - 30)
		case p == 39:
			c.fg = colourGrey
		case p >= 40 && p <= 47:
			c.bg = uint8(p - 40)
		case p == 49:
			c.bg = colourBlack
		case p >= 90 && p <= 97:
			c.fg = uint8(p-90) + colourBright
		case p >= 100 && p <= 107:
			c.bg = uint8(p-100) + colourBright
		case p == 38 || p == 48:
			return // 256 and true colours: the rest of the list is theirs
		}
	}
}

// erase blanks ring row r's cells [from, to) in the current background
// (Linux's video_erase_char), drawing those that change.
func (c *Console) erase(r, from, to int) {
	a := c.attr()&0xf0 | colourGrey
	for x := from; x < to; x++ {
		if c.cells[r][x] != 0 || c.attrs[r][x] != a {
			c.cells[r][x], c.attrs[r][x] = 0, a
			c.touch(r, x)
		}
	}
}

// blankRow makes ring row r blank, in the default colours.
func (c *Console) blankRow(r int) {
	c.cells[r] = [MaxCols]byte{}
	for x := range c.attrs[r] {
		c.attrs[r][x] = defaultAttr
	}
}

// put draws glyph g+1 at the cursor and moves it on.
func (c *Console) put(g int) {
	if c.x >= c.Cols {
		c.newline()
	}
	r := c.ring(c.y)
	c.cells[r][c.x], c.attrs[r][c.x] = byte(g), c.attr()
	c.x++
	c.touch(r, c.x-1)
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
	c.blankRow(r)
	if c.cursorRow == r {
		c.cursorRow = -1
	}
	c.S.Clear(r*c.CellH, c.CellH)
	c.S.Clear(r*c.CellH+c.period, c.CellH)
	c.dirtyLo[r], c.dirtyHi[r] = 0, 0 // blank now, drawn so
	if c.Defer {
		c.panned = true
		return
	}
	c.S.Pan(c.top * c.CellH)
}
