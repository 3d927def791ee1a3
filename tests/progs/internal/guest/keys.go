package guest

import (
	"fmt"
	"os"

	"golang.org/x/term"
)

// ReadKeys reads from stdin until n bytes have come: in raw mode each
// read gives what has been typed so far, one key or several.
func ReadKeys(n int) ([]byte, error) {
	var keys []byte
	for len(keys) < n {
		var b [16]byte
		m, err := os.Stdin.Read(b[:])
		if err != nil {
			return keys, err
		}
		keys = append(keys, b[:m]...)
	}
	return keys, nil
}

// RawKeys puts the terminal on stdin in raw mode (x/term's MakeRaw),
// asks for keys ("raw: type keys"), reads n of them and prints them as
// "keys %q": the raw-mode step the terminal tests type at. It returns
// the cooked state for term.Restore; the terminal stays raw.
func RawKeys(n int) (*term.State, error) {
	old, err := term.MakeRaw(0)
	if err != nil {
		return nil, fmt.Errorf("MakeRaw: %v", err)
	}
	fmt.Print("raw: type keys\r\n")
	keys, err := ReadKeys(n)
	if err != nil {
		return old, fmt.Errorf("raw read: %v", err)
	}
	fmt.Printf("keys %q\r\n", keys)
	return old, nil
}
