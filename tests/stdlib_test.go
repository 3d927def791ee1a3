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
	args := append([]string{"test", "-count=1", "-exec", gometalBin + " exec"}, stdlibPackages...)
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0", "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	t.Logf("go %s\n%s", strings.Join(args, " "), out)
	if err != nil {
		t.Fatalf("standard-library tests failed on gometal: %v", err)
	}
	for _, p := range stdlibPackages {
		if !strings.Contains(string(out), "ok  \t"+p+"\t") {
			t.Errorf("no ok line for %s", p)
		}
	}
}
