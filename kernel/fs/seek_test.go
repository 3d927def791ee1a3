package fs

import (
	"testing"

	"github.com/gometal/gometal/kernel/vfs"
	"golang.org/x/sys/unix"
)

// TestSeekDataHole checks lseek's SEEK_DATA and SEEK_HOLE against
// Linux's generic_file_llseek_size, which a file system with no map of
// its holes answers with: data where asked, the hole at the end, ENXIO
// at or past the end.
func TestSeekDataHole(t *testing.T) {
	const size = 10000
	for _, c := range []struct {
		whence int
		off    int64
		want   uint64
	}{
		{unix.SEEK_DATA, 0, 0},
		{unix.SEEK_DATA, 4096, 4096},
		{unix.SEEK_DATA, size - 1, size - 1},
		{unix.SEEK_DATA, size, vfs.Err(unix.ENXIO)},
		{unix.SEEK_DATA, -1, vfs.Err(unix.ENXIO)},
		{unix.SEEK_HOLE, 0, size},
		{unix.SEEK_HOLE, size - 1, size},
		{unix.SEEK_HOLE, size, vfs.Err(unix.ENXIO)},
		{unix.SEEK_HOLE, 1 << 40, vfs.Err(unix.ENXIO)},
		{5, 0, vfs.Err(unix.EINVAL)},
	} {
		f := vfs.File{Pos: 77}
		got := SeekFile(&f, c.off, c.whence, size)
		if got != c.want {
			t.Errorf("lseek(%d, whence %d) on a %d-byte file = %d, want %d", c.off, c.whence, size, int64(got), int64(c.want))
		}
		if vfs.IsErr(got) && f.Pos != 77 {
			t.Errorf("lseek(%d, whence %d) failed but moved the offset to %d", c.off, c.whence, f.Pos)
		}
		if !vfs.IsErr(got) && f.Pos != int64(got) {
			t.Errorf("lseek(%d, whence %d) returned %d but the offset is %d", c.off, c.whence, got, f.Pos)
		}
	}
	// An empty file has no data anywhere.
	f := vfs.File{}
	if got := SeekFile(&f, 0, unix.SEEK_DATA, 0); got != vfs.Err(unix.ENXIO) {
		t.Errorf("SEEK_DATA 0 on an empty file = %d, want ENXIO", int64(got))
	}
}
