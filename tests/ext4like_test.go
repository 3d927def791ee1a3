package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ext4 at its edges, like Linux: tests/progs/ext4like mounts a fresh
// ext4 of 1 KiB blocks (/dev/vda) and the same attached read-only
// (/dev/vdb) and prints what each edge answers: a read-only device
// mounted read-write (EACCES), a read-only mount written (EROFS), the
// errors of names and directories, link counts, st_blocks of a sparse
// file, times to the nanosecond and before 1970, a byte at 5 GiB, the
// file-size limit of 1 KiB blocks (EFBIG, a seek past it EINVAL), a full
// disk, remounting read-only and back, umount of a busy volume. Its
// lines must be tests/testdata/ext4like-linux.txt's, the same program's
// as init on Debian's Linux 6.1 (`gometal linux -disk a.img -disk
// b.img:ro ./tests/progs/ext4like`, images made as here); the volume
// is e2fsck-clean after.
func TestExt4LikeLinux(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.img"), filepath.Join(dir, "b.img")
	for _, img := range []string{a, b} {
		if out, err := exec.Command(tool(t, "mke2fs"), "-q", "-F", "-t", "ext4", "-b", "1024", img, "16M").CombinedOutput(); err != nil {
			t.Fatalf("mke2fs: %v\n%s", err, out)
		}
	}
	r := gometal(t, "run", "-disk", a, "-disk", b+":ro", "./tests/progs/ext4like")
	wantB, err := os.ReadFile("testdata/ext4like-linux.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := string(wantB)
	var got []string
	for _, l := range strings.Split(r.out, "\n") {
		if l = strings.TrimRight(l, "\r"); strings.HasPrefix(l, "ext4like: ") {
			got = append(got, l)
		}
	}
	if r.status != 0 || strings.Join(got, "\n")+"\n" != want {
		t.Errorf("exit status %d; the lines differ from Linux's:\n%s", r.status, lineDiff(strings.Split(strings.TrimSuffix(want, "\n"), "\n"), got))
	}
	e2fsckClean(t, a, "after the edges")
}
