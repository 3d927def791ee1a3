package linker

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The Raspberry Pi 4 boots from the first FAT partition of its SD card:
// the EEPROM loader starts start4.elf (the VideoCore firmware), which reads
// config.txt, loads the kernel, the initramfs and the device tree, writes
// the memory map, the initramfs's place and cmdline.txt into the device
// tree, and starts the Arm cores: core 0 at the kernel in EL2 with the
// device tree's address in x0, the others parked in WFE on the spin table.
// Documented in Raspberry Pi's "config.txt" and "The Kernel Command Line"
// pages.

// BootFile is one file of the boot partition.
type BootFile struct {
	Name string
	Data []byte
}

// Names of the files the firmware is told to load.
const (
	piKernelFile    = "kernel8.img"
	piInitramfsFile = "initramfs.cpio"
)

// PiConfigTxt is config.txt for a kernel linked at loadPA, with the
// device tree dtb.
func PiConfigTxt(loadPA uint64, dtb string) string {
	return fmt.Sprintf(`# config.txt for gometal on the Raspberry Pi 4, read by the firmware (start4.elf).
# Written by gometal build -board rpi4; each line says what the kernel relies on.

# Start the Arm cores in AArch64 state (gometal is a 64-bit kernel).
arm_64bit=1
# The gometal kernel, an arm64 Linux Image padded to its full size.
kernel=%s
# Load it at the address it is linked for (gometal's rpi4 link address).
kernel_address=%#x
# The initramfs holding the program as /init, right after the kernel; the
# firmware writes where it put it into the device tree's /chosen node.
initramfs %s followkernel
# The device tree the kernel reads the board from (Linux's, for the Pi 4).
device_tree=%s
# The mini UART on header pins 8 (TX) and 10 (RX), 115200 8N1, with the
# core clock it divides held steady: gometal's console.
enable_uart=1
# Interrupts through the GIC-400 (the Pi 4's default; gometal has no
# driver for the legacy BCM2836 interrupt controller).
enable_gic=1
# SPI0 on the header (MOSI pin 19, MISO 21, SCLK 23, CE0 24, CE1 26) as
# /dev/spidev0.0 and /dev/spidev0.1: uncomment to have the firmware turn
# it on in the device tree (it is off in Linux's).
#dtparam=spi=on
`, piKernelFile, loadPA, piInitramfsFile, dtb)
}

// PiBootFiles returns the boot partition for the board: config.txt,
// cmdline.txt, kernel8.img, the device tree, the initramfs and the
// firmware from the module in root's go.mod.
func PiBootFiles(root string, b Board, image, initramfs []byte, bootargs []string) ([]BootFile, error) {
	dtb, err := b.DTBBytes()
	if err != nil || dtb == nil {
		return nil, fmt.Errorf("board %s has no device tree to boot with: %v", b.Name, err)
	}
	kernel, err := PadImage(image)
	if err != nil {
		return nil, err
	}
	files := []BootFile{
		{"config.txt", []byte(PiConfigTxt(b.LoadPA, b.DTB))},
		// One line; the firmware adds its own words in front.
		{"cmdline.txt", []byte(strings.Join(bootargs, " ") + "\n")},
		{piKernelFile, kernel},
		{b.DTB, dtb},
		{piInitramfsFile, initramfs},
	}
	fw, err := firmwareDir(root)
	if err != nil {
		return nil, err
	}
	for _, name := range piFirmwareFiles {
		data, err := os.ReadFile(filepath.Join(fw, name))
		if err != nil {
			return nil, fmt.Errorf("the Raspberry Pi firmware module lacks %s: %v", name, err)
		}
		files = append(files, BootFile{name, data})
	}
	return files, nil
}

// PadImage returns img extended with zeros to the image_size its header
// gives. The firmware's "followkernel" puts the initramfs right after the
// kernel file; an Image whose file ends before its .bss would have the
// kernel zero the initramfs at boot.
func PadImage(img []byte) ([]byte, error) {
	if len(img) < imageHeaderSize || binary.LittleEndian.Uint32(img[56:]) != imageMagic {
		return nil, fmt.Errorf("kernel is not an arm64 Image")
	}
	size := binary.LittleEndian.Uint64(img[16:])
	if size < uint64(len(img)) || size > 1<<30 {
		return nil, fmt.Errorf("kernel Image header says it is %d bytes, the file has %d", size, len(img))
	}
	out := make([]byte, size)
	copy(out, img)
	return out, nil
}

// WriteBootDir writes files into dir.
func WriteBootDir(dir string, files []BootFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
