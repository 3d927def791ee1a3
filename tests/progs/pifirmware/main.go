// Command pifirmware prints what a program on a Raspberry Pi learns of
// the board from Linux's files (TestRPi4FirmwareProperties): the lines
// the Pi's kernel adds to /proc/cpuinfo (what periph.io and gpiozero read
// to know the board), the SoC's thermal zone in /sys (what
// vcgencmd-less temperature monitors read) and the device tree's model
// in /proc/device-tree.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

func main() {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		fmt.Println("pifirmware: cpuinfo:", err)
		os.Exit(1)
	}
	s := bufio.NewScanner(f)
	for s.Scan() {
		k, v, ok := strings.Cut(s.Text(), ":")
		k = strings.TrimSpace(k)
		if ok && (k == "Hardware" || k == "Revision" || k == "Serial" || k == "Model") {
			fmt.Printf("pifirmware: %s: %s\n", k, strings.TrimSpace(v))
		}
	}
	f.Close()
	// /sys as an init mounts it (a distribution's, u-root's).
	if err := os.MkdirAll("/sys", 0o755); err != nil {
		fmt.Println("pifirmware: mkdir /sys:", err)
	}
	if err := unix.Mount("sysfs", "/sys", "sysfs", 0, ""); err != nil {
		fmt.Println("pifirmware: mount sysfs:", err)
	}
	for _, attr := range []string{"type", "temp"} {
		b, err := os.ReadFile("/sys/class/thermal/thermal_zone0/" + attr)
		if err != nil {
			fmt.Printf("pifirmware: thermal %s: %v\n", attr, err)
			continue
		}
		fmt.Printf("pifirmware: thermal %s: %s\n", attr, strings.TrimSpace(string(b)))
	}
	// The device tree's model, through /proc/device-tree (a link to
	// /sys/firmware/devicetree/base): what periph.io reads to know it
	// runs on a Pi. The property ends in its NUL.
	if b, err := os.ReadFile("/proc/device-tree/model"); err != nil {
		fmt.Println("pifirmware: device-tree model:", err)
	} else {
		fmt.Printf("pifirmware: device-tree model: %q\n", b)
	}
	fmt.Println("pifirmware: done")
}
