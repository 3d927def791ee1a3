package linker

import "fmt"

// KernBase is where physical address 0 appears in the kernel's address
// space (drivers/cpu.KernBase): the kernel is linked at KernBase + its
// physical load address.
const KernBase = 0xFFFF_0000_0000_0000

// imageHeaderPage is the page in front of .text that holds the Image
// header; the Go linker's -T names where .text starts.
const imageHeaderPage = 0x1000

// Board is what the host needs to know to link and boot the kernel for a
// machine. Everything else the kernel reads from the DTB.
type Board struct {
	Name string
	// LoadPA is the physical address the bootloader puts the Image at:
	// RAM base + text_offset on QEMU virt, kernel_address on the Pi.
	LoadPA uint64
	// QEMUMachine is the -M value, empty if QEMU cannot boot the board.
	QEMUMachine string
	// Untested says no image for this board has been seen to boot yet.
	Untested bool
}

var boards = []Board{
	{Name: "virt", LoadPA: 0x4008_0000, QEMUMachine: "virt"},
	{Name: "rpi4", LoadPA: 0x20_0000, Untested: true},
}

// LookupBoard returns the named board.
func LookupBoard(name string) (Board, error) {
	for _, b := range boards {
		if b.Name == name {
			return b, nil
		}
	}
	return Board{}, fmt.Errorf("unknown board %q (known: virt, rpi4)", name)
}

// TextAddr is the link address of .text.
func (b Board) TextAddr() uint64 { return KernBase + b.LoadPA + imageHeaderPage }

// TextOffset is the Image header's text_offset: the load address's offset
// from a 2 MiB boundary (Documentation/arch/arm64/booting.rst).
func (b Board) TextOffset() uint64 { return b.LoadPA % (2 << 20) }

// LinkFlags are the -ldflags that place the kernel.
func (b Board) LinkFlags() string {
	// -T is parsed as an int64: a high-half address must be spelled as a
	// negative number.
	return fmt.Sprintf("-T %d -R 0x1000 -E main.entry", int64(b.TextAddr()))
}
