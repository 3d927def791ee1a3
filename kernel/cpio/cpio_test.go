package cpio

import (
	"bytes"
	"testing"

	ucpio "github.com/u-root/u-root/pkg/cpio"
)

func archive(t testing.TB, recs ...ucpio.Record) []byte {
	var buf bytes.Buffer
	w := ucpio.Newc.Writer(&buf)
	if err := ucpio.WriteRecords(w, recs); err != nil {
		t.Fatal(err)
	}
	if err := ucpio.WriteTrailer(w); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTripWithURoot(t *testing.T) {
	recs := []ucpio.Record{
		ucpio.Directory("etc", 0o755),
		ucpio.StaticFile("etc/hosts", "127.0.0.1 localhost\n", 0o644),
		ucpio.StaticFile("init", string(make([]byte, 5001)), 0o755),
		ucpio.Symlink("bin", "etc"),
		ucpio.StaticFile("empty", "", 0o600),
	}
	a := archive(t, recs...)
	off := 0
	for i, want := range recs {
		e, next, err := Next(a, off)
		if err != OK {
			t.Fatalf("record %d: %v", i, err)
		}
		if string(e.Name) != want.Name || uint64(e.Mode) != want.Mode || uint64(len(e.Data)) != want.FileSize {
			t.Errorf("record %d: %q %o %d, want %q %o %d", i, e.Name, e.Mode, len(e.Data), want.Name, want.Mode, want.FileSize)
		}
		if want.ReaderAt != nil {
			data := make([]byte, want.FileSize)
			want.ReadAt(data, 0)
			if !bytes.Equal(data, e.Data) {
				t.Errorf("record %d: data differs", i)
			}
		}
		off = next
	}
	if _, _, err := Next(a, off); err != ErrEnd {
		t.Errorf("after the last record: %v, want ErrEnd", err)
	}
	for _, p := range []string{"/etc/hosts", "etc/hosts", "./etc/hosts"} {
		if e, err := Lookup(a, p); err != OK || string(e.Data) != "127.0.0.1 localhost\n" {
			t.Errorf("Lookup(%q): %v", p, err)
		}
	}
	if _, err := Lookup(a, "/nope"); err != ErrNotFound {
		t.Errorf("Lookup missing: %v", err)
	}
	if e, _ := Lookup(a, "bin"); e.Mode&S_IFMT != S_IFLNK || string(e.Data) != "etc" {
		t.Errorf("symlink: %o %q", e.Mode, e.Data)
	}
}

// The Linux initramfs may be several archives back to back, padded with
// zeros; later entries replace earlier ones.
func TestConcatenated(t *testing.T) {
	a := archive(t, ucpio.StaticFile("x", "one", 0o644))
	a = append(a, make([]byte, 512)...)
	a = append(a, archive(t, ucpio.StaticFile("x", "two", 0o644), ucpio.StaticFile("y", "3", 0o644))...)
	if e, err := Lookup(a, "x"); err != OK || string(e.Data) != "two" {
		t.Errorf("x = %q, %v", e.Data, err)
	}
	if _, err := Lookup(a, "y"); err != OK {
		t.Errorf("y: %v", err)
	}
}

func TestMalformed(t *testing.T) {
	a := archive(t, ucpio.StaticFile("init", "data", 0o755))
	for n := 0; n < len(a); n++ {
		walkAll(a[:n])
	}
	bad := append([]byte{}, a...)
	copy(bad[6:], "zzzzzzzz")
	if _, _, err := Next(bad, 0); err != ErrHex {
		t.Errorf("bad hex: %v", err)
	}
	huge := append([]byte{}, a...)
	copy(huge[54:], "FFFFFFFF") // filesize
	if _, _, err := Next(huge, 0); err != ErrTruncated {
		t.Errorf("huge filesize: %v", err)
	}
	if _, _, err := Next([]byte("070707 old binary"), 0); err == OK {
		t.Error("old format accepted")
	}
}

func walkAll(a []byte) {
	for off := 0; ; {
		_, next, err := Next(a, off)
		if err != OK || next <= off {
			return
		}
		off = next
	}
}

func FuzzNext(f *testing.F) {
	f.Add(archive(f, ucpio.StaticFile("init", "data", 0o755)))
	f.Fuzz(func(t *testing.T, a []byte) { walkAll(a); Lookup(a, "init") })
}
