package tests

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gometal/gometal/linker"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// installVersion is the version the test publishes the working tree as.
const installVersion = "v0.0.0-installtest"

// TestGoInstallOutsideCheckout publishes this tree as a module version
// on a file-based module proxy (no network: the dependencies come from
// the module cache's own download directory), installs the CLI with `go
// install ModulePath/cmd/gometal@VERSION` as a user would, and boots a
// program from a directory outside any checkout. The installed CLI must
// find and build the kernel from its own module in the module cache.
func TestGoInstallOutsideCheckout(t *testing.T) {
	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	publishTree(t, proxy)

	modcache := filepath.Join(tmp, "modcache")
	t.Cleanup(func() { // the module cache is read-only
		c := exec.Command("go", "clean", "-modcache")
		c.Env = append(os.Environ(), "GOMODCACHE="+modcache)
		c.Run()
	})
	downloads := filepath.Join(goEnv(t, "GOMODCACHE"), "cache", "download")
	env := append(os.Environ(),
		"GOMODCACHE="+modcache,
		"GOPROXY=file://"+proxy+",file://"+downloads,
		"GOSUMDB=off", "GOFLAGS=", "GOTOOLCHAIN=local",
		"GOBIN="+filepath.Join(tmp, "bin"),
		"XDG_CACHE_HOME="+filepath.Join(tmp, "cache"), // build the kernel anew
		"GOMETAL_ROOT=")
	install := exec.Command("go", "install", linker.ModulePath+"/cmd/gometal@"+installVersion)
	install.Dir = tmp
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}

	app := filepath.Join(tmp, "hello")
	os.MkdirAll(app, 0o755)
	os.WriteFile(filepath.Join(app, "go.mod"), []byte("module hello\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(app, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello from an installed gometal\") }\n"), 0o644)
	cmd := exec.Command(filepath.Join(tmp, "bin", "gometal"), "run", ".")
	cmd.Dir = app
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("installed gometal run: %v\n%s", err, out)
	}
	for _, want := range []string{
		"building kernel for virt",
		"hello from an installed gometal",
		"gometal: app exited with status 0",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("installed gometal run: missing %q in\n%s", want, out)
		}
	}
}

// publishTree writes the working tree's files (tracked and untracked,
// not ignored: what a commit of it would hold) as installVersion of
// ModulePath in the GOPROXY file layout.
func publishTree(t *testing.T, proxy string) {
	t.Helper()
	ls := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	ls.Dir = repoRoot
	out, err := ls.Output()
	if err != nil {
		t.Skipf("TestGoInstallOutsideCheckout: needs a git checkout to publish from: %v", err)
	}
	var files []modzip.File
	for _, p := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if st, err := os.Lstat(filepath.Join(repoRoot, p)); err == nil && st.Mode().IsRegular() {
			files = append(files, treeFile{p})
		}
	}
	dir := filepath.Join(proxy, linker.ModulePath, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var zip bytes.Buffer
	if err := modzip.Create(&zip, module.Version{Path: linker.ModulePath, Version: installVersion}, files); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		installVersion + ".zip":  zip.Bytes(),
		installVersion + ".mod":  gomod,
		installVersion + ".info": []byte(`{"Version":"` + installVersion + `"}`),
		"list":                   []byte(installVersion + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// treeFile is a file of the working tree, named relative to it.
type treeFile struct{ rel string }

func (f treeFile) Path() string                 { return f.rel }
func (f treeFile) Lstat() (fs.FileInfo, error)  { return os.Lstat(filepath.Join(repoRoot, f.rel)) }
func (f treeFile) Open() (io.ReadCloser, error) { return os.Open(filepath.Join(repoRoot, f.rel)) }

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
