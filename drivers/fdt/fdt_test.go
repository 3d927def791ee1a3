package fdt

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/u-root/u-root/pkg/dt"
)

// rpi4DTB is Linux's device tree for the Raspberry Pi 4, as gometal ships
// it for the rpi4 board.
const rpi4DTB = "../../linker/boards/rpi4/bcm2711-rpi-4-b.dtb"

func load(t testing.TB, name string) ([]byte, Tree) {
	t.Helper()
	path := "testdata/" + name
	if name == rpi4DTB {
		path = name
	}
	b, err := os.ReadFile(path)
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
	for _, name := range []string{"virt-smp4-512m.dtb", "virt-initrd.dtb", "virt-gicv3.dtb", rpi4DTB} {
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

// What the kernel reads from the Raspberry Pi 4's device tree: its
// peripherals sit on buses at 0x7e000000 (and the GIC at 0x40000000)
// that the CPU sees at 0xfe000000 (0xff800000) through "ranges".
func TestRaspberryPi4Facts(t *testing.T) {
	_, tr := load(t, rpi4DTB)
	if m, _ := tr.StringProp(tr.Root(), "model"); string(m) != "Raspberry Pi 4 Model B" {
		t.Errorf("model %q", m)
	}
	// Memory: the firmware (or QEMU) fills in /memory's size; the spin
	// table's page is a /memreserve/.
	mem := tr.FindDeviceType(-1, "memory")
	if a, s, ok := tr.Reg(mem, 0); !ok || a != 0 || s != 0 {
		t.Errorf("memory reg %#x+%#x %v, want 0+0 (filled in at boot)", a, s, ok)
	}
	if a, s, ok := tr.MemReserve(0); !ok || a != 0 || s != 0x1000 {
		t.Errorf("memreserve %#x+%#x %v, want the spin-table page 0+0x1000", a, s, ok)
	}
	rm := tr.Path("/reserved-memory")
	var names []string
	for n := tr.FirstChild(rm); n >= 0; n = tr.NextSibling(n) {
		names = append(names, string(tr.Name(n)))
	}
	if strings.Join(names, " ") != "linux,cma nvram@0" {
		t.Errorf("reserved-memory children %q", names)
	}
	if st, _ := tr.StringProp(tr.Path("/reserved-memory/nvram"), "status"); string(st) != "disabled" {
		t.Errorf("nvram status %q, want disabled", st)
	}

	phys := func(compat string, i int) uint64 {
		t.Helper()
		n := tr.FindCompatible(-1, compat)
		a, _, ok := tr.Phys(n, i)
		if !ok {
			t.Errorf("%s reg %d does not translate", compat, i)
		}
		return a
	}
	if d, c := phys("arm,gic-400", 0), phys("arm,gic-400", 1); d != 0xff841000 || c != 0xff842000 {
		t.Errorf("GIC-400 at %#x/%#x, want 0xff841000/0xff842000", d, c)
	}
	if a := phys("arm,pl011", 0); a != 0xfe201000 {
		t.Errorf("PL011 at %#x", a)
	}
	if a := phys("brcm,bcm2835-aux-uart", 0); a != 0xfe215040 {
		t.Errorf("mini UART at %#x", a)
	}
	if a := phys("brcm,bcm2835-pm-wdt", 0); a != 0xfe100000 {
		t.Errorf("PM watchdog at %#x", a)
	}
	// The untranslated bus address is what Reg gives.
	if a, _, _ := tr.Reg(tr.FindCompatible(-1, "arm,pl011"), 0); a != 0x7e201000 {
		t.Errorf("PL011 bus address %#x", a)
	}
	for compat, spi := range map[string]uint32{"arm,pl011": 121, "brcm,bcm2835-aux-uart": 93} {
		if typ, num, _, ok := tr.Interrupt(tr.FindCompatible(-1, compat), 0); !ok || typ != 0 || num != spi {
			t.Errorf("%s interrupt %d/%d, want SPI %d", compat, typ, num, spi)
		}
	}
	if out, _ := tr.StringProp(tr.Path("/chosen"), "stdout-path"); string(out) != "serial1:115200n8" {
		t.Errorf("stdout-path %q, want the mini UART", out)
	}
	// Four cores on the spin table at 0xd8, 0xe0, 0xe8, 0xf0.
	var rel []uint64
	for n := tr.FindDeviceType(-1, "cpu"); n >= 0; n = tr.FindDeviceType(n, "cpu") {
		if m, _ := tr.StringProp(n, "enable-method"); string(m) != "spin-table" {
			t.Errorf("%s: enable-method %q", tr.Name(n), m)
		}
		a, _ := tr.PropCells(n, "cpu-release-addr")
		rel = append(rel, a)
	}
	if fmt.Sprintf("%#x", rel) != "[0xd8 0xe0 0xe8 0xf0]" {
		t.Errorf("cpu-release-addr %#x", rel)
	}
	// The generic timer's PPIs: secure and non-secure physical,
	// virtual (the kernel's: PPI 11, INTID 27), hypervisor.
	timer := tr.FindCompatible(-1, "arm,armv8-timer")
	var ppis []uint32
	for i := 0; i < 4; i++ {
		typ, num, _, ok := tr.Interrupt(timer, i)
		if !ok || typ != 1 {
			t.Errorf("timer interrupt %d: type %d", i, typ)
		}
		ppis = append(ppis, num)
	}
	if fmt.Sprint(ppis) != "[13 14 11 10]" {
		t.Errorf("timer PPIs %v", ppis)
	}
}

// Phys refuses what cannot be translated: a reg under a node without
// "ranges", and a reg entry that does not exist.
func TestPhysUntranslatable(t *testing.T) {
	_, tr := load(t, rpi4DTB)
	// The cpus have reg, but their parent /cpus has no ranges: they are
	// not on a bus the CPU addresses.
	cpu := tr.FindDeviceType(-1, "cpu")
	if _, _, ok := tr.Phys(cpu, 0); ok {
		t.Error("a cpu's reg translated through /cpus, which has no ranges")
	}
	if _, _, ok := tr.Phys(tr.FindCompatible(-1, "arm,pl011"), 1); ok {
		t.Error("a reg entry that does not exist translated")
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
		tr.Phys(n, 0)
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
