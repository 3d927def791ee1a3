package qemu

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"strings"
)

// Version returns the installed QEMU's version line, e.g. "QEMU emulator
// version 10.0.2 (Debian 1:10.0.2+ds-2+deb13u1~bpo12+1)".
func Version() (string, error) {
	bin, err := exec.LookPath(Binary)
	if err != nil {
		return "", ErrNoQEMU
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", Binary, err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line), nil
}

// HasMachine reports whether the installed QEMU has the -M machine name
// (as listed by -M help).
func HasMachine(name string) (bool, error) {
	bin, err := exec.LookPath(Binary)
	if err != nil {
		return false, ErrNoQEMU
	}
	out, err := exec.Command(bin, "-M", "help").Output()
	if err != nil {
		return false, fmt.Errorf("%s -M help: %v", Binary, err)
	}
	s := bufio.NewScanner(bytes.NewReader(out))
	for s.Scan() {
		if f := strings.Fields(s.Text()); len(f) > 0 && f[0] == name {
			return true, nil
		}
	}
	return false, nil
}

// CheckMachine returns nil if QEMU can boot machine, else one clear
// sentence: which QEMU is installed, which is needed, and how to get it.
func CheckMachine(machine, since string) error {
	ok, err := HasMachine(machine)
	if err != nil || ok {
		return err
	}
	v, _ := Version()
	return fmt.Errorf("the installed QEMU (%s) has no %s machine; it needs QEMU %s or later: run make deps (on Debian bookworm it installs qemu-system-arm from bookworm-backports)", v, machine, since)
}
