package guest

import "os"

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
