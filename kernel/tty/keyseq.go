package tty

// KeySeq follows the escape sequences keys send (ECMA-48 §5.4): ESC and
// one byte (Alt+key), ESC O and one byte (SS3: F1-F4, and arrows in
// application mode), or a control sequence: ESC [, parameter and
// intermediate bytes (0x20-0x3f), a final byte (0x40-0x7e). Open says
// whether the bytes so far end inside one; the console's receive
// interrupt uses it to hand a sequence over whole (kernel's consoleRx).
type KeySeq struct{ state uint8 }

const (
	keyNone  = iota
	keyESC   // after ESC
	keyCSI   // inside ESC [
	keySS3   // after ESC O
	esc      = 0x1b
	csiFirst = 0x20 // parameter and intermediate bytes: 0x20-0x3f
	csiLast  = 0x3f
)

// Next takes the next byte received.
func (k *KeySeq) Next(c byte) {
	switch {
	case c == esc:
		k.state = keyESC
	case k.state == keyESC && c == '[':
		k.state = keyCSI
	case k.state == keyESC && c == 'O':
		k.state = keySS3
	case k.state == keyCSI && c >= csiFirst && c <= csiLast:
	default:
		k.state = keyNone
	}
}

// Open says whether the bytes taken so far end inside a sequence.
func (k *KeySeq) Open() bool { return k.state != keyNone }
