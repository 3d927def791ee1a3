package klog

import "strconv"

// The two ways a record is read: syslog(2)'s text ("<6>[    1.234567]
// line\n": record_print_text with the priority prefix and the time) and
// /dev/kmsg's ("6,12,1234567,-;line\n": devkmsg_read's info_print_ext_header
// then the line with unprintable bytes escaped as \xNN).

// SyslogText writes record r as syslog(2) gives it into b and returns
// the length (0 if it does not fit).
func SyslogText(r *Record, b []byte) int {
	var w writer
	w.b = b
	w.byte('<')
	w.dec(uint64(r.Facility)<<3|uint64(r.Level), 0)
	w.str(">[")
	w.dec(r.TimeUsec/1e6, 5)
	w.byte('.')
	w.dec(r.TimeUsec%1e6, 6)
	w.byte(']')
	w.byte(' ')
	for _, c := range r.Text() {
		w.byte(c)
	}
	w.byte('\n')
	if w.over {
		return 0
	}
	return w.n
}

// KmsgText writes record r as a read of /dev/kmsg gives it into b and
// returns the length (0 if it does not fit: the read's EINVAL).
func KmsgText(r *Record, b []byte) int {
	var w writer
	w.b = b
	w.dec(uint64(r.Facility)<<3|uint64(r.Level), 0)
	w.byte(',')
	w.dec(r.Seq, 0)
	w.byte(',')
	w.dec(r.TimeUsec, 0)
	w.str(",-;")
	for _, c := range r.Text() {
		if c < ' ' || c >= 127 || c == '\\' {
			const hex = "0123456789abcdef"
			w.str("\\x")
			w.byte(hex[c>>4])
			w.byte(hex[c&15])
			continue
		}
		w.byte(c)
	}
	w.byte('\n')
	if w.over {
		return 0
	}
	return w.n
}

// writer fills a byte slice, noting when it ran out.
type writer struct {
	b    []byte
	n    int
	over bool
}

func (w *writer) byte(c byte) {
	if w.n >= len(w.b) {
		w.over = true
		return
	}
	w.b[w.n] = c
	w.n++
}

func (w *writer) str(s string) {
	for i := 0; i < len(s); i++ {
		w.byte(s[i])
	}
}

// dec writes v in decimal, right-aligned to width with spaces, or
// zero-padded when width is 6 (the microseconds).
func (w *writer) dec(v uint64, width int) {
	var tmp [20]byte
	d := strconv.AppendUint(tmp[:0], v, 10) // fits: no growth, no heap
	pad := byte(' ')
	if width == 6 {
		pad = '0'
	}
	for k := len(d); k < width; k++ {
		w.byte(pad)
	}
	for _, c := range d {
		w.byte(c)
	}
}
