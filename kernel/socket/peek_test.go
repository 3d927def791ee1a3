//go:build !arm64

package socket

import (
	"testing"

	"github.com/gometal/gometal/kernel/usermem"
	"github.com/gometal/gometal/kernel/vfs"

	"golang.org/x/sys/unix"
)

// MSG_PEEK on a loopback connection: the next bytes, from an offset,
// left for the read that follows; nothing to read answers EAGAIN, the
// peer's close end of file.
func TestPeekLeavesBytes(t *testing.T) {
	buf := setup(t)
	l, _ := listen(t, 8081)
	c, cf := dial(t, 8081)
	s, sf := accept(t, l)
	defer func() { l.unref(); c.unref() }()
	if r := c.PeekAt(0, buf, 10); r != vfs.Err(unix.EAGAIN) {
		t.Fatalf("peek with nothing sent: %d, want EAGAIN", int64(r))
	}
	send(t, sf, buf, "hello world")
	peek := func(off, n uint64) string {
		t.Helper()
		r := c.PeekAt(off, buf+512, n)
		if vfs.IsErr(r) {
			t.Fatalf("peek: %d", int64(r))
		}
		b := make([]byte, r)
		usermem.CopyIn(b, buf+512)
		return string(b)
	}
	if got := peek(0, 5); got != "hello" {
		t.Fatalf("peek 5: %q", got)
	}
	if got := peek(6, 100); got != "world" {
		t.Fatalf("peek past 6: %q", got)
	}
	if got, _ := recv(t, cf, buf); got != "hello world" {
		t.Fatalf("the read after the peeks: %q", got)
	}
	s.unref()
	if r := c.PeekAt(0, buf, 10); r != 0 {
		t.Fatalf("peek after the peer closed: %d, want 0 (end of file)", int64(r))
	}
}
