package inet

// reset puts the stack back to its boot state for a test, with a MAC and
// a Transmit that keeps copies of what was sent.
func reset(sent *[][]byte) {
	If = Iface{MAC: [6]byte{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}}
	Stats = Counters{}
	DHCP = DHCPClient{}
	arpCache = [arpCacheSize]arpEntry{}
	arpNext = 0
	Transmit = func(f []byte) bool {
		if sent != nil {
			*sent = append(*sent, append([]byte(nil), f...))
		}
		return true
	}
}

var (
	testIP   = [4]byte{10, 0, 2, 15}
	testMask = [4]byte{255, 255, 255, 0}
	testGW   = [4]byte{10, 0, 2, 2}
)
