// Package cpio reads cpio "newc" archives (magic 070701, and 070702 with
// the checksum ignored) in place, as the Linux initramfs format defines
// them (Documentation/driver-api/early-userspace/buffer-format.rst).
package cpio

// Err is a parse result.
type Err uint8

const (
	OK Err = iota
	ErrEnd
	ErrTruncated
	ErrMagic
	ErrHex
	ErrName
	ErrNotFound
)

func (e Err) String() string {
	switch e {
	case OK:
		return "ok"
	case ErrEnd:
		return "end of archive"
	case ErrTruncated:
		return "truncated cpio archive"
	case ErrMagic:
		return "bad cpio magic (want newc 070701)"
	case ErrHex:
		return "bad hex field in cpio header"
	case ErrName:
		return "bad cpio file name"
	case ErrNotFound:
		return "no such file in the archive"
	}
	return "cpio error"
}

// File mode bits (stat.h).
const (
	S_IFMT  = 0o170000
	S_IFREG = 0o100000
	S_IFDIR = 0o040000
	S_IFLNK = 0o120000
)

const headerLen = 110

// Entry is one archive member; Name and Data point into the archive.
type Entry struct {
	Name                       []byte
	Ino, Mode, UID, GID, Nlink uint32
	Mtime                      uint32
	DevMajor, DevMinor         uint32
	RDevMajor, RDevMinor       uint32
	Data                       []byte
}

func hex8(b []byte) (uint32, bool) {
	var v uint32
	for _, c := range b[:8] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		v = v<<4 | uint32(d)
	}
	return v, true
}

func align4(n int) int { return (n + 3) &^ 3 }

// Next parses the entry at off and returns it with the offset of the next
// one. At a trailer it skips zero padding and continues with a following
// concatenated archive if there is one, else returns ErrEnd.
func Next(a []byte, off int) (Entry, int, Err) {
	var e Entry
	for {
		// Skip the zero padding allowed between concatenated archives.
		for off >= 0 && off+4 <= len(a) && a[off] == 0 && a[off+1] == 0 && a[off+2] == 0 && a[off+3] == 0 {
			off += 4
		}
		if off < 0 || off >= len(a) {
			return e, off, ErrEnd
		}
		if len(a)-off < headerLen {
			return e, off, ErrTruncated
		}
		h := a[off : off+headerLen]
		if string(h[:6]) != "070701" && string(h[:6]) != "070702" {
			return e, off, ErrMagic
		}
		var f [13]uint32
		for i := range f {
			v, ok := hex8(h[6+8*i:])
			if !ok {
				return e, off, ErrHex
			}
			f[i] = v
		}
		e.Ino, e.Mode, e.UID, e.GID, e.Nlink, e.Mtime = f[0], f[1], f[2], f[3], f[4], f[5]
		filesize := int(f[6])
		e.DevMajor, e.DevMinor, e.RDevMajor, e.RDevMinor = f[7], f[8], f[9], f[10]
		namesize := int(f[11])
		if namesize == 0 || namesize > len(a) {
			return e, off, ErrName
		}
		nameStart := off + headerLen
		if nameStart+namesize > len(a) {
			return e, off, ErrTruncated
		}
		if a[nameStart+namesize-1] != 0 {
			return e, off, ErrName
		}
		e.Name = a[nameStart : nameStart+namesize-1]
		dataStart := off + align4(headerLen+namesize)
		if filesize > len(a) || dataStart > len(a) || dataStart+filesize > len(a) {
			return e, off, ErrTruncated
		}
		e.Data = a[dataStart : dataStart+filesize]
		next := dataStart + align4(filesize)
		if next > len(a) {
			next = len(a)
		}
		if string(e.Name) == "TRAILER!!!" {
			off = next
			continue
		}
		return e, next, OK
	}
}

func trim(p string) string {
	for {
		switch {
		case len(p) >= 2 && p[0] == '.' && p[1] == '/':
			p = p[2:]
		case len(p) >= 1 && p[0] == '/':
			p = p[1:]
		default:
			return p
		}
	}
}

// TrimName strips "./" and "/" prefixes from an entry's name, and makes
// "." (the archive's root) empty, so names compare as paths below the
// root.
func TrimName(p []byte) []byte {
	for {
		switch {
		case len(p) >= 2 && p[0] == '.' && p[1] == '/':
			p = p[2:]
		case len(p) >= 1 && p[0] == '/':
			p = p[1:]
		case len(p) == 1 && p[0] == '.':
			return p[:0]
		default:
			return p
		}
	}
}

// Lookup finds path ("/init", "init" and "./init" are the same); the last
// entry of that name wins, as the kernel's unpacker overwrites.
func Lookup(a []byte, path string) (Entry, Err) {
	want := trim(path)
	var found Entry
	res := ErrNotFound
	for off := 0; ; {
		e, next, err := Next(a, off)
		if err == ErrEnd {
			return found, res
		}
		if err != OK {
			return found, err
		}
		if string(TrimName(e.Name)) == want {
			found, res = e, OK
		}
		off = next
	}
}
