package proc

import "golang.org/x/sys/unix"

// Credentials (Linux's struct cred, kernel/sys.c and kernel/groups.c):
// the real, effective, saved and file-system user and group IDs and the
// supplementary groups. gometal starts everything as root; a process
// with effective UID 0 may set any ID (CAP_SETUID, CAP_SETGID), another
// only to one it has. Processes share none: fork copies them.
//
// They are kept and reported; the file system still lets every process
// do what root may (its files carry no owner checks yet).

// MaxGroups bounds the supplementary groups a process keeps (Linux's
// NGROUPS_MAX is 65536; more than this is EINVAL here).
const MaxGroups = 32

// IDs is one kind of ID (user or group): real, effective, saved and
// file-system.
type IDs struct{ R, E, S, FS uint32 }

// Cred is one process's credentials.
type Cred struct {
	User, Group IDs
	NGroups     int32
	Groups      [MaxGroups]uint32
}

// noChange is the ID argument that leaves an ID as it is (-1).
const noChange = ^uint32(0)

func (c *Cred) privileged() bool { return c.User.E == 0 }

// has says whether v is one of the real, effective and saved IDs.
func (d *IDs) has(v uint32) bool { return v == d.R || v == d.E || v == d.S }

// Set is setuid(2) or setgid(2) on d: with privilege all three, else
// the effective ID to the real or saved one.
func (d *IDs) Set(v uint32, privileged bool) unix.Errno {
	switch {
	case v == noChange:
		return unix.EINVAL
	case privileged:
		d.R, d.E, d.S = v, v, v
	case v == d.R || v == d.S:
		d.E = v
	default:
		return unix.EPERM
	}
	d.FS = d.E
	return 0
}

// SetRES is setresuid(2) or setresgid(2): each -1 stays; without
// privilege each may only become one of the current three.
func (d *IDs) SetRES(r, e, s uint32, privileged bool) unix.Errno {
	if !privileged {
		for _, v := range [...]uint32{r, e, s} {
			if v != noChange && !d.has(v) {
				return unix.EPERM
			}
		}
	}
	set(&d.R, r)
	set(&d.E, e)
	set(&d.S, s)
	d.FS = d.E
	return 0
}

// SetRE is setreuid(2) or setregid(2): the saved ID follows the
// effective one when the real one is set or the effective one becomes
// other than the real one; without privilege the real ID may become the
// effective one, the effective one any of the three.
func (d *IDs) SetRE(r, e uint32, privileged bool) unix.Errno {
	s := uint32(noChange)
	if r != noChange || e != noChange && e != d.R {
		s = d.E
		if e != noChange {
			s = e
		}
	}
	if !privileged && (r != noChange && r != d.R && r != d.E || e != noChange && !d.has(e)) {
		return unix.EPERM
	}
	return d.SetRES(r, e, s, true) // allowed: checked above
}

// SetFS is setfsuid(2) or setfsgid(2): it answers the old ID whatever
// happens; the new one must be one the process has, or it privileged.
func (d *IDs) SetFS(v uint32, privileged bool) uint32 {
	old := d.FS
	if v != noChange && (privileged || d.has(v) || v == d.FS) {
		d.FS = v
	}
	return old
}

// SetGroups is setgroups(2): with privilege only.
func (c *Cred) SetGroups(g []uint32) unix.Errno {
	if !c.privileged() {
		return unix.EPERM
	}
	if len(g) > MaxGroups {
		return unix.EINVAL
	}
	c.NGroups = int32(copy(c.Groups[:], g))
	return 0
}

// Has says whether v is one of the real, effective and saved IDs.
func (d *IDs) Has(v uint32) bool { return d.has(v) }

// Privileged says whether the process may set any ID.
func (c *Cred) Privileged() bool { return c.privileged() }

func set(p *uint32, v uint32) {
	if v != noChange {
		*p = v
	}
}

// SameUser says whether c's real, effective and saved user and group
// IDs all equal other's real user and group ID (the test prlimit64 and
// /proc's ptrace-mode checks make of an unprivileged caller:
// check_prlimit_permission).
func (c *Cred) SameUser(other *Cred) bool {
	u, g := other.User.R, other.Group.R
	return c.User.R == u && c.User.E == u && c.User.S == u && c.Group.R == g && c.Group.E == g && c.Group.S == g
}
