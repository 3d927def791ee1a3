package tests

import (
	"bufio"
	"bytes"
	"debug/elf"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gometal/gometal/linker"
)

// The kernel's Go runtime is never started (ARCHITECTURE.md, "Rules for
// kernel-side Go"), so kernel code must not allocate on the heap and must
// not need package initialization. These tests enforce both from the
// compiler's own output rather than from review.

var escapeRE = regexp.MustCompile(`^(.+\.go):(\d+):(\d+): (.*)$`)

func TestKernelNoHeapEscapes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "kernel.elf")
	b, _ := linker.LookupBoard("virt")
	cmd := exec.Command("go", "build", "-o", out, "-gcflags="+linker.ModulePath+"/...=-m", "-ldflags", b.LinkFlags(), "./boot")
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0", "GOFLAGS=")
	msg, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("building the kernel with -m: %v\n%s", err, msg)
	}
	checked := 0
	s := bufio.NewScanner(bytes.NewReader(msg))
	for s.Scan() {
		m := escapeRE.FindStringSubmatch(s.Text())
		if m == nil {
			continue
		}
		file := filepath.ToSlash(m[1])
		if !kernelSide(file) {
			continue
		}
		checked++
		if strings.Contains(m[4], "escapes to heap") || strings.HasPrefix(m[4], "moved to heap:") {
			t.Errorf("%s:%s: %s (kernel code must not allocate: the Go runtime is not running)", file, m[2], m[4])
		}
	}
	if checked == 0 {
		t.Fatalf("no escape-analysis output for kernel files; is -m reaching them?\n%s", msg)
	}
	checkNoRuntimeTypeLookups(t, out)
}

// checkNoRuntimeTypeLookups fails on kernel code that calls the runtime's
// interface conversions (an assertion or type switch from one interface
// type to another): they look up an itab at run time and allocate it
// (runtime.getitab, persistentalloc), which escape analysis does not
// report. Assertions to concrete types compile to a comparison.
func checkNoRuntimeTypeLookups(t *testing.T, elf string) {
	cmd := exec.Command("go", "tool", "objdump", "-s", "^"+regexp.QuoteMeta(linker.ModulePath)+"/", elf)
	cmd.Dir = repoRoot
	dis, err := cmd.Output()
	if err != nil {
		t.Fatalf("objdump: %v", err)
	}
	fn, funcs := "", 0
	for _, line := range strings.Split(string(dis), "\n") {
		if strings.HasPrefix(line, "TEXT ") {
			fn = strings.Fields(line)[1]
			funcs++
			continue
		}
		for _, callee := range []string{"runtime.typeAssert", "runtime.interfaceSwitch", "runtime.assertE2I", "runtime.getitab"} {
			if strings.Contains(line, callee+"(SB)") {
				t.Errorf("%s calls %s (an interface-to-interface conversion: the runtime is not running)", fn, callee)
			}
		}
	}
	if funcs < 100 {
		t.Fatalf("objdump found only %d kernel functions under %s/; is the pattern right?", funcs, linker.ModulePath)
	}
}

func kernelSide(file string) bool {
	file = strings.TrimPrefix(file, "./")
	for _, d := range linker.KernelDirs {
		if strings.HasPrefix(file, d+"/") || strings.Contains(file, "/"+d+"/") && strings.HasPrefix(file, repoRoot) {
			return true
		}
	}
	return false
}

func TestKernelNoInit(t *testing.T) {
	// (a) No init functions in the source.
	for _, d := range linker.KernelDirs {
		filepath.WalkDir(filepath.Join(repoRoot, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
			if err != nil {
				t.Error(err)
				return nil
			}
			for _, decl := range f.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
					t.Errorf("%s: func init: package initializers never run in the kernel", p)
				}
			}
			return nil
		})
	}
	// (b) No compiler-generated initializers: a package-level variable
	// whose value needs code makes the compiler emit pkg.init.
	out := filepath.Join(t.TempDir(), "kernel.elf")
	b, _ := linker.LookupBoard("virt")
	if err := linker.LinkKernel(repoRoot, b, out); err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	initRE := regexp.MustCompile(`^(` + regexp.QuoteMeta(linker.ModulePath) + `/[^.]+|main)\.init(\.\d+)?$`)
	for _, s := range syms {
		if initRE.MatchString(s.Name) {
			t.Errorf("kernel has initializer %s: a package-level variable needs code to initialize (the runtime never runs it)", s.Name)
		}
	}
}

// TestUnlockedPathUsesNoFP checks, in the compiled kernel, that the way a
// system call is answered without the kernel lock (kernel/unlocked_arm64.go)
// never uses a floating-point or vector register: on that path the app's
// are still in them, unsaved. It starts from the entry's Go side (trap)
// and the personality's Unlocked and follows every direct call, except
// into the code that runs only once the registers are saved.
func TestUnlockedPathUsesNoFP(t *testing.T) {
	out := filepath.Join(t.TempDir(), "kernel.elf")
	b, _ := linker.LookupBoard("virt")
	if err := linker.LinkKernel(repoRoot, b, out); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "tool", "objdump", out)
	cmd.Dir = repoRoot
	dis, err := cmd.Output()
	if err != nil {
		t.Fatalf("objdump: %v", err)
	}
	// Each function's instructions (mnemonic and operands).
	funcs := map[string][]string{}
	fn := ""
	for _, line := range strings.Split(string(dis), "\n") {
		if strings.HasPrefix(line, "TEXT ") {
			fn = strings.TrimSuffix(strings.Fields(line)[1], "(SB)")
			continue
		}
		if f := strings.Split(line, "\t"); fn != "" && len(f) >= 5 {
			funcs[fn] = append(funcs[fn], strings.TrimSpace(f[4]))
		}
	}
	mod := linker.ModulePath + "/"
	roots := []string{mod + "kernel.trap", mod + "kernel/linux.unlocked"}
	// Called only after saveFP has put the app's registers in the frame.
	after := map[string]bool{
		mod + "kernel.saveFP.abi0":      true,
		mod + "kernel.trapLocked":       true,
		mod + "kernel.interrupt":        true,
		mod + "kernel.lockFreeSyscall":  true,
		mod + "kernel.lockFreeFault":    true,
		mod + "kernel.profUnlocked":     true,
		"runtime.morestack_noctxt.abi0": true, // a kernel panic
		"runtime.panicBounds":           true, // a kernel panic
	}
	fpRE := regexp.MustCompile(`^(F[A-Z0-9]+|V[A-Z0-9.]+|SCVTF\w*|UCVTF\w*)\s|\bV\d+\b|\bF\d+\b`)
	callRE := regexp.MustCompile(`^(BL|CALL|B)\s+(\S+)\(SB\)`)
	seen := map[string]bool{}
	var visit func(name, from string)
	visit = func(name, from string) {
		if seen[name] || after[name] {
			return
		}
		seen[name] = true
		code, ok := funcs[name]
		if !ok {
			t.Errorf("%s (called from %s) is not in the kernel's disassembly", name, from)
			return
		}
		for _, ins := range code {
			if fpRE.MatchString(ins) {
				t.Errorf("%s (reached from %s) uses a vector register before the app's are saved: %s", name, from, ins)
			}
			if m := callRE.FindStringSubmatch(ins); m != nil {
				visit(m[2], name)
			}
		}
	}
	for _, r := range roots {
		visit(r, "the entry")
	}
	if len(seen) < 4 {
		t.Fatalf("followed only %d functions from %v; is the disassembly parsed right?", len(seen), roots)
	}
	t.Logf("checked %d functions on the unlocked path", len(seen))
}
