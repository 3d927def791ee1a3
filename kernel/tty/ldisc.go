package tty

import "golang.org/x/sys/unix"

// The line discipline, after Linux's drivers/tty/n_tty.c: the receive
// side (n_tty_receive_char_special and _inline, eraser), echo (echo_char
// and process_echoes, done at once here: the console's output never
// blocks) and output post-processing (do_output_char). Everything runs
// under the kernel lock: the receive interrupt holds it, and so do the
// system calls that read, write and set modes.

func (t *Terminal) iflag(f uint32) bool { return t.Termios.Iflag&f != 0 }
func (t *Terminal) oflag(f uint32) bool { return t.Termios.Oflag&f != 0 }
func (t *Terminal) lflag(f uint32) bool { return t.Termios.Lflag&f != 0 }

// is says whether c is the control character cc[i], which must be set:
// a NUL there disables it (_POSIX_VDISABLE, Linux's __DISABLED_CHAR).
func (t *Terminal) is(c byte, i int) bool { return c != 0 && t.Termios.Cc[i] == c }

// count is how many bytes the buffer holds (n_tty's read_cnt).
func (t *Terminal) count() uint32 { return t.head - t.tail }

func (t *Terminal) isDelim(i uint32) bool {
	i %= bufSize
	return t.delim[i/8]&(1<<(i%8)) != 0
}

func (t *Terminal) setDelim(i uint32, on bool) {
	i %= bufSize
	if on {
		t.delim[i/8] |= 1 << (i % 8)
	} else {
		t.delim[i/8] &^= 1 << (i % 8)
	}
}

// put queues c as input (put_tty_queue); a full buffer drops it, as
// n_tty's receive_room does. In canonical mode the last slot is kept for
// the byte that ends the line, so a full line can still be ended.
func (t *Terminal) put(c byte, ends bool) {
	room := bufSize - t.count()
	if room == 0 || !ends && room == 1 && t.lflag(unix.ICANON) {
		return
	}
	t.setDelim(t.head, ends)
	t.buf[t.head%bufSize] = c
	t.head++
	if ends {
		t.canonHead = t.head
	}
}

// flushInput drops all input (n_tty_flush_buffer's reset_buffer_flags).
func (t *Terminal) flushInput() {
	t.head, t.tail, t.canonHead = 0, 0, 0
	t.delim = [bufSize / 8]byte{}
	t.lnext = false
}

// readable says whether a read would find input (input_available_p):
// in canonical mode a whole line (or an EOF); otherwise a byte, or for
// poll with VMIN set and VTIME not, VMIN bytes.
func (t *Terminal) readable(poll bool) bool {
	if t.lflag(unix.ICANON) {
		return t.canonHead != t.tail
	}
	want := uint32(1)
	if vmin := uint32(t.Termios.Cc[unix.VMIN]); poll && vmin > 0 && t.Termios.Cc[unix.VTIME] == 0 {
		want = vmin
	}
	return t.count() >= want
}

// receive is the discipline for one received byte
// (n_tty_receive_char_special, then n_tty_receive_char).
func (t *Terminal) receive(c byte) {
	if t.iflag(unix.ISTRIP) {
		c &= 0x7f
	}
	if t.lnext {
		t.lnext = false
		t.ordinary(c)
		return
	}
	// lab:tty begin
	if t.lflag(unix.ISIG) {
		switch {
		case t.is(c, unix.VINTR):
			t.signal(c, int(unix.SIGINT))
			return
		case t.is(c, unix.VQUIT):
			t.signal(c, int(unix.SIGQUIT))
			return
		case t.is(c, unix.VSUSP):
			t.signal(c, int(unix.SIGTSTP))
			return
		}
	}
	// lab:tty stub
	// // TODO(lab tty): with ISIG on, the interrupt, quit and suspend
	// // characters (cc[VINTR], cc[VQUIT], cc[VSUSP]; t.is tells them)
	// // are not input: each is t.signal(c, SIGINT, SIGQUIT or SIGTSTP),
	// // and nothing more happens to it. Until then they are typed into
	// // the line like any other byte.
	// lab:tty end
	switch {
	case c == '\r' && t.iflag(unix.IGNCR):
		return
	case c == '\r' && t.iflag(unix.ICRNL):
		c = '\n'
	case c == '\n' && t.iflag(unix.INLCR):
		c = '\r'
	}
	if !t.lflag(unix.ICANON) {
		t.ordinary(c)
		return
	}
	iexten := t.lflag(unix.IEXTEN)
	switch {
	case t.is(c, unix.VERASE) || t.is(c, unix.VKILL) || iexten && t.is(c, unix.VWERASE):
		t.erase(c)
	case iexten && t.is(c, unix.VLNEXT):
		t.lnext = true
		if t.lflag(unix.ECHO) && t.lflag(unix.ECHOCTL) {
			// A caret the next byte's echo overwrites.
			t.echoRaw('^')
			t.echoRaw('\b')
		}
	case iexten && t.is(c, unix.VREPRINT) && t.lflag(unix.ECHO):
		t.echo(c)
		t.echoRaw('\n')
		for i := t.canonHead; i != t.head; i++ {
			t.echo(t.buf[i%bufSize])
		}
	case c == '\n':
		if t.lflag(unix.ECHO) || t.lflag(unix.ECHONL) {
			t.echoRaw('\n')
		}
		t.put(c, true)
	case t.is(c, unix.VEOF):
		t.put(0, true) // not echoed; kept as __DISABLED_CHAR
	case t.is(c, unix.VEOL) || iexten && t.is(c, unix.VEOL2):
		t.echoStart(c)
		t.put(c, true)
	default:
		t.ordinary(c)
	}
}

