package kernel

import "gometal/kernel/cpio"

// The initramfs is the app's file system: read-only, served straight out
// of the cpio archive the bootloader left in memory (no copies).

// fsNode is one file or directory of the initramfs.
type fsNode struct {
	name  []byte // path without the leading "/" ("" for the root)
	mode  uint32
	ino   uint32
	mtime uint32
	nlink uint32
	rdev  uint32 // device nodes: major<<8 | minor, as stat's st_rdev
	data  []byte
	off   int // archive offset of the entry (0 for the synthetic root)
}

// trimName strips "./" and "/" prefixes so archive names compare with
// cleaned paths.
func trimName(n []byte) []byte {
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

func nodeOf(e *cpio.Entry, off int) fsNode {
	return fsNode{name: trimName(e.Name), mode: e.Mode, ino: e.Ino, mtime: e.Mtime, nlink: e.Nlink,
		rdev: e.RDevMajor<<8 | e.RDevMinor&0xff, data: e.Data, off: off}
}

// lookupPath finds an absolute, cleaned path. The root always exists.
func lookupPath(path []byte) (fsNode, bool) {
	p := trimName(path)
	if len(p) == 0 {
		return fsNode{mode: cpio.S_IFDIR | 0o755, ino: 1, nlink: 2}, true
	}
	var found fsNode
	ok := false
	for off := 0; ; {
		e, next, err := cpio.Next(initrd, off)
		if err != cpio.OK {
			break
		}
		if string(trimName(e.Name)) == string(p) {
			// Later entries win, as the Linux unpacker overwrites.
			found, ok = nodeOf(&e, off), true
		}
		off = next
	}
	if !ok {
		if name := childPrefix(p); name != nil {
			// A directory implied by its contents but without its own
			// record. Its name points into the archive, not into p.
			return fsNode{name: name, mode: cpio.S_IFDIR | 0o755, ino: 2, nlink: 2}, true
		}
	}
	return found, ok
}

// isChild reports whether name is directly inside dir (both trimmed).
func isChild(dir, name []byte) bool {
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
		e, next, err := cpio.Next(initrd, off)
		if err != cpio.OK {
			return nil
		}
		n := trimName(e.Name)
		if len(n) > len(dir) && string(n[:len(dir)]) == string(dir) && n[len(dir)] == '/' {
			return n[:len(dir)]
		}
		off = next
	}
}

// readFileAt reads a whole small file (the /.gometal settings).
func readConfigFile(path string) []byte {
	for off := 0; ; {
		e, next, err := cpio.Next(initrd, off)
		if err != cpio.OK {
			return nil
		}
		if string(trimName(e.Name)) == path {
			return e.Data
		}
		off = next
	}
}
