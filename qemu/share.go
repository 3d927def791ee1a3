package qemu

import (
	"fmt"
	"path/filepath"
	"strings"
)

// A Share is a host directory the guest sees (gometal run -v
// HOST:GUEST[:ro]): QEMU serves it over virtio-9p (its "local" fsdev,
// security_model=none: files are the host user's, as QEMU runs), and
// the kernel learns where to put it from gometal.9p=TAG:GUEST[:ro].
type Share struct {
	Host     string // absolute
	Guest    string // absolute
	ReadOnly bool
}

// ParseShare reads HOST:GUEST[:ro]. HOST is made absolute; GUEST must
// be. A colon in either path is not possible (as with docker -v).
func ParseShare(s string) (Share, error) {
	parts := strings.Split(s, ":")
	var sh Share
	switch {
	case len(parts) == 3 && parts[2] == "ro":
		sh.ReadOnly = true
	case len(parts) == 3 && parts[2] == "rw":
	case len(parts) == 2:
	default:
		return sh, fmt.Errorf("-v %s: want HOST:GUEST or HOST:GUEST:ro", s)
	}
	if parts[0] == "" || !strings.HasPrefix(parts[1], "/") {
		return sh, fmt.Errorf("-v %s: want a host directory and an absolute guest path", s)
	}
	host, err := filepath.Abs(parts[0])
	if err != nil {
		return sh, err
	}
	if strings.ContainsAny(host+parts[1], " \t\n") {
		// The guest path travels on the kernel command line, a word.
		return sh, fmt.Errorf("-v %s: a path with white space is not supported", s)
	}
	sh.Host, sh.Guest = host, filepath.Clean(parts[1])
	return sh, nil
}

// shareTag is share i's mount tag: what the kernel's command-line word
// names and QEMU's device carries.
func shareTag(i int) string { return fmt.Sprintf("gmshare%d", i) }

// ShareArgs are QEMU's arguments for the shares: a fsdev and a
// virtio-9p device each. A comma in the host path is doubled, QEMU's
// escape in an option list.
func ShareArgs(shares []Share) []string {
	var args []string
	for i, s := range shares {
		fsdev := fmt.Sprintf("local,id=fs%d,path=%s,security_model=none", i, strings.ReplaceAll(s.Host, ",", ",,"))
		if s.ReadOnly {
			fsdev += ",readonly=on"
		}
		args = append(args, "-fsdev", fsdev,
			"-device", fmt.Sprintf("virtio-9p-device,fsdev=fs%d,mount_tag=%s", i, shareTag(i)))
	}
	return args
}

// ShareBootargs are the kernel command-line words naming each share's
// place: gometal.9p=TAG:GUEST[:ro].
func ShareBootargs(shares []Share) []string {
	var words []string
	for i, s := range shares {
		w := "gometal.9p=" + shareTag(i) + ":" + s.Guest
		if s.ReadOnly {
			w += ":ro"
		}
		words = append(words, w)
	}
	return words
}
