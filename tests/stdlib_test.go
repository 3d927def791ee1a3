package tests

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// stdlibPackages are Go standard-library test suites that must pass on
// gometal, run through go test -exec "gometal exec" exactly as a user
// would. Nobody here wrote these tests.
var stdlibPackages = []string{
	"strings", "bytes", "strconv", "sort", "unicode/utf8", "container/heap",
	"encoding/json", "regexp",
}

func TestStdlibThroughGoTestExec(t *testing.T) {
	goTestExec(t, true, nil, stdlibPackages...)
}

// goTestExec runs go test -exec "gometal exec" with flags on pkgs and
// requires an ok line for each. With short, the suites run with -short,
// as Go's own `go tool dist test` runs them on slow builders: QEMU here is
// software emulation, and a few std tests (regexp's exhaustive RE2 run,
// sync/atomic's 10^8-swap hammer) take many minutes there.
// `make test-long` sets GOMETAL_STD_FULL=1 to run them in full.
func goTestExec(t *testing.T, short bool, flags []string, pkgs ...string) string {
	t.Helper()
	return goTestExecOn(t, "", short, flags, pkgs...)
}

// goTestExecOn is goTestExec on a board other than the default ("": virt).
func goTestExecOn(t *testing.T, board string, short bool, flags []string, pkgs ...string) string {
	t.Helper()
	execCmd := gometalBin + " exec"
	if board != "" {
		execCmd += " -board " + board
	}
	args := []string{"test", "-count=1", "-exec", execCmd}
	if short && os.Getenv("GOMETAL_STD_FULL") != "1" {
		args = append(args, "-short")
	}
	args = append(args, flags...)
	args = append(args, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0", "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	t.Logf("go %s\n%s", strings.Join(args, " "), out)
	if err != nil {
		t.Fatalf("go test on gometal failed: %v", err)
	}
	for _, p := range pkgs {
		if !strings.Contains(string(out), "ok  \t"+p+"\t") {
			t.Errorf("no ok line for %s", p)
		}
	}
	return string(out)
}

// os's own tests of file sizes and times on the tmpfs: truncate(2) by
// path and by descriptor, utimensat with explicit times, UTIME_OMIT and
// the Unix epoch. (The rest of os's failures are listed in the README.)
func TestStdlibOSTruncateAndTimes(t *testing.T) {
	goTestExec(t, true, []string{"-run", "^(TestTruncate|TestFTruncate|TestTruncateNonexistentFile|TestChtimes|TestChtimesDir|TestChtimesOmit|TestChtimesToUnixZero)$"}, "os")
}

// os.Root's own tests: every operation in and out of a root, over files,
// directories, symlinks (dangling, chained, ending in "/"), "." and "..",
// hard links, and paths up to PATH_MAX, each expected to answer as Linux
// does; with os's hard-link, long-path and FIFO tests. They check the
// path walk (kernel/fs, Resolve), the tmpfs namespace and FIFO opens end
// to end.
func TestStdlibOSFiles(t *testing.T) {
	t.Parallel()
	goTestExec(t, true, []string{"-run", "^(TestRoot.*|TestHardLink|TestLongPath|TestFifoEOF|TestFIFONonBlockingEOF)$"}, "os")
}
