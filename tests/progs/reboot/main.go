// Reboot calls reboot(2) as an init would at the end: "restart" or
// "poweroff". Neither returns on success.
package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

func main() {
	cmd := unix.LINUX_REBOOT_CMD_POWER_OFF
	if len(os.Args) > 1 && os.Args[1] == "restart" {
		cmd = unix.LINUX_REBOOT_CMD_RESTART
	}
	fmt.Println("reboot:", os.Args[1:])
	err := unix.Reboot(cmd)
	fmt.Println("FAIL: reboot returned:", err)
	os.Exit(1)
}
