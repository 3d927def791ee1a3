//go:build !arm64

package usermem

import (
	"testing"

	"github.com/gometal/gometal/kernel/mm"

	"golang.org/x/sys/unix"
)

// CopyInString reads a page at a time: a string across a page boundary
// whole, the NUL ending it, ENAMETOOLONG for one that does not fit, and
// EFAULT where the app has no memory; and it leaves no core pinned.
func TestCopyInStringAcrossPages(t *testing.T) {
	base := HostReset(64, 2)
	at := base + mm.PageSize - 3
	if !CopyOut(at, []byte("abcdef\x00")) {
		t.Fatal("CopyOut")
	}
	buf := make([]byte, 16)
	if n, e := CopyInString(buf, at); e != 0 || string(buf[:n]) != "abcdef" {
		t.Fatalf("CopyInString = %q, %v; want \"abcdef\", 0", buf[:n], e)
	}
	if _, e := CopyInString(buf[:6], at); e != unix.ENAMETOOLONG {
		t.Fatalf("a string of 6 in a buffer of 6: %v, want ENAMETOOLONG", e)
	}
	if !CopyOut(base+2*mm.PageSize-1, []byte("x")) {
		t.Fatal("CopyOut")
	}
	if _, e := CopyInString(buf, base+2*mm.PageSize-1); e != unix.EFAULT {
		t.Fatalf("a string running off the mapping: %v, want EFAULT", e)
	}
	if !Cur().Pin(0) {
		t.Fatal("a copy left new pins off")
	}
	Cur().Unpin(0)
}
