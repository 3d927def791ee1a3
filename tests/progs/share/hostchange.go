//go:build linux && arm64

package main

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/gometal/gometal/tests/progs/internal/guest"
)

// hostChange reads the share at /a while the "host" changes it: the same
// host directory is shared a second time at /b, and what is written
// through /b reaches the host's directory without passing /a's tree or
// page cache, as a host program's writes do. After a second (the period
// of the answers a share's tree keeps: docs/STORAGE.md), /a shows the
// host's file contents, names made and names removed; a file kept open
// across the change reads the new bytes too (as NFS drops an open file's
// cached pages when its attributes, asked again, changed), and reopened
// reads them again; an open file the host replaced (a new file renamed
// over its name) reads the new file's bytes (gometal holds no fid per
// open file: docs/STORAGE.md).
func hostChange() {
	say := func(what string, v ...any) { fmt.Println(append([]any{"share: host " + what + ":"}, v...)...) }
	names := func() []string {
		ents, err := os.ReadDir("/a")
		guest.Check("readdir /a", err == nil, err)
		var ns []string
		for _, e := range ents {
			ns = append(ns, e.Name())
		}
		return ns
	}
	b, err := os.ReadFile("/a/f")
	say("f before", string(b), err)
	say("names before", names())
	target, err := os.Readlink("/a/link")
	say("link before", target, err)
	kept, err := os.Open("/a/kept")
	guest.Check("open /a/kept", err == nil, err)
	var buf [16]byte
	n, _ := kept.ReadAt(buf[:], 0)
	say("kept before", string(buf[:n]))
	swapped, err := os.Open("/a/swapped")
	guest.Check("open /a/swapped", err == nil, err)
	n, _ = swapped.ReadAt(buf[:], 0)
	say("swapped before", string(buf[:n]))
	// The host's changes, through the second mount.
	guest.Check("write /b/f", os.WriteFile("/b/f", []byte("changed by the host, longer"), 0o644) == nil)
	guest.Check("write /b/kept", os.WriteFile("/b/kept", []byte("new kept"), 0o644) == nil)
	guest.Check("create /b/new", os.WriteFile("/b/new", []byte("new"), 0o644) == nil)
	guest.Check("remove /b/old", os.Remove("/b/old") == nil)
	guest.Check("mkdir /b/dir", os.Mkdir("/b/dir", 0o755) == nil)
	guest.Check("remove /b/link", os.Remove("/b/link") == nil)
	guest.Check("symlink /b/link", os.Symlink("new", "/b/link") == nil)
	// An editor's save: a new file renamed over the name.
	guest.Check("write /b/swapped.new", os.WriteFile("/b/swapped.new", []byte("new swapped"), 0o644) == nil)
	guest.Check("rename over /b/swapped", os.Rename("/b/swapped.new", "/b/swapped") == nil)
	time.Sleep(1100 * time.Millisecond)
	b, err = os.ReadFile("/a/f")
	say("f after", string(b), err)
	_, err = os.Stat("/a/old")
	say("old after", guest.Result(err))
	b, err = os.ReadFile("/a/new")
	say("new after", string(b), err)
	target, err = os.Readlink("/a/link")
	say("link after", target, err)
	b, err = os.ReadFile("/a/link")
	say("link followed", string(b), err)
	st, err := os.Stat("/a/dir")
	say("dir after", err == nil && st.IsDir())
	ns := names()
	say("names after", ns, slices.Contains(ns, "new") && !slices.Contains(ns, "old"))
	n, _ = kept.ReadAt(buf[:], 0)
	say("kept while open", string(buf[:n]))
	kept.Close()
	n, _ = swapped.ReadAt(buf[:], 0)
	say("swapped while open", string(buf[:n]))
	swapped.Close()
	b, err = os.ReadFile("/a/swapped")
	say("swapped reopened", string(b), err)
	time.Sleep(1100 * time.Millisecond)
	b, err = os.ReadFile("/a/kept")
	say("kept reopened", string(b), err)
}
