package linker

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	kfs "github.com/gometal/gometal/kernel/fs"
	"github.com/u-root/u-root/pkg/cpio"
)

// Initramfs describes the archive the kernel unpacks into its file
// system at boot (files' bytes stay in the archive until written): the
// app as /init and the /.gometal settings the kernel reads (argv and envp as NUL-terminated strings, the working directory).
type Initramfs struct {
	App  string   // host path of the static linux/arm64 ELF
	Argv []string // argv, argv[0] included
	Env  []string // "K=V"
	Cwd  string   // absolute guest working directory ("" = "/")
	// Trees are host directories copied in at the same guest path (the
	// package directory for go test -exec).
	Trees []Tree
	// Files are single host files copied in (Guest path = Host path when
	// Guest is empty).
	Files []Tree
	// Base is another initramfs's records (u-root's, with its own
	// /init) laid under these: the skeleton's files win over Base's of
	// the same name. With a Base, App is optional and goes to AppPath
	// (a guest path, e.g. /bin/hello) instead of /init.
	Base    []cpio.Record
	AppPath string
}

// Tree copies the host directory Host to the guest path Guest, leaving
// out version-control directories and, when MaxFile > 0, files larger
// than MaxFile bytes.
type Tree struct {
	Host, Guest string
	MaxFile     int64
}

// TreeSize is what t would carry: the bytes of its files, and how many
// entries (files, directories, symlinks) it has.
func TreeSize(t Tree) (bytes int64, entries int, err error) {
	err = walkTree(t, func(p string, d fs.DirEntry, st fs.FileInfo) error {
		entries++
		if st.Mode().IsRegular() {
			bytes += st.Size()
		}
		return nil
	})
	return bytes, entries, err
}

// walkTree calls f for each entry of t that is carried, in a stable
// order (WalkDir's lexical one).
func walkTree(t Tree, f func(p string, d fs.DirEntry, st fs.FileInfo) error) error {
	return filepath.WalkDir(t.Host, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != t.Host && vcsDirs[d.Name()] {
			return filepath.SkipDir
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if t.MaxFile > 0 && st.Mode().IsRegular() && st.Size() > t.MaxFile {
			return nil
		}
		return f(p, d, st)
	})
}

// vcsDirs are left out of a carried tree.
var vcsDirs = map[string]bool{".git": true, ".hg": true, ".svn": true}

func nulJoin(ss []string) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s)
		b.WriteByte(0)
	}
	return b.String()
}

// Bytes returns the cpio newc archive.
func (r *Initramfs) Bytes() ([]byte, error) {
	var app []byte
	if r.App != "" || r.Base == nil {
		var err error
		if app, err = os.ReadFile(r.App); err != nil {
			return nil, err
		}
	}
	for _, s := range append(append([]string{}, r.Argv...), r.Env...) {
		if strings.IndexByte(s, 0) >= 0 {
			return nil, fmt.Errorf("argument or environment entry contains a NUL byte: %q", s)
		}
	}
	cwd := r.Cwd
	if cwd == "" {
		cwd = "/"
	}
	if !path.IsAbs(cwd) {
		return nil, fmt.Errorf("working directory %q is not absolute", cwd)
	}
	var recs []cpio.Record
	if r.Base == nil {
		recs = append(recs, cpio.StaticRecord(app, cpio.Info{Name: "init", Mode: cpio.S_IFREG | 0o755}))
	}
	recs = append(recs,
		cpio.Directory(".gometal", 0o755),
		cpio.StaticFile(".gometal/argv", nulJoin(r.Argv), 0o644),
		cpio.StaticFile(".gometal/envp", nulJoin(r.Env), 0o644),
		cpio.StaticFile(".gometal/cwd", cwd, 0o644),
	)
	// The skeleton first, so that directories it has (/tmp) are there
	// before anything is put below them.
	recs = append(recs, etcRecords()...)
	recs = append(recs, devRecords()...)
	if cwd != "/" {
		recs = append(recs, cpio.Directory(strings.TrimPrefix(cwd, "/"), 0o755))
	}
	recs = append(recs, baseRecords(r.Base, recs)...)
	if r.Base != nil && app != nil {
		if !path.IsAbs(r.AppPath) {
			return nil, fmt.Errorf("the app's guest path %q is not absolute", r.AppPath)
		}
		recs = append(recs, cpio.StaticRecord(app, cpio.Info{Name: strings.TrimPrefix(r.AppPath, "/"), Mode: cpio.S_IFREG | 0o755}))
	}
	for _, f := range r.Files {
		data, err := os.ReadFile(f.Host)
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(f.Host)
		if err != nil {
			return nil, err
		}
		g := f.Guest
		if g == "" {
			g = f.Host
		}
		recs = append(recs, cpio.StaticRecord(data, cpio.Info{Name: strings.TrimPrefix(g, "/"),
			Mode: cpio.S_IFREG | uint64(st.Mode().Perm()), MTime: uint64(st.ModTime().Unix())}))
	}
	for _, t := range r.Trees {
		tr, err := treeRecords(t)
		if err != nil {
			return nil, err
		}
		recs = append(recs, tr...)
	}
	for i := range recs {
		recs[i].Info.Ino = uint64(i + 2) // distinct inodes for os.SameFile
	}
	if len(recs) > MaxInitramfsEntries {
		return nil, fmt.Errorf("the initramfs would hold %d files, more than the %d the kernel's file table takes", len(recs), MaxInitramfsEntries)
	}
	return newcArchive(recs)
}

