package ninep

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/hugelgupf/p9/fsimpl/localfs"
	"github.com/hugelgupf/p9/p9"
	"golang.org/x/sys/unix"
)

// The client's messages against a reference server: u-root's p9 library
// (github.com/hugelgupf/p9) serving a temporary directory over a pipe,
// its localfs doing to the host directory what QEMU's virtio-9p local
// backend would.

type session struct {
	t    *testing.T
	conn net.Conn
	c    Conn
	buf  [8192]byte
	ans  [8192]byte
	dir  string
}

func newSession(t *testing.T) *session {
	dir := t.TempDir()
	client, server := net.Pipe()
	srv := p9.NewServer(statfsAttacher{localfs.Attacher(dir), dir})
	go srv.Handle(server, server)
	t.Cleanup(func() { client.Close() })
	s := &session{t: t, conn: client, dir: dir}
	n := EncVersion(s.buf[:], uint32(len(s.buf)))
	d, e := s.send(n, Tversion, NoTag)
	if e != 0 {
		t.Fatalf("Tversion: errno %d", e)
	}
	if e := s.c.Versioned(&d, uint32(len(s.buf))); e != 0 {
		t.Fatalf("Rversion refused: msize %d", s.c.Msize)
	}
	root, _ := s.c.NewFid()
	d, e = s.rpc(Tattach, func(b []byte, tag uint16) int { return EncAttach(b, tag, root, nil, uint32(os.Getuid())) })
	if e != 0 {
		t.Fatalf("Tattach: errno %d", e)
	}
	if q := DecQid(&d); q.Type&QTDir == 0 || d.Bad {
		t.Fatalf("attach qid %+v bad=%v", q, d.Bad)
	}
	s.c.Root = root
	return s
}

// statfsAttacher gives localfs (which answers ENOSYS to Tstatfs) a
// statfs with known numbers on its root, so the test checks every
// field's place. (Only the root: localfs's rename and link take the
// other directory as its own type.)
type statfsAttacher struct {
	p9.Attacher
	dir string
}

type statfsFile struct {
	p9.File
	dir string
}

var testStatfs = p9.FSStat{Type: 0x01021997, BlockSize: 4096, Blocks: 1000, BlocksFree: 600,
	BlocksAvailable: 500, Files: 300, FilesFree: 200, FSID: 0x1234, NameLength: 255}

func (a statfsAttacher) Attach() (p9.File, error) {
	f, err := a.Attacher.Attach()
	return statfsFile{f, a.dir}, err
}

// UnlinkAt is localfs's ENOSYS too: the root does it as QEMU's local
// backend does (unlinkat(2) with the client's flags).
func (f statfsFile) UnlinkAt(name string, flags uint32) error {
	return unix.Unlinkat(unix.AT_FDCWD, filepath.Join(f.dir, name), int(flags))
}

func (f statfsFile) StatFS() (p9.FSStat, error) { return testStatfs, nil }

// send writes the n-byte request in buf and reads its answer.
func (s *session) send(n int, typ uint8, tag uint16) (Dec, uint32) {
	s.t.Helper()
	if n == 0 {
		s.t.Fatalf("type %d: encoder overflowed", typ)
	}
	if _, err := s.conn.Write(s.buf[:n]); err != nil {
		s.t.Fatal(err)
	}
	if _, err := io.ReadFull(s.conn, s.ans[:4]); err != nil {
		s.t.Fatal(err)
	}
	size := Size(s.ans[:])
	if size > uint32(len(s.ans)) || size < HeaderLen {
		s.t.Fatalf("answer size %d", size)
	}
	if _, err := io.ReadFull(s.conn, s.ans[4:size]); err != nil {
		s.t.Fatal(err)
	}
	return Answer(s.ans[:size], typ, tag)
}

func (s *session) rpc(typ uint8, enc func(b []byte, tag uint16) int) (Dec, uint32) {
	s.t.Helper()
	tag, ok := s.c.NewTag()
	if !ok {
		s.t.Fatal("out of tags")
	}
	defer s.c.FreeTag(tag)
	return s.send(enc(s.buf[:], tag), typ, tag)
}

