package qemu

import (
	"bytes"
	"fmt"

	"github.com/u-root/u-root/pkg/dt"
)

// RPi4SPINode is the Pi 4 device tree's SPI0, which Linux's DTB leaves
// disabled until config.txt's dtparam=spi=on has the firmware enable it
// (the header's pins 19, 21, 23, 24 and 26 are then SPI0's).
const RPi4SPINode = "spi@7e204000"

// EnableRPi4SPI does to a Pi 4 device tree what dtparam=spi=on does on
// a board, for QEMU's raspi4b, which has no firmware to apply it: SPI0's
// status becomes "okay".
func EnableRPi4SPI(dtb []byte) ([]byte, error) {
	fdt, err := dt.ReadFDT(bytes.NewReader(dtb))
	if err != nil {
		return nil, fmt.Errorf("reading the device tree: %v", err)
	}
	n, ok := fdt.NodeByName(RPi4SPINode)
	if !ok {
		return nil, fmt.Errorf("the device tree has no %s", RPi4SPINode)
	}
	if !n.UpdateProperty("status", []byte("okay\x00")) {
		n.Properties = append(n.Properties, dt.PropertyString("status", "okay"))
	}
	var out bytes.Buffer
	if _, err := fdt.Write(&out); err != nil {
		return nil, fmt.Errorf("writing the device tree: %v", err)
	}
	return out.Bytes(), nil
}
