// Command sensor reads a temperature sensor on I2C through Linux's
// i2c-dev (/dev/i2c-N), with plain ioctls from golang.org/x/sys/unix, as
// it would on a Pi's Linux: a TMP102, TMP105, TMP75 or LM75 (the same
// temperature register: two bytes, the top 12 bits in 1/16 °C).
//
//	bin/gometal run -board rpi4 -qemu-arg -device \
//	    -qemu-arg tmp105,bus=i2c-bus.1,address=0x48 ./examples/sensor
//
// On a board, a TMP102 breakout: VCC to header pin 1 (3.3 V), GND to
// pin 9, SDA to pin 3, SCL to pin 5 (i2c-1), ADD0 to GND (address 0x48).
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// i2c-dev.h: I2C_SLAVE sets the address the descriptor's reads and
// writes go to (golang.org/x/sys/unix does not name it).
const i2cSlave = 0x0703

// regTemperature is the sensors' temperature register.
const regTemperature = 0x00

func main() {
	bus := flag.Int("bus", 1, "the I2C bus (/dev/i2c-N; the Pi's header is 1)")
	addr := flag.Int("addr", 0x48, "the sensor's address")
	n := flag.Int("n", 3, "readings")
	every := flag.Duration("every", time.Second, "time between readings")
	flag.Parse()

	dev := fmt.Sprintf("/dev/i2c-%d", *bus)
	fd, err := unix.Open(dev, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sensor: %s: %v (the Pi's header bus is i2c-1 on -board rpi4)\n", dev, err)
		os.Exit(1)
	}
	defer unix.Close(fd)
	if err := unix.IoctlSetInt(fd, i2cSlave, *addr); err != nil {
		fmt.Fprintf(os.Stderr, "sensor: I2C_SLAVE %#x: %v\n", *addr, err)
		os.Exit(1)
	}
	for k := 0; k < *n; k++ {
		if k > 0 {
			time.Sleep(*every)
		}
		c, err := readCelsius(fd)
		if err != nil {
			// No device at the address: EREMOTEIO (no acknowledge), as on Linux.
			fmt.Fprintf(os.Stderr, "sensor: %s at %#x: %v\n", dev, *addr, err)
			os.Exit(1)
		}
		fmt.Printf("sensor: %s at %#x: %.4f °C\n", dev, *addr, c)
	}
}

// readCelsius points the sensor at its temperature register (a one-byte
// write), then reads the register's two bytes.
func readCelsius(fd int) (float64, error) {
	if _, err := unix.Write(fd, []byte{regTemperature}); err != nil {
		return 0, err
	}
	var b [2]byte
	if _, err := unix.Read(fd, b[:]); err != nil {
		return 0, err
	}
	raw := int16(uint16(b[0])<<8|uint16(b[1])) >> 4 // 12 bits, two's complement
	return float64(raw) / 16, nil
}