func (s *session) must(typ uint8, enc func(b []byte, tag uint16) int) Dec {
	s.t.Helper()
	d, e := s.rpc(typ, enc)
	if e != 0 {
		s.t.Fatalf("type %d: errno %d", typ, e)
	}
	return d
}

// walk makes a new fid for name under dir (a clone when name is "").
func (s *session) walk(dir uint32, name string) (uint32, uint32) {
	s.t.Helper()
	fid, _ := s.c.NewFid()
	d, e := s.rpc(Twalk, func(b []byte, tag uint16) int { return EncWalk1(b, tag, dir, fid, []byte(name)) })
	if e != 0 {
		s.c.FreeFid(fid)
		return 0, e
	}
	if n, _ := DecWalk(&d); d.Bad || (name != "" && n != 1) {
		s.t.Fatalf("walk %q: %d qids", name, n)
	}
	return fid, 0
}

func (s *session) clunk(fid uint32) {
	s.t.Helper()
	s.must(Tclunk, func(b []byte, tag uint16) int { return EncFid(b, Tclunk, tag, fid) })
	s.c.FreeFid(fid)
}

func TestClientAgainstP9Server(t *testing.T) {
	s := newSession(t)
	root := s.c.Root
	if err := os.WriteFile(filepath.Join(s.dir, "hello"), []byte("hello, 9p\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// A missing name is ENOENT, and the fid was not made.
	if _, e := s.walk(root, "nothere"); e != 2 {
		t.Fatalf("walk to a missing name: errno %d, want ENOENT", e)
	}

	// getattr, lopen, read.
	f, e := s.walk(root, "hello")
	if e != 0 {
		t.Fatalf("walk hello: %d", e)
	}
	d := s.must(Tgetattr, func(b []byte, tag uint16) int { return EncGetattr(b, tag, f, GetattrBasic) })
	var a Attr
	DecGetattr(&d, &a)
	if d.Bad || a.Size != 10 || a.Mode&0o777 != 0o644 || a.Mode&0o170000 != 0o100000 || a.Nlink != 1 {
		t.Fatalf("getattr: %+v bad=%v", a, d.Bad)
	}
	d = s.must(Tlopen, func(b []byte, tag uint16) int { return EncLopen(b, tag, f, 0) })
	if q, _ := DecOpen(&d); d.Bad || q.Path != a.Qid.Path {
		t.Fatalf("lopen qid %+v, getattr's %+v", q, a.Qid)
	}
	d = s.must(Tread, func(b []byte, tag uint16) int { return EncRead(b, tag, f, 7, 100) })
	if got := DecData(&d); d.Bad || string(got) != "9p\n" {
		t.Fatalf("read at 7: %q", got)
	}
	s.clunk(f)

	// lcreate and write (header and data in one buffer here; the
	// virtio transport chains them).
	f, _ = s.walk(root, "")
	d = s.must(Tlcreate, func(b []byte, tag uint16) int {
		return EncLcreate(b, tag, f, []byte("new"), 0o2 /* O_RDWR */, 0o640, uint32(os.Getgid()))
	})
	DecOpen(&d)
	d = s.must(Twrite, func(b []byte, tag uint16) int {
		n := EncWriteHeader(b, tag, f, 0, 5)
		return n + copy(b[n:], "abcde")
	})
	if n := DecCount(&d); n != 5 {
		t.Fatalf("wrote %d", n)
	}
	s.must(Tfsync, func(b []byte, tag uint16) int { return EncFsync(b, tag, f, false) })
	s.clunk(f)
	if got, _ := os.ReadFile(filepath.Join(s.dir, "new")); string(got) != "abcde" {
		t.Fatalf("host sees %q", got)
	}
	// Creating it again is EEXIST: why a Tlcreate is never sent twice.
	f, _ = s.walk(root, "")
	if _, e := s.rpc(Tlcreate, func(b []byte, tag uint16) int {
		return EncLcreate(b, tag, f, []byte("new"), 0o2|0o100|0o200 /* O_CREAT|O_EXCL */, 0o640, 0)
	}); e != 17 {
		t.Fatalf("second lcreate: errno %d, want EEXIST", e)
	}
	s.clunk(f)

	// setattr: truncate. (The reference server's localfs does only
	// the size and answers ENOSYS to a mode; QEMU's local backend does
	// chmod, chown and utimes too.)
	f, _ = s.walk(root, "new")
	s.must(Tsetattr, func(b []byte, tag uint16) int {
		return EncSetattr(b, tag, f, &SetAttr{Valid: SetattrSize, Size: 2})
	})
	if _, e := s.rpc(Tsetattr, func(b []byte, tag uint16) int {
		return EncSetattr(b, tag, f, &SetAttr{Valid: SetattrMode, Mode: 0o600})
	}); e != 0 && e != 38 {
		t.Fatalf("chmod: errno %d", e)
	}
	s.clunk(f)
	if fi, err := os.Stat(filepath.Join(s.dir, "new")); err != nil || fi.Size() != 2 {
		t.Fatalf("after setattr host sees %v %v", fi, err)
	}

	// mkdir, symlink, readlink, renameat, link.
	d = s.must(Tmkdir, func(b []byte, tag uint16) int { return EncMkdir(b, tag, root, []byte("d"), 0o755, 0) })
	// (localfs answers a blank qid; QEMU's gives the directory's.)
	if DecQid(&d); d.Bad || d.Left() != 0 {
		t.Fatal("malformed Rmkdir")
	}
	s.must(Tsymlink, func(b []byte, tag uint16) int {
		return EncSymlink(b, tag, root, []byte("ln"), []byte("hello"), 0)
	})
	f, _ = s.walk(root, "ln")
	d = s.must(Treadlink, func(b []byte, tag uint16) int { return EncFid(b, Treadlink, tag, f) })
	if got := DecReadlink(&d); string(got) != "hello" {
		t.Fatalf("readlink %q", got)
	}
	s.clunk(f)
	dir, _ := s.walk(root, "d")
	s.must(Trenameat, func(b []byte, tag uint16) int {
		return EncRenameat(b, tag, root, []byte("new"), dir, []byte("moved"))
	})
	if _, err := os.Stat(filepath.Join(s.dir, "d", "moved")); err != nil {
		t.Fatalf("renameat: %v", err)
	}
	f, _ = s.walk(root, "hello")
	if _, e := s.rpc(Tlink, func(b []byte, tag uint16) int { return EncLink(b, tag, dir, f, []byte("hard")) }); e != 0 && e != 95 && e != 38 {
		t.Fatalf("link: errno %d", e) // localfs may not do hard links (EOPNOTSUPP/ENOSYS)
	}
	s.clunk(f)

	// readdir of the root: every name, offsets continuing.
	f, _ = s.walk(root, "")
	s.must(Tlopen, func(b []byte, tag uint16) int { return EncLopen(b, tag, f, 0o200000 /* O_DIRECTORY */) })
	var names []string
	var off uint64
	for {
		d = s.must(Treaddir, func(b []byte, tag uint16) int { return EncReaddir(b, tag, f, off, 100) })
		data := Dec{B: DecData(&d)}
		n := 0
		var de Dirent
		for NextDirent(&data, &de) {
			names = append(names, string(de.Name))
			off = de.Offset
			n++
		}
		if data.Bad {
			t.Fatal("malformed Rreaddir")
		}
		if n == 0 {
			break
		}
	}
	s.clunk(f)
	sort.Strings(names)
	want := map[string]bool{"hello": true, "ln": true, "d": true}
	for _, n := range names {
		delete(want, n)
	}
	if len(want) != 0 {
		t.Fatalf("readdir: %v, missing %v", names, want)
	}

	// statfs.
	d = s.must(Tstatfs, func(b []byte, tag uint16) int { return EncFid(b, Tstatfs, tag, root) })
	var st Statfs
	DecStatfs(&d, &st)
	if want := (Statfs{Type: 0x01021997, Bsize: 4096, Blocks: 1000, Bfree: 600, Bavail: 500, Files: 300,
		Free: 200, Fsid: 0x1234, Namelen: 255}); d.Bad || st != want {
		t.Fatalf("statfs %+v", st)
	}

	// unlinkat (from the root: the only fid the test server unlinks in):
	// a non-empty directory is ENOTEMPTY, then empty it.
	if _, e := s.rpc(Tunlinkat, func(b []byte, tag uint16) int { return EncUnlinkat(b, tag, root, []byte("d"), UnlinkDir) }); e != 39 && e != 17 {
		// (p9's server turns ENOTEMPTY into EEXIST: Go's os.IsExist
		// counts it as one.)
		t.Fatalf("rmdir of a full directory: errno %d, want ENOTEMPTY", e)
	}
	os.Remove(filepath.Join(s.dir, "d", "hard"))
	os.Remove(filepath.Join(s.dir, "d", "moved"))
	s.clunk(dir)
	s.must(Tunlinkat, func(b []byte, tag uint16) int { return EncUnlinkat(b, tag, root, []byte("d"), UnlinkDir) })
	s.must(Tunlinkat, func(b []byte, tag uint16) int { return EncUnlinkat(b, tag, root, []byte("ln"), 0) })
	if _, err := os.Lstat(filepath.Join(s.dir, "d")); !os.IsNotExist(err) {
		t.Fatalf("d still there: %v", err)
	}

	// A file the host changes is seen at once: nothing is cached.
	os.WriteFile(filepath.Join(s.dir, "hello"), []byte("changed"), 0o644)
	f, _ = s.walk(root, "hello")
	s.must(Tlopen, func(b []byte, tag uint16) int { return EncLopen(b, tag, f, 0) })
	d = s.must(Tread, func(b []byte, tag uint16) int { return EncRead(b, tag, f, 0, 100) })
	if got := DecData(&d); string(got) != "changed" {
		t.Fatalf("read after the host's change: %q", got)
	}
	s.clunk(f)
	if n := s.c.FidsInUse(); n != 1 {
		t.Fatalf("%d fids in use at the end, want the root's", n)
	}
}

func TestEncoderOverflowAndShortAnswers(t *testing.T) {
	var small [10]byte
	if n := EncWalk1(small[:], 1, 1, 2, []byte("a-long-name")); n != 0 {
		t.Fatalf("overflowing walk returned %d", n)
	}
	var b [64]byte
	n := EncVersion(b[:], 8192)
	// A truncated answer is EIO, never a panic.
	for i := 0; i < n; i++ {
		if _, e := Answer(b[:i], Tversion, NoTag); e != eio {
			t.Fatalf("answer cut at %d: errno %d", i, e)
		}
	}
	// An Rlerror is its errno.
	e := Enc{B: b[:]}
	e.Begin(Rlerror, 3)
	e.U32(13)
	m := e.Finish(0)
	if _, errno := Answer(b[:m], Tgetattr, 3); errno != 13 {
		t.Fatalf("Rlerror: errno %d", errno)
	}
	// The wrong tag is EIO.
	if _, errno := Answer(b[:m], Tgetattr, 4); errno != eio {
		t.Fatalf("wrong tag: errno %d", errno)
	}
	var d Dec
	var a Attr
	DecGetattr(&d, &a)
	if !d.Bad {
		t.Fatal("short getattr not Bad")
	}
}

func TestTables(t *testing.T) {
	var c Conn
	for i := 0; i < MaxTags; i++ {
		if tag, ok := c.NewTag(); !ok || int(tag) != i {
			t.Fatalf("tag %d: %d %v", i, tag, ok)
		}
	}
	if _, ok := c.NewTag(); ok {
		t.Fatal("tag past MaxTags")
	}
	c.FreeTag(17)
	if tag, _ := c.NewTag(); tag != 17 {
		t.Fatalf("freed tag not reused: %d", tag)
	}
	for i := 0; i < MaxFids; i++ {
		c.NewFid()
	}
	if _, ok := c.NewFid(); ok || c.FidsInUse() != MaxFids {
		t.Fatal("fid past MaxFids")
	}
}
