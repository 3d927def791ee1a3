package mount

import (
	"github.com/gometal/gometal/kernel/fs"
	"github.com/gometal/gometal/kernel/procfs"
	"github.com/gometal/gometal/kernel/tty"

	"golang.org/x/sys/unix"
)

// devpts (Linux's fs/devpts/inode.c): a directory of the pty slaves'
// nodes, /dev/pts/N (char 136:N) for each open pair, and ptmx (5:2),
// which opens a new pair like /dev/ptmx. One instance here: every mount
// shows it, as Linux's single devpts did before 4.7; newinstance is
// accepted and changes nothing (one set of ptys in a single mount
// namespace). Its options are Linux's (parse_mount_options): uid=, gid=
// and mode= for new slave nodes, ptmxmode= for ptmx, max=, newinstance.

// ptsMaxLimit is NR_UNIX98_PTY_MAX, max='s default: no max= shown.
const ptsMaxLimit = 1 << 20

// devptsDefaultPtmxMode is DEVPTS_DEFAULT_PTMX_MODE: ptmx inside devpts
// is 000 unless ptmxmode= says otherwise (the system's /dev/ptmx is the
// node meant to be used).
const devptsDefaultPtmxMode = 0o000

var (
	devpts      uint8 // the instance, 0 before the first mount
	ptsUID      uint32
	ptsUIDSet   bool
	ptsPtmxMode uint32 = devptsDefaultPtmxMode
	ptsMax             = int64(ptsMaxLimit)
	ptsNameBuf  [12]byte
	devptsRoot  int32
)

// devptsInstance parses devpts' options and makes (or returns) its
// instance, with ptmx in it and a node for each pair already open.
func devptsInstance(data []byte) (uint8, unix.Errno) {
	if e := parseDevpts(data); e != 0 {
		return 0, e
	}
	if devpts != 0 {
		if i := ptmxNode(); i >= 0 {
			fs.Inodes[i].Mode = unix.S_IFCHR | ptsPtmxMode
		}
		return devpts, 0
	}
	s, e := fs.NewSuper(fs.TypeDevpts, 0o755)
	if e != 0 {
		return 0, e
	}
	root := fs.Supers[s].Root
	if e := fs.MakeDev(root, []byte("ptmx"), unix.S_IFCHR|ptsPtmxMode, tty.PtmxRdev); e != 0 {
		return 0, e
	}
	devpts, devptsRoot = s, root
	for n := int32(0); n < tty.MaxPtys; n++ {
		if tty.Used(n) {
			PtsAdded(n)
		}
	}
	return s, 0
}

// ptmxNode is devpts' ptmx inode.
func ptmxNode() int32 {
	return fs.LookupIn(devptsRoot, []byte("ptmx"))
}

// parseDevpts reads devpts' options (parse_mount_options): an unknown
// one is EINVAL, as Linux's fs_parse answers.
func parseDevpts(data []byte) unix.Errno {
	for len(data) > 0 {
		var key, val []byte
		if key, val, data = nextOption(data); len(key) == 0 {
			continue
		}
		switch string(key) {
		case "uid", "gid", "max":
			v, ok := decimal(val)
			if !ok {
				return unix.EINVAL
			}
			switch string(key) {
			case "uid":
				ptsUID, ptsUIDSet = uint32(v), true
			case "gid":
				tty.PtsGid, tty.PtsGidSet = uint32(v), true
			default:
				ptsMax = int64(min(v, ptsMaxLimit))
			}
		case "mode", "ptmxmode":
			v, ok := octal(val)
			if !ok || v > 0o777 {
				return unix.EINVAL
			}
			if string(key) == "mode" {
				tty.PtsMode = uint32(v)
			} else {
				ptsPtmxMode = uint32(v)
			}
		case "newinstance", "rw", "ro", "defaults", "nosuid", "suid", "nodev", "dev", "noexec", "exec",
			"relatime", "noatime", "strictatime", "sync", "async", "nodiratime", "lazytime":
		default:
			return unix.EINVAL
		}
	}
	return 0
}

// decimal reads an unsigned decimal number.
func decimal(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 10 {
		return 0, false
	}
	v := uint64(0)
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// devptsOpts writes devpts' options as devpts_show_options does.
func devptsOpts(o *procfs.Buf) {
	if ptsUIDSet {
		o.Str(",uid=").Udec(uint64(ptsUID))
	}
	if tty.PtsGidSet {
		o.Str(",gid=").Udec(uint64(tty.PtsGid))
	}
	o.Str(",mode=").Oct(uint64(tty.PtsMode), 3)
	o.Str(",ptmxmode=").Oct(uint64(ptsPtmxMode), 3)
	if ptsMax < ptsMaxLimit {
		o.Str(",max=").Dec(ptsMax)
	}
}

// ptsName writes pair n's name into ptsNameBuf.
func ptsName(n int32) []byte {
	return procfs.Decimal(ptsNameBuf[:], int64(n))
}

// PtsAdded is tty.Added: pair n's node appears (devpts_pty_new), with
// devpts' mode.
func PtsAdded(n int32) {
	if devpts == 0 {
		return
	}
	_ = fs.MakeDev(devptsRoot, ptsName(n), unix.S_IFCHR|tty.PtsMode, tty.SlaveRdev(n))
}

// PtsRemoved is tty.Removed: pair n went, and its node (devpts_pty_kill).
func PtsRemoved(n int32) {
	if devpts == 0 {
		return
	}
	fs.RemoveDev(devptsRoot, ptsName(n))
}
