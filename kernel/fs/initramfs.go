package fs

import "github.com/gometal/gometal/kernel/cpio"

// The initramfs is the app's file system: read-only, served straight out
// of the cpio archive the bootloader left in memory (no copies).

// Archive is the initramfs as the bootloader left it (the kernel's start
// sets it from the DTB's linux,initrd-start and -end).
var Archive []byte

// Node is one file or directory of the initramfs.
type Node struct {
	Name  []byte // path without the leading "/" ("" for the root)
	Mode  uint32
	Ino   uint32
	Mtime uint32
	Nlink uint32
	Rdev  uint32 // device nodes: major<<8 | minor, as stat's st_rdev
	Data  []byte
	Off   int // archive offset of the entry (0 for the synthetic root)
}

// TrimName strips "./" and "/" prefixes so archive names compare with
// cleaned paths.
func TrimName(n []byte) []byte {
	for {
		switch {
		case len(n) >= 2 && n[0] == '.' && n[1] == '/':
			n = n[2:]
		case len(n) >= 1 && n[0] == '/':
			n = n[1:]
		case len(n) == 1 && n[0] == '.':
			return n[:0]
		default:
			return n
		}
	}
}

func nodeOf(e *cpio.Entry, off int) Node {
	return Node{Name: TrimName(e.Name), Mode: e.Mode, Ino: e.Ino, Mtime: e.Mtime, Nlink: e.Nlink,
		Rdev: e.RDevMajor<<8 | e.RDevMinor&0xff, Data: e.Data, Off: off}
}

// Lookup finds an absolute, cleaned path. The root always exists.
func Lookup(path []byte) (Node, bool) {
	p := TrimName(path)
	if len(p) == 0 {
		return Node{Mode: cpio.S_IFDIR | 0o755, Ino: 1, Nlink: 2}, true
	}
	var found Node
	ok := false
	for off := 0; ; {
		e, next, err := cpio.Next(Archive, off)
		if err != cpio.OK {
			break
		}
		if string(TrimName(e.Name)) == string(p) {
			// Later entries win, as the Linux unpacker overwrites.
			found, ok = nodeOf(&e, off), true
		}
		off = next
	}
	if !ok {
		if name := childPrefix(p); name != nil {
			// A directory implied by its contents but without its own
			// record. Its name points into the archive, not into p.
			return Node{Name: name, Mode: cpio.S_IFDIR | 0o755, Ino: 2, Nlink: 2}, true
		}
	}
	return found, ok
}

// IsChild reports whether name is directly inside dir (both trimmed).
func IsChild(dir, name []byte) bool {
	if len(name) == 0 {
		return false
	}
	if len(dir) > 0 {
		if len(name) <= len(dir) || string(name[:len(dir)]) != string(dir) || name[len(dir)] != '/' {
			return false
		}
		name = name[len(dir)+1:]
	}
	for _, c := range name {
		if c == '/' {
			return false
		}
	}
	return len(name) > 0
}

// childPrefix returns dir as it appears in the archive in the name of an
// entry inside it, or nil if the directory has no entries.
func childPrefix(dir []byte) []byte {
	for off := 0; ; {
		e, next, err := cpio.Next(Archive, off)
		if err != cpio.OK {
			return nil
		}
		n := TrimName(e.Name)
		if len(n) > len(dir) && string(n[:len(dir)]) == string(dir) && n[len(dir)] == '/' {
			return n[:len(dir)]
		}
		off = next
	}
}

// readFileAt reads a whole small file (the /.gometal settings).
func ConfigFile(path string) []byte {
	for off := 0; ; {
		e, next, err := cpio.Next(Archive, off)
		if err != cpio.OK {
			return nil
		}
		if string(TrimName(e.Name)) == path {
			return e.Data
		}
		off = next
	}
}