// ordinary queues a byte that is just input, echoing it
// (n_tty_receive_char); in canonical mode it joins the line being
// edited.
func (t *Terminal) ordinary(c byte) {
	if c == '\n' && t.lflag(unix.ECHO) {
		t.echoRaw('\n')
	} else {
		t.echoStart(c)
	}
	t.put(c, false)
}

// echoStart echoes c, noting first the column the line starts at when
// c is its first byte (echo_set_canon_col).
func (t *Terminal) echoStart(c byte) {
	if !t.lflag(unix.ECHO) {
		return
	}
	if t.canonHead == t.head {
		t.canonColumn = t.column
	}
	t.echo(c)
}

// signal is VINTR, VQUIT or VSUSP (n_tty_receive_signal_char): the
// input is dropped unless NOFLSH, the character is echoed (^C), and the
// foreground group gets sig.
func (t *Terminal) signal(c byte, sig int) {
	// lab:tty begin
	if !t.lflag(unix.NOFLSH) {
		t.flushInput()
	}
	if t.lflag(unix.ECHO) {
		t.echo(c)
	}
	t.kill(sig)
	// lab:tty stub
	// // TODO(lab tty): drop all input, the line being edited and the
	// // lines not yet read, unless NOFLSH (flushInput); echo c (as ^C
	// // with ECHOCTL: echo does that) when ECHO is on; then send sig to
	// // the terminal's foreground process group (t.kill).
	// _ = sig
	// t.ordinary(c)
	// lab:tty end
}

// iscntrl is C's iscntrl in the C locale.
func iscntrl(c byte) bool { return c < ' ' || c == del }

// continuation says whether c continues a UTF-8 character, with IUTF8
// on (is_continuation).
func (t *Terminal) continuation(c byte) bool {
	return t.iflag(unix.IUTF8) && c&0xc0 == 0x80
}

// echo echoes c (echo_char): a control character other than tab as ^X
// with ECHOCTL.
func (t *Terminal) echo(c byte) {
	if t.lflag(unix.ECHOCTL) && iscntrl(c) && c != '\t' {
		t.echoRaw('^')
		t.echoRaw(c ^ 0o100)
		return
	}
	t.echoRaw(c)
}

// echoRaw echoes c as it is, through output processing (process_echoes
// runs echoes through do_output_char).
func (t *Terminal) echoRaw(c byte) { t.output(c) }

// erase is the erase, kill and word-erase characters (n_tty's eraser):
// they take back bytes of the line being edited, and with ECHO and
// ECHOE wipe them from the screen ("\b \b" a column; two for a control
// character echoed as ^X; a tab's columns by rescanning the line).
func (t *Terminal) erase(c byte) {
	// lab:tty begin
	if t.head == t.canonHead {
		return // nothing typed on this line
	}
	echo := t.lflag(unix.ECHO)
	var kind int
	switch {
	case t.is(c, unix.VERASE):
		kind = unix.VERASE
	case t.is(c, unix.VWERASE):
		kind = unix.VWERASE
	default:
		kind = unix.VKILL
		if !echo {
			t.head = t.canonHead
			return
		}
		if !t.lflag(unix.ECHOK) || !t.lflag(unix.ECHOKE) || !t.lflag(unix.ECHOE) {
			t.head = t.canonHead
			t.echo(c)
			if t.lflag(unix.ECHOK) {
				t.echoRaw('\n')
			}
			return
		}
	}
	alnums := 0
	for t.head != t.canonHead {
		// The character before head: its last byte, and with IUTF8
		// the bytes it continues.
		h := t.head - 1
		c := t.buf[h%bufSize]
		for t.continuation(c) && h != t.canonHead {
			h--
			c = t.buf[h%bufSize]
		}
		if t.continuation(c) {
			break // no character starts here: do not erase part of one
		}
		if kind == unix.VWERASE {
			if isalnum(c) || c == '_' {
				alnums++
			} else if alnums > 0 {
				break
			}
		}
		t.head = h
		if echo {
			switch {
			case kind == unix.VERASE && !t.lflag(unix.ECHOE):
				t.echo(t.Termios.Cc[unix.VERASE])
			case c == '\t':
				t.eraseTab()
			default:
				if iscntrl(c) && t.lflag(unix.ECHOCTL) {
					t.rubout()
				}
				if !iscntrl(c) || t.lflag(unix.ECHOCTL) {
					t.rubout()
				}
			}
		}
		if kind == unix.VERASE {
			break
		}
	}
	// lab:tty stub
	// // TODO(lab tty): take back what c erases of the line being edited
	// // (the bytes from t.canonHead to t.head), and wipe it from the
	// // screen. c is one of three characters (t.is tells which):
	// //   - cc[VERASE] takes back one character (with IUTF8 all the
	// //     bytes of a UTF-8 one; t.continuation);
	// //   - cc[VWERASE] the previous word: first whatever is not a
	// //     letter, digit or '_' (isalnum), then those that are;
	// //   - cc[VKILL] the whole line.
	// // With ECHO and ECHOE each character taken back is rubbed out: a
	// // column, two for a control character echoed as ^X (ECHOCTL), a
	// // tab's columns (eraseTab). Without ECHOE an erase echoes the erase
	// // character instead. A kill without all of ECHOK, ECHOKE and ECHOE
	// // echoes the kill character, then a newline with ECHOK. Nothing
	// // typed on this line: nothing to do. Until then the three are
	// // typed into the line like any other byte:
	// t.ordinary(c)
	// lab:tty end
}

