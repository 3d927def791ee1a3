//go:build !arm64

package tty

import (
	"slices"
	"strings"
	"testing"

	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// The canonical-mode editing and ISIG cases the tty lab asks for
// (labs/tty), beyond tty_test.go's. Every expected echo and read was
// checked on a Linux 6.18 pty on the host (n_tty itself): the same
// termios set on the pty's terminal side (tty_std_termios, then the
// test's change), the bytes written to its master one at a time with
// the echo read back after each (an ISIG flush also drops echo the
// master has not read yet), a program's output written to the terminal
// side, and the lines read there. Each test names the n_tty.c function
// whose code gives its answer.

// echoes types in, returns what the terminal echoed for it.
func (tm *term) echoes(in string) string {
	Input([]byte(in))
	return tm.echoed()
}

// write is a program writing s to the terminal (a prompt); it returns
// and forgets what went out.
func (tm *term) write(t *testing.T, s string) string {
	t.Helper()
	usermem.CopyOut(tm.buf, []byte(s))
	if r := Console.Write(tm.f, tm.buf, uint64(len(s)), -1); r != uint64(len(s)) {
		t.Fatalf("write = %#x", r)
	}
	return tm.echoed()
}

// lines reads until nothing is left: in canonical mode a line a read.
func (tm *term) lines(t *testing.T) []string {
	t.Helper()
	var got []string
	for {
		s, r := tm.read(t)
		if vfs.IsErr(r) || r == 0 {
			return got
		}
		got = append(got, s)
	}
}

func sameLines(got []string, want ...string) bool { return slices.Equal(got, want) }

// rubouts is n columns rubbed out, "\b \b" each.
func rubouts(n int) string { return strings.Repeat("\b \b", n) }

// backs is n backspaces, a tab's columns taken back.
func backs(n int) string { return strings.Repeat("\b", n) }

// Erase, kill and word-erase with nothing typed on the line do nothing,
// not even echo; a line already ended (not yet read) is not the line
// being edited, so they cannot take back its newline. eraser's first
// test, read_head == canon_head.
func TestEraseAtLineStart(t *testing.T) {
	tm := setup(t, true)
	if got := tm.echoes("\x7f\x15\x17a\r"); got != "a\r\n" {
		t.Errorf("echo %q, want %q", got, "a\r\n")
	}
	if got := tm.echoes("x\r\x7f\x15\x17y\r"); got != "x\r\ny\r\n" {
		t.Errorf("echo after an ended line %q, want %q", got, "x\r\ny\r\n")
	}
	if got := tm.lines(t); !sameLines(got, "a\n", "x\n", "y\n") {
		t.Errorf("read %q, want a, x, y", got)
	}
}

// Word-erase is BSD's ALTWERASE: first whatever is not a letter, digit
// or '_' (blanks, tabs, punctuation, control characters), then the
// letters, digits and '_' before them; each character rubbed out as
// erase would (a tab its columns, ^A two). Without ECHOE it still rubs
// out: only erase echoes its character instead. eraser's WERASE.
func TestWordEraseTabsAndPunctuation(t *testing.T) {
	tm := setup(t, true)
	// "ls foo.go<TAB>": the tab (column 9 to 16), then "go"; '.' stays.
	if got, want := tm.echoes("ls foo.go\t\x17"), "ls foo.go\t"+backs(7)+rubouts(2); got != want {
		t.Errorf("^W after a tab: echo %q, want %q", got, want)
	}
	// Then ".", "foo"; the blank before them ends the word.
	if got, want := tm.echoes("\x17"), rubouts(4); got != want {
		t.Errorf("^W over punctuation: echo %q, want %q", got, want)
	}
	// '_' is part of a word.
	if got, want := tm.echoes("__init__ \x17"), "__init__ "+rubouts(9); got != want {
		t.Errorf("^W over a word with '_': echo %q, want %q", got, want)
	}
	if got, want := tm.echoes("a-b\x17\x17|\r"), "a-b"+rubouts(1)+rubouts(2)+"|\r\n"; got != want {
		t.Errorf("^W^W over a-b: echo %q, want %q", got, want)
	}
	if got := tm.lines(t); !sameLines(got, "ls |\n") {
		t.Errorf("read %q, want \"ls |\\n\"", got)
	}
	// Two tabs after the word: 8 columns, 5 (11 to 16), then "bar".
	if got, want := tm.echoes("foo\tbar\t\t\x17|\r"), "foo\tbar\t\t"+backs(8+5)+rubouts(3)+"|\r\n"; got != want {
		t.Errorf("^W over two tabs: echo %q, want %q", got, want)
	}
	if got := tm.lines(t); !sameLines(got, "foo\t|\n") {
		t.Errorf("read %q, want \"foo\\t|\\n\"", got)
	}
	// Control characters are not a word: ^A^A, the blank, then "ab".
	if got, want := tm.echoes("ab \x01\x01\x17|\r"), "ab ^A^A"+rubouts(2+2+1+2)+"|\r\n"; got != want {
		t.Errorf("^W over control characters: echo %q, want %q", got, want)
	}
	tm.setModes(t, func(tio *unix.Termios) { tio.Lflag &^= unix.ECHOE })
	if got, want := tm.echoes("ab cd\x17|\r"), "ab cd"+rubouts(2)+"|\r\n"; got != want {
		t.Errorf("^W without ECHOE: echo %q, want %q", got, want)
	}
	if got := tm.lines(t); !sameLines(got, "|\n", "ab |\n") {
		t.Errorf("read %q", got)
	}
}

// Erasing a tab backs over the columns it took, which depend on where
// the line started (after a prompt: canon_column) and on what came
// before it on the line: a control character echoed as ^X takes two
// columns with ECHOCTL and none without. eraser's count for
// echo_erase_tab, and process_echoes' ECHO_OP_ERASE_TAB.
func TestEraseTabColumns(t *testing.T) {
	tm := setup(t, true)
	if got := tm.write(t, "> "); got != "> " {
		t.Fatalf("prompt went out as %q", got)
	}
	for _, c := range []struct{ in, want string }{
		{"\t\x7f", "\t" + backs(6)},       // column 2 to 8
		{"ab\t\x7f", "ab\t" + backs(4)},   // 4 to 8
		{"\x01\t\x7f", "^A\t" + backs(2)}, // ^A: 4 to 6, the tab to 8
		{"\t\t\x7f", "\t\t" + backs(8)},   // the second tab: 16 to 24
		{"\r", "\r\n"},
	} {
		if got := tm.echoes(c.in); got != c.want {
			t.Errorf("typed %q after the prompt: echo %q, want %q", c.in, got, c.want)
		}
	}
	if got := tm.lines(t); !sameLines(got, "ab\x01\t\n") {
		t.Errorf("read %q", got)
	}
	// The line's first character, not the prompt, sets where it starts:
	// "ab" written, then "c" typed at column 2.
	tm.echoes("one\r")
	tm.write(t, "ab")
	if got, want := tm.echoes("c\t\x7f|\r"), "c\t"+backs(5)+"|\r\n"; got != want {
		t.Errorf("tab after a program's output: echo %q, want %q", got, want)
	}
	if got := tm.lines(t); !sameLines(got, "one\n", "c|\n") {
		t.Errorf("read %q", got)
	}
	// Without ECHOCTL a control character is echoed as it is and takes
	// no column: "> a" is 3 columns, the tab 5.
	tm.setModes(t, func(tio *unix.Termios) { tio.Lflag &^= unix.ECHOCTL })
	tm.write(t, "> ")
	if got, want := tm.echoes("a\x01\t\x7f\r"), "a\x01\t"+backs(5)+"\r\n"; got != want {
		t.Errorf("without ECHOCTL: echo %q, want %q", got, want)
	}
	if got := tm.lines(t); !sameLines(got, "a\x01\n") {
		t.Errorf("read %q", got)
	}
}

// With OPOST turned off in the middle of a line, output no longer
// counts columns, so the cursor column (11 here: "a", then a program's
// ten bytes) is past where the line's own count puts the tab. Linux
// backs up 8 - 1%8 columns and counts them off itself (process_echoes'
// ECHO_OP_ERASE_TAB); a loop waiting for output to move the column
// back would never end, with the kernel lock held.
func TestEraseTabWithoutOPOST(t *testing.T) {
	tm := setup(t, true)
	tm.echoes("a")
	tm.write(t, "xxxxxxxxxx")
	tm.setModes(t, func(tio *unix.Termios) { tio.Oflag &^= unix.OPOST })
	if got, want := tm.echoes("\t\x7f\r"), "\t"+backs(7)+"\n"; got != want {
		t.Errorf("echo %q, want %q", got, want)
	}
	if got := tm.lines(t); !sameLines(got, "a\n") {
		t.Errorf("read %q", got)
	}
}

// Kill rubs the line out character by character only with ECHOK,
// ECHOKE and ECHOE all on (a tab its columns, ^A two); otherwise it
// echoes the kill character, then a newline if ECHOK is on (ECHOKE
// alone is not enough on Linux); without ECHO it echoes nothing. The
// line is gone either way. eraser's KILL.
func TestKillEchoModes(t *testing.T) {
	for _, c := range []struct {
		name     string
		off      uint32 // local modes turned off
		in, want string
	}{
		{"ECHOK ECHOKE ECHOE", 0, "a\x01\tb\x15c\r", "a^A\tb" + rubouts(1) + backs(5) + rubouts(2+1) + "c\r\n"},
		{"ECHOK", unix.ECHOKE, "ab\x15c\r", "ab^U\r\nc\r\n"},
		{"ECHOKE", unix.ECHOK, "ab\x15c\r", "ab^Uc\r\n"},
		{"neither", unix.ECHOK | unix.ECHOKE, "ab\x15c\r", "ab^Uc\r\n"},
		{"no ECHOE", unix.ECHOE, "ab\x15c\r", "ab^U\r\nc\r\n"},
		{"no ECHOCTL", unix.ECHOKE | unix.ECHOCTL, "ab\x15c\r", "ab\x15\r\nc\r\n"},
		{"no ECHO", unix.ECHO, "ab\x15c\r", ""},
	} {
		tm := setup(t, true)
		tm.setModes(t, func(tio *unix.Termios) { tio.Lflag &^= c.off })
		if got := tm.echoes(c.in); got != c.want {
			t.Errorf("%s: echo %q, want %q", c.name, got, c.want)
		}
		if got := tm.lines(t); !sameLines(got, "c\n") {
			t.Errorf("%s: read %q, want \"c\\n\"", c.name, got)
		}
	}
}

// The signal characters: echoed (^C, ^\, ^Z with ECHOCTL; the byte
// itself without; nothing without ECHO), and all input dropped first —
// the line being edited and the ended lines not yet read — unless
// NOFLSH. With ISIG they work in raw mode too; a signal character set
// to 0 is disabled and is input. n_tty_receive_char_special,
// n_tty_receive_signal_char, isig.
func TestSignalFlushAndEcho(t *testing.T) {
	for _, c := range []struct {
		name      string
		change    func(*unix.Termios)
		in, want  string
		wantLines []string
		sigs      []int
	}{
		{"flush", nil, "one\rab\x03cd\r", "one\r\nab^Ccd\r\n", []string{"cd\n"}, []int{int(unix.SIGINT)}},
		{"NOFLSH", func(tio *unix.Termios) { tio.Lflag |= unix.NOFLSH },
			"one\rab\x03cd\r", "one\r\nab^Ccd\r\n", []string{"one\n", "abcd\n"}, []int{int(unix.SIGINT)}},
		{"quit and suspend", nil, "a\x1cb\x1ac\r", "a^\\b^Zc\r\n", []string{"c\n"}, []int{int(unix.SIGQUIT), int(unix.SIGTSTP)}},
		{"no ECHO", func(tio *unix.Termios) { tio.Lflag &^= unix.ECHO },
			"ab\x03cd\r", "", []string{"cd\n"}, []int{int(unix.SIGINT)}},
		{"no ECHOCTL", func(tio *unix.Termios) { tio.Lflag &^= unix.ECHOCTL },
			"ab\x03cd\r", "ab\x03cd\r\n", []string{"cd\n"}, []int{int(unix.SIGINT)}},
		{"no ICANON", func(tio *unix.Termios) { tio.Lflag &^= unix.ICANON },
			"ab\x03cd", "ab^Ccd", []string{"cd"}, []int{int(unix.SIGINT)}},
		{"VINTR disabled", func(tio *unix.Termios) { tio.Cc[unix.VINTR] = 0 },
			"a\x03b\r", "a^Cb\r\n", []string{"a\x03b\n"}, nil},
	} {
		tm := setup(t, true)
		if c.change != nil {
			tm.setModes(t, c.change)
		}
		if got := tm.echoes(c.in); got != c.want {
			t.Errorf("%s: echo %q, want %q", c.name, got, c.want)
		}
		if got := tm.lines(t); !sameLines(got, c.wantLines...) {
			t.Errorf("%s: read %q, want %q", c.name, got, c.wantLines)
		}
		if !slices.Equal(tm.sigs, c.sigs) {
			t.Errorf("%s: signals %v, want %v", c.name, tm.sigs, c.sigs)
		}
	}
}

// With IUTF8, erase never takes back part of a character: a line of
// continuation bytes with no first byte before them stays as it is.
// eraser's "do not partially erase".
func TestEraseNoPartialUTF8(t *testing.T) {
	tm := setup(t, true)
	tm.setModes(t, func(tio *unix.Termios) { tio.Iflag |= unix.IUTF8 })
	if got := tm.echoes("\x80\x80\x7f|\r"); got != "\x80\x80|\r\n" {
		t.Errorf("echo %q", got)
	}
	if got := tm.lines(t); !sameLines(got, "\x80\x80|\n") {
		t.Errorf("read %q, want the continuation bytes kept", got)
	}
}
