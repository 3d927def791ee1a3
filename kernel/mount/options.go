package mount

import "golang.org/x/sys/unix"

// options are a tmpfs's (and devtmpfs's) mount options, as
// mm/shmem.c's shmem_parse_one takes them: size=N[kmg%], nr_inodes=N[kmg],
// mode=octal, uid=N, gid=N, huge=, mpol=, inode64, noswap. Owners and
// the huge-page and NUMA policies have nothing to change here, so they
// are accepted and ignored.
type options struct {
	pages   uintptr
	inodes  int32
	perm    uint32
	hasMode bool
}

// mode is the root's permissions: mode= if given, else def.
func (o *options) mode(def uint32) uint32 {
	if o.hasMode {
		return o.perm
	}
	return def
}

// parse reads data, comma-separated options; an unknown one, or a bad
// value, is EINVAL (shmem_parse_one: "tmpfs: Unknown parameter").
// Generic options mount(8) may leave in data (rw, ro, defaults…) are
// what the flags say, and are skipped, as vfs_parse_fs_param skips the
// "source" and sb flag keys.
func (o *options) parse(data []byte, fresh bool) unix.Errno {
	for len(data) > 0 {
		var key, val []byte
		if key, val, data = nextOption(data); len(key) == 0 {
			continue
		}
		switch string(key) {
		case "size":
			v, ok := sizeValue(val, true)
			if !ok {
				return unix.EINVAL
			}
			o.pages = uintptr((v + pageSize - 1) / pageSize)
		case "nr_inodes":
			v, ok := sizeValue(val, false)
			if !ok || v > 1<<31-1 {
				return unix.EINVAL
			}
			o.inodes = int32(v)
		case "mode":
			v, ok := octal(val)
			if !ok || v > 0o7777 {
				return unix.EINVAL
			}
			o.perm, o.hasMode = uint32(v), true
		case "uid", "gid", "huge", "mpol", "inode32", "inode64", "noswap", "quota", "usrquota", "grpquota",
			"rw", "ro", "defaults", "nosuid", "suid", "nodev", "dev", "noexec", "exec", "relatime", "noatime",
			"strictatime", "sync", "async", "nodiratime", "lazytime":
		default:
			return unix.EINVAL
		}
	}
	return 0
}

// nextOption splits the first of data's comma-separated options into
// its key and value (after '=', nil with none) and returns the rest.
func nextOption(data []byte) (key, val, rest []byte) {
	n := 0
	for n < len(data) && data[n] != ',' {
		n++
	}
	opt := data[:n]
	if n < len(data) {
		n++
	}
	key = opt
	for k := range opt {
		if opt[k] == '=' {
			key, val = opt[:k], opt[k+1:]
			break
		}
	}
	return key, val, data[n:]
}

// totalPages is the machine's memory in pages, for size=N%; the Linux
// layer sets it at boot.
var totalPages uint64

// SetMemory tells the package the machine's memory (pages) for size=%.
func SetMemory(pages uint64) { totalPages = pages }

// sizeValue reads a decimal count with an optional k, m, g (and, for a
// size, %, of the machine's memory) suffix, as memparse does.
func sizeValue(b []byte, pct bool) (uint64, bool) {
	var v uint64
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if v > (1<<63)/10 {
			return 0, false
		}
		v = v*10 + uint64(b[i]-'0')
	}
	if i == 0 {
		return 0, false
	}
	switch string(b[i:]) {
	case "":
	case "k", "K":
		v <<= 10
	case "m", "M":
		v <<= 20
	case "g", "G":
		v <<= 30
	case "%":
		if !pct {
			return 0, false
		}
		v = totalPages * pageSize * v / 100
	default:
		return 0, false
	}
	return v, true
}

// octal reads an octal number.
func octal(b []byte) (uint64, bool) {
	var v uint64
	for _, c := range b {
		if c < '0' || c > '7' || v > 1<<60 {
			return 0, false
		}
		v = v*8 + uint64(c-'0')
	}
	return v, len(b) > 0
}

// ext4Options reads ext4's options (fs/ext4/super.c's ext4_param_specs):
// noload (norecovery) is kept; the data-mode, barrier, error and atime
// options a distribution's fstab passes are accepted and change nothing
// on a read-only mount; anything else is EINVAL, as ext4 answers an
// unrecognised option.
func ext4Options(data []byte) (noload bool, e unix.Errno) {
	for len(data) > 0 {
		var key []byte
		if key, _, data = nextOption(data); len(key) == 0 {
			continue
		}
		switch string(key) {
		case "noload", "norecovery":
			noload = true
		case "errors", "data", "barrier", "nobarrier", "commit", "discard", "nodiscard", "user_xattr",
			"acl", "noacl", "delalloc", "nodelalloc", "auto_da_alloc", "noauto_da_alloc",
			"rw", "ro", "defaults", "nosuid", "suid", "nodev", "dev", "noexec", "exec", "relatime", "noatime",
			"strictatime", "sync", "async", "nodiratime", "lazytime":
		default:
			return false, unix.EINVAL
		}
	}
	return noload, 0
}