// isalnum is C's isalnum in the C locale.
func isalnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// tabWidth is the distance between tab stops, as n_tty counts them.
const tabWidth = 8

// rubout wipes one column: "\b \b".
func (t *Terminal) rubout() {
	t.echoRaw('\b')
	t.echoRaw(' ')
	t.echoRaw('\b')
}

// eraseTab backs over the columns a tab just erased took: from the
// column the line now ends at (found by rescanning it from where it
// started: eraser's count for echo_erase_tab) to the next tab stop.
func (t *Terminal) eraseTab() {
	// lab:tty begin
	col := t.canonColumn
	for i := t.canonHead; i != t.head; i++ {
		c := t.buf[i%bufSize]
		switch {
		case c == '\t':
			col = col | 7 + 1
		case iscntrl(c):
			if t.lflag(unix.ECHOCTL) {
				col += 2
			}
		case !t.continuation(c):
			col++
		}
	}
	// The tab's width from col, 8 - col%8 columns, no more than the
	// cursor has. The backspaces go out as they are and are counted
	// off the column here, with OPOST or without (process_echoes'
	// ECHO_OP_ERASE_TAB), so a column output processing did not move
	// (OPOST turned off mid-line) cannot keep this loop going.
	n := tabWidth - col%tabWidth
	if n > t.column {
		n = t.column
	}
	for ; n > 0; n-- {
		t.Out('\b')
		t.column--
	}
	// lab:tty stub
	// // TODO(lab tty): the tab just taken back took the columns from
	// // where the line before it ends to t.column. Find that column:
	// // start at t.canonColumn and go through the line (t.canonHead to
	// // t.head) as output would (a tab to the next multiple of 8, a
	// // control character 2 columns with ECHOCTL and none without, a
	// // UTF-8 continuation byte none, anything else 1). Then back up to
	// // the tab stop before it, but not past column 0: t.Out('\b') and
	// // t.column-- for each column (not echoRaw: without OPOST, output
	// // does not count columns).
	// lab:tty end
}

// output writes c to the device, post-processed with OPOST
// (do_output_char): ONLCR sends NL as CR NL, OCRNL CR as NL, ONOCR no
// CR at column 0, ONLRET NL returns; the column is tracked for tabs and
// erasing.
func (t *Terminal) output(c byte) {
	if !t.oflag(unix.OPOST) {
		t.emit(c)
		return
	}
	switch c {
	case '\n':
		if t.oflag(unix.ONLRET) {
			t.column = 0
		}
		if t.oflag(unix.ONLCR) {
			t.column = 0
			t.emit('\r')
		}
	case '\r':
		if t.oflag(unix.ONOCR) && t.column == 0 {
			return
		}
		if t.oflag(unix.OCRNL) {
			c = '\n'
			if t.oflag(unix.ONLRET) {
				t.column = 0
			}
			break
		}
		t.column = 0
	case '\t':
		spaces := 8 - t.column%8
		t.column += spaces
		if t.Termios.Oflag&unix.TABDLY == unix.XTABS {
			for ; spaces > 0; spaces-- {
				t.emit(' ')
			}
			return
		}
	case '\b':
		if t.column > 0 {
			t.column--
		}
	default:
		if !iscntrl(c) && !t.continuation(c) {
			t.column++
		}
	}
	t.emit(c)
}
