package main

import (
	"strings"
	"testing"
	"time"
)

func TestSplitArgs(t *testing.T) {
	target, args, err := splitArgs([]string{"./app", "--", "-x", "y"}, false)
	if err != nil || target != "./app" || len(args) != 2 || args[0] != "-x" {
		t.Errorf("run: %q %q %v", target, args, err)
	}
	if _, _, err := splitArgs([]string{"./app", "stray"}, false); err == nil {
		t.Error("run accepted arguments without --")
	}
	target, args, err = splitArgs([]string{"/tmp/x.test", "-test.v", "-test.run=Foo"}, true)
	if err != nil || target != "/tmp/x.test" || len(args) != 2 {
		t.Errorf("exec: %q %q %v", target, args, err)
	}
	if _, _, err := splitArgs(nil, true); err == nil {
		t.Error("no program accepted")
	}
}

func TestParseFlags(t *testing.T) {
	o, rest, err := parseFlags("run", []string{"-smp", "2", "-m", "1G", "-env", "A=1", "-env", "B=2", "-timeout", "5s", "./x", "--", "y"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if o.smp != 2 || o.mem != "1G" || len(o.env) != 2 || o.timeout != 5*time.Second || len(rest) != 3 {
		t.Errorf("%+v %q", o, rest)
	}
	if o, _, _ := parseFlags("exec", nil, true); o.mem != "1G" {
		t.Errorf("exec default memory %s", o.mem)
	}
	if _, _, err := parseFlags("run", []string{"-env", "NOEQUALS"}, false); err == nil {
		t.Error("-env without = accepted")
	}
	if _, _, err := parseFlags("run", []string{"-smp", "9"}, false); err == nil {
		t.Error("-smp 9 accepted")
	}
	if _, _, err := parseFlags("run", []string{"-uroot-cmds", "ls"}, false); err == nil {
		t.Error("-uroot-cmds without -uroot accepted")
	}
	if o, _, err := parseFlags("run", []string{"-uroot", "-uroot-cmds", "ls,cat"}, false); err != nil || !o.uroot.on || o.uroot.cmds != "ls,cat" {
		t.Errorf("-uroot -uroot-cmds: %+v %v", o, err)
	}
	if o, _, err := parseFlags("exec", []string{"-uroot"}, true); err != nil || !o.uroot.on {
		t.Errorf("exec -uroot: %+v %v", o, err)
	}
	if _, _, err := parseFlags("run", []string{"-uroot-gosh", "full"}, false); err == nil || !strings.Contains(err.Error(), "-uroot-gosh needs -uroot") {
		t.Errorf("-uroot-gosh without -uroot: %v", err)
	}
	if _, _, err := parseFlags("run", []string{"-uroot", "-uroot-gosh", "big"}, false); err == nil || !strings.Contains(err.Error(), "want small or full") {
		t.Errorf("-uroot-gosh big: %v", err)
	}
	if o, _, _ = parseFlags("run", []string{"-uroot"}, false); o.uroot.gosh != "small" {
		t.Errorf("-uroot's gosh by default: %q, want small", o.uroot.gosh)
	}
	if appName("./examples/hello") != "hello" || appName("/x/app.elf") != "app" {
		t.Error("appName")
	}
	if m := testTimeoutRE.FindStringSubmatch("-test.timeout=10m0s"); m == nil || m[1] != "10m0s" {
		t.Error("test timeout not recognised")
	}
}

// go test's output-file flags become guest paths, copied back to where go
// test asked (relative ones in -test.outputdir).
func TestTestOutputs(t *testing.T) {
	args, outs := testOutputs([]string{"/init", "-test.outputdir=/out", "-test.trace=trace.out", "-test.cpuprofile=/abs/cpu.out", "-test.v=true"}, "/wd")
	want := []string{"/init", "-test.outputdir=/out", "-test.trace=/tmp/gometal-test-trace.out", "-test.cpuprofile=/tmp/gometal-test-cpuprofile.out", "-test.v=true"}
	if strings.Join(args, " ") != strings.Join(want, " ") {
		t.Errorf("args %q", args)
	}
	if strings.Join(outs, " ") != "/tmp/gometal-test-trace.out:/out/trace.out /tmp/gometal-test-cpuprofile.out:/abs/cpu.out" {
		t.Errorf("copyouts %q", outs)
	}
}
