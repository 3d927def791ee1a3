// Package qemu owns running a gometal image under qemu-system-aarch64:
// the command line, streaming the guest console both ways, the exit
// status (semihosting SYS_EXIT makes QEMU exit with the app's status),
// timeouts, and symbolizing kernel panic reports with the kernel ELF.
package qemu
