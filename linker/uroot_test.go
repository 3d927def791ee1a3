package linker

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/u-root/u-root/pkg/cpio"
	"golang.org/x/mod/modfile"
)

// URootVersion is the u-root go.mod requires: the commands and the
// pkg/cpio that packs them come from one release.
func TestURootVersionMatchesGoMod(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Require {
		if r.Mod.Path == URootModule {
			if r.Mod.Version != URootVersion {
				t.Errorf("go.mod requires %s %s, URootVersion is %s", URootModule, r.Mod.Version, URootVersion)
			}
			return
		}
	}
	t.Errorf("go.mod does not require %s", URootModule)
}

func TestURootCommands(t *testing.T) {
	src := t.TempDir()
	for _, c := range []string{"cat", "gosh", "init", "ls"} {
		os.MkdirAll(filepath.Join(src, "cmds", "core", c), 0o755)
	}
	all, err := URootCommands(src, "core")
	if err != nil || !slices.Equal(all, []string{"cat", "gosh", "init", "ls"}) {
		t.Errorf("core: %q %v", all, err)
	}
	some, err := URootCommands(src, "ls, cat,ls")
	if err != nil || !slices.Equal(some, []string{"cat", "gosh", "init", "ls"}) {
		t.Errorf("a list: %q %v", some, err)
	}
	if _, err := URootCommands(src, "ls,nope"); err == nil {
		t.Error("a command u-root lacks accepted")
	}
	key := URootKey([]string{"ls"}, GoshSmall, "go1.26")
	if key == URootKey([]string{"cat"}, GoshSmall, "go1.26") ||
		key == URootKey([]string{"ls"}, GoshSmall, "go1.27") ||
		key == URootKey([]string{"ls"}, GoshFull, "go1.26") {
		t.Error("the cache key ignores the commands, the Go version or gosh's build")
	}
	if _, err := BuildURoot("ls", "big", nil); err == nil || !strings.Contains(err.Error(), `gosh build "big"`) {
		t.Errorf("an unknown gosh build: %v", err)
	}
}

// With a Base (u-root's archive), the base's /init stays, the app goes
// to its /bin path, and the skeleton's files win over the base's.
func TestInitramfsOverBase(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	os.WriteFile(app, []byte("\x7fELF fake"), 0o755)
	base := []cpio.Record{
		cpio.Directory("bbin", 0o755),
		cpio.StaticFile("bbin/bb", "busybox", 0o755),
		cpio.Symlink("init", "bbin/init"),
		cpio.Directory("tmp", 0o777),
		cpio.StaticFile("etc/hosts", "u-root's", 0o644),
		cpio.StaticFile("etc/resolv.conf", "nameserver 8.8.8.8\n", 0o644),
	}
	for _, withApp := range []bool{true, false} {
		rd := &Initramfs{Base: base, Argv: []string{"/init"}, AppPath: "/bin/hello"}
		if withApp {
			rd.App = app
		}
		b, err := rd.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		recs, err := cpio.ReadAllRecords(cpio.Newc.Reader(bytes.NewReader(b)))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]cpio.Record{}
		for _, r := range recs {
			got[r.Name] = append(got[r.Name], r)
		}
		one := func(name string) (cpio.Record, string) {
			rs := got[name]
			if len(rs) != 1 {
				t.Errorf("%s: %d records, want 1", name, len(rs))
				return cpio.Record{}, ""
			}
			buf := make([]byte, rs[0].FileSize)
			rs[0].ReadAt(buf, 0)
			return rs[0], string(buf)
		}
		if r, target := one("init"); r.Mode&cpio.S_IFMT != cpio.S_IFLNK || target != "bbin/init" {
			t.Errorf("init is not u-root's link: %o %q", r.Mode, target)
		}
		if _, hosts := one("etc/hosts"); hosts == "u-root's" {
			t.Error("the base's /etc/hosts won over the skeleton's")
		}
		if r, _ := one("tmp"); r.Mode&0o7777 != 0o1777 {
			t.Errorf("/tmp mode %o, want the skeleton's 1777", r.Mode&0o7777)
		}
		if _, s := one("etc/resolv.conf"); s == "" {
			t.Error("the base's own file is missing")
		}
		if _, s := one("bbin/bb"); s != "busybox" {
			t.Error("the busybox is missing")
		}
		if withApp {
			if r, s := one("bin/hello"); s != "\x7fELF fake" || r.Mode != cpio.S_IFREG|0o755 {
				t.Errorf("bin/hello: %o", r.Mode)
			}
		} else if len(got["bin/hello"]) != 0 {
			t.Error("an app record without an app")
		}
	}
}
