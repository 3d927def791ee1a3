//go:build !arm64

package socket

import (
	"testing"

	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// A close with SO_LINGER 0 s resets the connection: the peer reads what
// was sent, then ECONNRESET once (with EPOLLERR), then EOF; a plain close
// is an orderly EOF; a close with unread data resets, as Linux's
// tcp_close and unix_release_sock do.
func TestAbortiveClose(t *testing.T) {
	buf := setup(t)
	l, _ := listen(t, 8080)
	for _, tc := range []struct {
		name      string
		linger0   bool
		unread    bool
		wantReset bool
	}{
		{"orderly", false, false, false},
		{"SO_LINGER 0", true, false, true},
		{"unread data", false, true, true},
	} {
		c, cf := dial(t, 8080)
		s, sf := accept(t, l)
		if tc.linger0 {
			s.SetLinger(true, 0)
		}
		if tc.unread {
			send(t, cf, buf, "never read")
		}
		send(t, sf, buf, "bye")
		vfs.DecRef(sf.Index())
		if got, _ := recv(t, cf, buf); got != "bye" {
			t.Errorf("%s: read %q before the close's news", tc.name, got)
		}
		reset := c.Readiness(cf)&unix.EPOLLERR != 0
		_, r := recv(t, cf, buf)
		// (An orderly close reports EPOLLERR too, on the write side.)
		if tc.wantReset && (!reset || r != vfs.Err(unix.ECONNRESET)) || !tc.wantReset && r != 0 {
			t.Errorf("%s: EPOLLERR %v, read %#x; want reset %v", tc.name, reset, r, tc.wantReset)
		}
		if _, r := recv(t, cf, buf); r != 0 {
			t.Errorf("%s: second read %#x, want EOF", tc.name, r)
		}
		vfs.DecRef(cf.Index())
	}
}
