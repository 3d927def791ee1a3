package proc

import "golang.org/x/sys/unix"

// Process groups and sessions, with Linux's checks (kernel/sys.c:
// setpgid, ksys_setsid; setpgid(2), setsid(2)).

// Setpgid moves the process pid (0: the caller, in slot caller) into
// process group pgid (0: its own PID), which must exist in the caller's
// session unless it is the target's own PID.
func Setpgid(caller, pid, pgid int32) unix.Errno {
	if pgid < 0 {
		return unix.EINVAL
	}
	t := caller
	if pid != 0 && pid != Procs[caller].PID {
		t = ByPID(pid)
		if t < 0 || Procs[t].Parent != caller {
			return unix.ESRCH
		}
		if Procs[t].SID != Procs[caller].SID {
			return unix.EPERM
		}
		if Procs[t].Execed {
			return unix.EACCES
		}
	}
	tp := &Procs[t]
	if tp.State != Live {
		return unix.ESRCH
	}
	if pgid == 0 {
		pgid = tp.PID
	}
	if tp.SID == tp.PID { // a session leader stays in its group
		return unix.EPERM
	}
	if pgid != tp.PID && !groupInSession(pgid, Procs[caller].SID) {
		return unix.EPERM
	}
	tp.PGID = pgid
	return 0
}

// groupInSession says whether a process of group pgid is in session sid.
func groupInSession(pgid, sid int32) bool {
	for i := range Procs {
		if Procs[i].State != Free && Procs[i].PGID == pgid && Procs[i].SID == sid {
			return true
		}
	}
	return false
}

// Setsid makes the caller the leader of a new session and of a new
// process group, both its PID, and returns it; EPERM if a process group
// with that ID exists already (the caller leads one, or leads a group
// it has left members in).
func Setsid(caller int32) (int32, unix.Errno) {
	p := &Procs[caller]
	for i := range Procs {
		if Procs[i].State != Free && Procs[i].PGID == p.PID {
			return 0, unix.EPERM
		}
	}
	p.SID, p.PGID = p.PID, p.PID
	return p.PID, 0
}

// GroupExists says whether any live process is in group pgid (kill to a
// group that has none answers ESRCH).
func GroupExists(pgid int32) bool {
	for i := range Procs {
		if Procs[i].State == Live && Procs[i].PGID == pgid {
			return true
		}
	}
	return false
}
