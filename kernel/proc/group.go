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
// it has left members in). The new session has no controlling terminal
// (ksys_setsid's proc_clear_tty).
func Setsid(caller int32) (int32, unix.Errno) {
	p := &Procs[caller]
	for i := range Procs {
		if Procs[i].State != Free && Procs[i].PGID == p.PID {
			return 0, unix.EPERM
		}
	}
	p.SID, p.PGID = p.PID, p.PID
	p.CTTY = false
	return p.PID, 0
}

// Leader says whether the process in slot i leads its session. A PID
// is never given twice (sched's TIDs only grow), so a process whose
// session ID is its PID made that session (Linux's signal->leader).
func Leader(i int32) bool { return Procs[i].SID == Procs[i].PID }

// SessionOfGroup is the session TIOCSPGRP checks a process group ID
// against (Linux's tiocspgrp: find_vpid, then session_of_pgrp): that of
// a process in the group, else of the process with that PID (for gdb,
// says Linux). ok is false when nothing has the ID (ESRCH); an ID only
// a session has left behind (its leader gone, its members in other
// groups) names no session, which matches no caller's (EPERM). Zombies
// count: Linux keeps their IDs until they are reaped. 0 is no ID
// (Linux has no struct pid for it).
func SessionOfGroup(id int32) (sid int32, ok bool) {
	if id <= 0 {
		return 0, false
	}
	byPID := int32(-1)
	asSession := false
	for i := range Procs {
		p := &Procs[i]
		switch {
		case p.State == Free:
		case p.PGID == id:
			return p.SID, true
		case p.PID == id:
			byPID = int32(i)
		case p.SID == id:
			asSession = true
		}
	}
	switch {
	case byPID >= 0:
		return Procs[byPID].SID, true
	case asSession:
		return -1, true
	}
	return 0, false
}

// OrphanedGroup says whether process group pgid is (or, once the
// process in slot ignore has gone, will be) orphaned: no live member
// has a parent in another group of its session, which is what would
// stop and continue it (POSIX; Linux's will_become_orphaned_pgrp). A
// parent that is PID 1, or none (PID 1's own), connects nothing: init
// does no job control. ignore < 0 ignores nobody.
func OrphanedGroup(pgid, ignore int32) bool {
	for i := range Procs {
		p := &Procs[i]
		if p.State != Live || p.PGID != pgid || int32(i) == ignore || p.Parent == NoParent || p.Parent == Init {
			continue
		}
		if par := &Procs[p.Parent]; par.PGID != pgid && par.SID == p.SID {
			return false
		}
	}
	return true
}

// ClearCTTY takes the controlling terminal from every process of
// session sid (Linux's session_clear_tty), when the console leaves it.
func ClearCTTY(sid int32) {
	for i := range Procs {
		if Procs[i].State != Free && Procs[i].SID == sid {
			Procs[i].CTTY = false
		}
	}
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
