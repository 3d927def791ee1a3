package fs

// CleanPath writes the absolute, cleaned form of p (relative paths are
// taken from base, which must be absolute) into dst and returns its
// length, or -1 if it does not fit. "." and ".." and repeated slashes are
// resolved lexically, as the initramfs has no symlinked directories.
func CleanPath(dst []byte, base, p []byte) int {
	n := 0
	push := func(comp []byte) bool {
		switch string(comp) {
		case "", ".":
			return true
		case "..":
			for n > 0 && dst[n-1] != '/' {
				n--
			}
			if n > 0 {
				n-- // drop the slash too
			}
			return true
		}
		if n+1+len(comp) > len(dst) {
			return false
		}
		dst[n] = '/'
		n++
		n += copy(dst[n:], comp)
		return true
	}
	walk := func(s []byte) bool {
		for i := 0; i < len(s); {
			j := i
			for j < len(s) && s[j] != '/' {
				j++
			}
			if !push(s[i:j]) {
				return false
			}
			i = j + 1
		}
		return true
	}
	if len(p) == 0 || p[0] != '/' {
		if !walk(base) {
			return -1
		}
	}
	if !walk(p) {
		return -1
	}
	if n == 0 {
		if len(dst) == 0 {
			return -1
		}
		dst[0] = '/'
		n = 1
	}
	return n
}
