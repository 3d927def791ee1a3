package linker

import (
	"encoding/json"
	"fmt"
	"os/exec"

	// The Raspberry Pi firmware ships as the files of this Go module
	// (its package is empty); importing it keeps go.mod pinning the
	// version whose files go onto the SD card.
	_ "github.com/gokrazy/firmware"
)

// firmwareModule serves the Raspberry Pi's closed-source boot firmware
// with Broadcom's licence for redistributing it.
const firmwareModule = "github.com/gokrazy/firmware"

// piFirmwareFiles are what a Pi 4 needs from the firmware module: the
// VideoCore firmware that reads config.txt and loads the kernel, its
// memory-split fixup table, and the licence that lets us ship them. (The
// Pi 4's first stage is in its EEPROM, so no bootcode.bin.)
var piFirmwareFiles = []string{"start4.elf", "fixup4.dat", "LICENSE.broadcom"}

// firmwareDir returns the directory of the firmware module at the
// version go.mod names, downloading it into the module cache (through
// the Go module proxy) if it is not there yet.
func firmwareDir(root string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", firmwareModule)
	cmd.Dir = root
	out, err := cmd.Output()
	var m struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &m); jerr == nil && m.Error != "" {
		return "", fmt.Errorf("fetching the Raspberry Pi firmware (%s): %s", firmwareModule, m.Error)
	}
	if err != nil || m.Dir == "" {
		return "", fmt.Errorf("fetching the Raspberry Pi firmware (go mod download %s in %s): %v", firmwareModule, root, err)
	}
	return m.Dir, nil
}
