// Package treesum describes a directory tree in lines a test compares:
// each entry's path, type and permissions, owner, link count, and for a
// file its size, modification time and SHA-256, for a symlink its
// target. The guest prints it for a mounted disk and the host test
// computes it for the directory the disk was made from (or Linux prints
// it for the same disk), so one function says what "the same tree" is.
package treesum

import (
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Lines walks root in lexical order and returns one line an entry,
// paths relative to root; skip names entries (relative paths) left out
// with what is under them (lost+found, which mke2fs makes).
func Lines(root string, skip ...string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil // the root's link count counts what skip leaves out
		}
		for _, s := range skip {
			if rel == s {
				return filepath.SkipDir
			}
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			return err
		}
		line := fmt.Sprintf("%s %o uid=%d gid=%d", rel, st.Mode, st.Uid, st.Gid)
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFDIR:
			line += fmt.Sprintf(" nlink=%d", st.Nlink)
		case syscall.S_IFLNK:
			t, err := os.Readlink(p)
			if err != nil {
				return err
			}
			line += " -> " + t
		case syscall.S_IFREG:
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			h := sha256.New()
			_, err = io.Copy(h, f)
			f.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			line += fmt.Sprintf(" nlink=%d size=%d mtime=%d sha256=%x", st.Nlink, st.Size, st.Mtim.Sec, h.Sum(nil)[:8])
		}
		out = append(out, line)
		return nil
	})
	return out, err
}
