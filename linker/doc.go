// Package linker owns everything the host builds for a boot: the kernel
// ELF linked at a board's load address, its arm64 Linux Image, the app
// (built from a package or checked as a ready ELF), and the initramfs
// holding the app as /init.
package linker
