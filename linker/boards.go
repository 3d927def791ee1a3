package linker

import (
	"embed"
	"fmt"
	"strings"

	"github.com/gometal/gometal/drivers/cpu"
)

// KernBase is where physical address 0 appears in the kernel's address
// space: the kernel is linked at KernBase + its physical load address.
// (drivers/cpu holds no hardware access in the files a host build takes:
// it is the one definition, shared with the kernel and its assembly.)
const KernBase = cpu.KernBase

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
	// QEMUSince is the first QEMU release that has QEMUMachine.
	QEMUSince string
	// FixedSMP and FixedMemory are the cores and RAM QEMUMachine always
	// has (0 and "": -smp and -m choose).
	FixedSMP    int
	FixedMemory string
	// DTB names the device tree the board boots with, embedded under
	// boards/<Name>/ ("": QEMU makes one).
	DTB string
	// Note is said once to whoever builds for the board.
	Note string
}

//go:embed boards/rpi4/bcm2711-rpi-4-b.dtb
var boardFiles embed.FS

var boards = []Board{
	{Name: "virt", LoadPA: 0x4008_0000, QEMUMachine: "virt"},
	{
		// The Pi firmware loads kernel8.img at config.txt's
		// kernel_address; QEMU's raspi4b loads an Image with text_offset
		// 0 at 2 MiB (hw/arm/boot.c: an offset below its boot stub's
		// size moves up by 2 MiB), the same address.
		Name: "rpi4", LoadPA: 0x20_0000,
		QEMUMachine: "raspi4b", QEMUSince: "9.0", FixedSMP: 4, FixedMemory: "2G",
		DTB:  "bcm2711-rpi-4-b.dtb",
		Note: "rpi4 images boot on QEMU's raspi4b; none has run on a real board yet (README: Raspberry Pi 4)",
	},
}

// BoardNames lists the known boards.
func BoardNames() string {
	var names []string
	for _, b := range boards {
		names = append(names, b.Name)
	}
	return strings.Join(names, ", ")
}

// LookupBoard returns the named board.
func LookupBoard(name string) (Board, error) {
	for _, b := range boards {
		if b.Name == name {
			return b, nil
		}
	}
	return Board{}, fmt.Errorf("unknown board %q (known: %s)", name, BoardNames())
}

// QEMUSize returns the cores and memory to start QEMU with: the
// board's fixed ones where it has them, else smp and mem.
func (b Board) QEMUSize(smp int, mem string) (int, string) {
	if b.FixedSMP != 0 {
		smp = b.FixedSMP
	}
	if b.FixedMemory != "" {
		mem = b.FixedMemory
	}
	return smp, mem
}

// DTBBytes returns the board's device tree, or nil if QEMU makes one.
func (b Board) DTBBytes() ([]byte, error) {
	if b.DTB == "" {
		return nil, nil
	}
	return boardFiles.ReadFile("boards/" + b.Name + "/" + b.DTB)
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
