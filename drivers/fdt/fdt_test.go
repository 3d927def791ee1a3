package fdt

import (
	"bytes"
	"os"
	"testing"

	"github.com/u-root/u-root/pkg/dt"
)

func load(t testing.TB, name string) ([]byte, Tree) {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	tr, e := Parse(b)
	if e != OK {
		t.Fatalf("Parse(%s): %v", name, e)
	}
	return b, tr
}

// walk compares every node and property with u-root's parser.
func walk(t *testing.T, tr *Tree, n Node, want *dt.Node, path string) {
	if got := string(tr.Name(n)); got != want.Name {
		t.Errorf("%s: name %q, u-root %q", path, got, want.Name)
	}
	for _, p := range want.Properties {
		v, ok := tr.Prop(n, p.Name)
		if !ok || !bytes.Equal(v, p.Value) {
			t.Errorf("%s: property %s = %x, u-root %x", path, p.Name, v, p.Value)
		}
	}
	c := tr.FirstChild(n)
	for _, wc := range want.Children {
		if c < 0 {
			t.Errorf("%s: missing child %s", path, wc.Name)
			return
		}
		if p := tr.Parent(c); p != n {
			t.Errorf("%s/%s: parent %d, want %d", path, wc.Name, p, n)
		}
		walk(t, tr, c, wc, path+"/"+wc.Name)
		c = tr.NextSibling(c)
	}
	if c >= 0 {
		t.Errorf("%s: extra child %s", path, tr.Name(c))
	}
}

func TestAgainstURoot(t *testing.T) {
	for _, name := range []string{"virt-smp4-512m.dtb", "virt-initrd.dtb", "virt-gicv3.dtb"} {
		b, tr := load(t, name)
		ref, err := dt.ReadFDT(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		walk(t, &tr, tr.Root(), ref.RootNode, "")
	}
}

func TestVirtFacts(t *testing.T) {
	_, tr := load(t, "virt-smp4-512m.dtb")
	mem := tr.FindDeviceType(-1, "memory")
	if a, s, ok := tr.Reg(mem, 0); !ok || a != 0x40000000 || s != 0x20000000 {
		t.Errorf("memory reg %#x %#x %v", a, s, ok)
	}
	uart := tr.FindCompatible(-1, "arm,pl011")
	if a, _, ok := tr.Reg(uart, 0); !ok || a != 0x9000000 {
		t.Errorf("pl011 at %#x", a)
	}
	if typ, num, _, ok := tr.Interrupt(uart, 0); !ok || typ != 0 || num != 1 {
		t.Errorf("pl011 interrupt %d %d", typ, num)
	}
	gic := tr.FindCompatible(-1, "arm,cortex-a15-gic")
	d, _, _ := tr.Reg(gic, 0)
	c, _, _ := tr.Reg(gic, 1)
	if d != 0x8000000 || c != 0x8010000 {
		t.Errorf("GIC at %#x/%#x", d, c)
	}
	cpus := 0
	for n := tr.FindDeviceType(-1, "cpu"); n >= 0; n = tr.FindDeviceType(n, "cpu") {
		cpus++
	}
	if cpus != 4 {
		t.Errorf("%d cpus", cpus)
	}
	if m, ok := tr.StringProp(tr.Path("/psci"), "method"); !ok || string(m) != "hvc" {
		t.Errorf("psci method %q", m)
	}
	timer := tr.FindCompatible(-1, "arm,armv8-timer")
	if typ, num, _, ok := tr.Interrupt(timer, 2); !ok || typ != 1 || num != 11 {
		t.Errorf("virtual timer PPI %d/%d", typ, num)
	}
	if tr.Path("/memory") != mem || tr.Path("/nonexistent") != -1 {
		t.Error("Path lookup")
	}
}

func TestChosen(t *testing.T) {
	_, tr := load(t, "virt-initrd.dtb")
	ch := tr.Path("/chosen")
	s, ok1 := tr.PropCells(ch, "linux,initrd-start")
	e, ok2 := tr.PropCells(ch, "linux,initrd-end")
	if !ok1 || !ok2 || e-s != 3 {
		t.Errorf("initrd %#x..%#x", s, e)
	}
	if a, ok := tr.StringProp(ch, "bootargs"); !ok || string(a) != "quiet x=y" {
		t.Errorf("bootargs %q", a)
	}
}

// Every truncation of a valid blob is either rejected or walked safely.
func TestTruncated(t *testing.T) {
	b, _ := load(t, "virt-smp4-512m.dtb")
	for n := 0; n < len(b); n += 7 {
		exercise(b[:n])
	}
}

func exercise(b []byte) {
	tr, err := Parse(b)
	if err != OK {
		return
	}
	for n := Node(0); n >= 0; n = tr.nextNode(n) {
		tr.Name(n)
		tr.Reg(n, 0)
		tr.Interrupt(n, 0)
		tr.IsCompatible(n, "x")
		tr.Parent(n)
		tr.NextSibling(n)
	}
	tr.Path("/chosen")
	tr.FindCompatible(-1, "arm,pl011")
	tr.MemReserve(0)
}

func FuzzParse(f *testing.F) {
	b, err := os.ReadFile("testdata/virt-initrd.dtb")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte{0xd0, 0x0d, 0xfe, 0xed})
	f.Fuzz(func(t *testing.T, b []byte) { exercise(b) })
}