// baseRecords are the records of base that ours (the skeleton and
// /.gometal) do not replace: a directory both have is written once
// (newcArchive keeps the first), a file or node of ours wins.
func baseRecords(base, ours []cpio.Record) []cpio.Record {
	have := map[string]bool{}
	for _, r := range ours {
		have[r.Name] = true
	}
	var out []cpio.Record
	for _, r := range base {
		name := strings.TrimPrefix(path.Clean("/"+r.Name), "/")
		if name == "" || have[name] {
			continue
		}
		r.Name = name
		out = append(out, r)
	}
	return out
}

// MaxInitramfsEntries is how many entries an initramfs may have: the
// kernel's inode table (kernel/fs.MaxInodes) less room for what the app
// makes.
const MaxInitramfsEntries = kfs.MaxInodes - 1024

// newcArchive writes recs (and any parent directories they lack) as a
// cpio newc archive with its trailer.
func newcArchive(recs []cpio.Record) ([]byte, error) {
	// A directory named twice (the working directory /tmp, say), or
	// named after a record below it made it (WriteRecordsAndDirs writes
	// a record's missing parents: u-root's usr/lib before a test tree's
	// usr), is written once.
	dirs := map[string]bool{}
	var uniq []cpio.Record
	for _, r := range recs {
		if r.Mode&cpio.S_IFMT == cpio.S_IFDIR {
			if dirs[r.Name] {
				continue
			}
			dirs[r.Name] = true
		}
		for d := path.Dir(r.Name); d != "." && d != "/" && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
		uniq = append(uniq, r)
	}
	var buf bytes.Buffer
	w := cpio.Newc.Writer(&buf)
	if err := cpio.WriteRecordsAndDirs(w, uniq); err != nil {
		return nil, err
	}
	if err := cpio.WriteTrailer(w); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// treeRecords walks a host tree in a stable order.
func treeRecords(t Tree) ([]cpio.Record, error) {
	var recs []cpio.Record
	err := walkTree(t, func(p string, d fs.DirEntry, st fs.FileInfo) error {
		rel, _ := filepath.Rel(t.Host, p)
		name := strings.TrimPrefix(path.Join(t.Guest, filepath.ToSlash(rel)), "/")
		perm := uint64(st.Mode().Perm())
		switch {
		case st.IsDir():
			recs = append(recs, cpio.Directory(name, perm))
		case st.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			recs = append(recs, cpio.Symlink(name, target))
		case st.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			recs = append(recs, cpio.StaticRecord(data, cpio.Info{Name: name, Mode: cpio.S_IFREG | perm, MTime: uint64(st.ModTime().Unix())}))
		}
		return nil
	})
	return recs, err
}

// etcRecords are the few /etc files Go's standard library reads: the
// resolver finds localhost in /etc/hosts.
func etcRecords() []cpio.Record {
	return []cpio.Record{
		cpio.Directory("etc", 0o755),
		cpio.StaticFile("etc/hosts", "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n", 0o644),
		cpio.StaticFile("etc/nsswitch.conf", "hosts: files dns\n", 0o644),
		// The app runs as root (uid and gid 0); os/user and friends look
		// the names up here, as on a minimal Linux root.
		cpio.StaticFile("etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n", 0o644),
		cpio.StaticFile("etc/group", "root:x:0:\nnogroup:x:65534:\n", 0o644),
	}
}

// devRecords are the device nodes a Linux program expects in /dev (the
// kernel opens them by number: kernel/linux/chardev_arm64.go; /dev/kmsg
// is the kernel log, syslog_arm64.go), the
// links into /proc that udev or a distribution's init makes (/dev/fd,
// /dev/stdin, /dev/stdout, /dev/stderr; the kernel mounts /proc at
// boot), and /tmp.
func devRecords() []cpio.Record {
	return []cpio.Record{
		cpio.Directory("dev", 0o755),
		cpio.CharDev("dev/console", 0o600, 5, 1),
		cpio.CharDev("dev/tty", 0o666, 5, 0),
		cpio.CharDev("dev/ptmx", 0o666, 5, 2),
		cpio.Directory("dev/pts", 0o755),
		cpio.CharDev("dev/null", 0o666, 1, 3),
		cpio.CharDev("dev/zero", 0o666, 1, 5),
		cpio.CharDev("dev/full", 0o666, 1, 7),
		cpio.CharDev("dev/random", 0o666, 1, 8),
		cpio.CharDev("dev/urandom", 0o666, 1, 9),
		cpio.CharDev("dev/kmsg", 0o644, 1, 11),
		cpio.Symlink("dev/fd", "/proc/self/fd"),
		cpio.Symlink("dev/stdin", "/proc/self/fd/0"),
		cpio.Symlink("dev/stdout", "/proc/self/fd/1"),
		cpio.Symlink("dev/stderr", "/proc/self/fd/2"),
		cpio.Directory("tmp", 0o1777),
	}
}
