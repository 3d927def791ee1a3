package proc

// Exit, orphans and waiting (Linux's kernel/exit.c: do_exit,
// forget_original_parent, do_wait).

// Wait statuses as the <sys/wait.h> macros read them.

// Exited is the status of a process that exited with code
// (WIFEXITED, WEXITSTATUS).
func Exited(code int) int32 { return int32(code&0xff) << 8 }

// Signaled is the status of a process a signal ended (WIFSIGNALED,
// WTERMSIG; WCOREDUMP with core).
func Signaled(sig int, core bool) int32 {
	s := int32(sig & 0x7f)
	if core {
		s |= 0x80
	}
	return s
}

// Stopped is the status of a process sig stopped (WIFSTOPPED,
// WSTOPSIG); Continued that of one SIGCONT continued (WIFCONTINUED).
func Stopped(sig int) int32 { return int32(sig&0xff)<<8 | 0x7f }

const Continued = 0xffff

// sigCHLD is SIGCHLD: a child whose exit signal is another one (or
// none) is a "clone" child, which only __WCLONE or __WALL waits for.
const sigCHLD = 17

// Exit makes the live process in slot i a zombie with wait status
// status, and gives its children to their new reaper (Reaper). It
// returns that reaper, whom the caller tells of any zombie among them.
func Exit(i int32, status int32) (reaper int32) {
	p := &Procs[i]
	p.State = Zombie
	p.Status = status
	p.Threads = 0
	reaper = Reaper(i)
	for c := range Procs {
		if Procs[c].State != Free && Procs[c].Parent == i {
			Procs[c].Parent = reaper
		}
	}
	return reaper
}

// Reaper is who adopts the children of the process in slot i when it
// exits: its nearest live ancestor that is a subreaper
// (PR_SET_CHILD_SUBREAPER), else PID 1 (find_new_reaper). PID 1's own
// children have no reaper (NoParent): its exit ends the run.
func Reaper(i int32) int32 {
	// lab:wait begin
	if i == Init {
		return NoParent
	}
	for a := Procs[i].Parent; a != NoParent; a = Procs[a].Parent {
		if a != i && Procs[a].State == Live && Procs[a].Subreaper {
			return a
		}
	}
	return Init
	// lab:wait stub
	// // TODO(lab wait): walk up from Procs[i].Parent to the first live
	// // ancestor marked Subreaper; none: Init. Init's own reaper is
	// // NoParent.
	// return Init
	// lab:wait end
}

// Reap frees the zombie in slot i once its parent has collected it.
func Reap(i int32) {
	Procs[i] = Process{}
}

// Which processes a wait names (waitid's idtype; wait4's pid turned
// into one, Select).
type Which uint8

const (
	WaitAny  Which = iota // P_ALL, wait4(-1)
	WaitPID               // P_PID, wait4(pid > 0)
	WaitPGID              // P_PGID, wait4(0) and wait4(pid < -1)
)

// Which children a wait considers by their exit signal (__WCLONE,
// __WALL: eligible_child in kernel/exit.c).
type CloneSel uint8

const (
	NormalChildren CloneSel = iota // exit signal SIGCHLD
	CloneChildren                  // __WCLONE: any other exit signal
	AllChildren                    // __WALL
)

// Select turns wait4's pid into what it names, for a caller in
// process group pgid.
func Select(pid, pgid int32) (Which, int32) {
	switch {
	case pid == -1:
		return WaitAny, 0
	case pid == 0:
		return WaitPGID, pgid
	case pid < 0:
		return WaitPGID, -pid
	}
	return WaitPID, pid
}

// eligible says whether the process in slot c is one the wait names.
func eligible(c int32, which Which, id int32, sel CloneSel) bool {
	// lab:wait begin
	p := &Procs[c]
	switch which {
	case WaitPID:
		if p.PID != id {
			return false
		}
	case WaitPGID:
		if p.PGID != id {
			return false
		}
	}
	if sel == AllChildren {
		return true
	}
	return (p.ExitSignal != sigCHLD) == (sel == CloneChildren)
	// lab:wait stub
	// // TODO(lab wait): does the wait name the process in slot c? which
	// // and id say by what (any, its PID, its PGID); sel by its exit
	// // signal (SIGCHLD: a normal child; another: a clone child).
	// _ = sigCHLD
	// return false
	// lab:wait end
}

// Eligible says whether the process in slot c is a child of parent that
// the wait names.
func Eligible(parent, c int32, which Which, id int32, sel CloneSel) bool {
	return Procs[c].State != Free && Procs[c].Parent == parent && eligible(c, which, id, sel)
}

// FindZombie looks through parent's children for those the wait names:
// it returns the first that is a zombie (-1 when none is yet) and
// whether any child matched at all (none: the wait answers ECHILD).
func FindZombie(parent int32, which Which, id int32, sel CloneSel) (zombie int32, matched bool) {
	// lab:wait begin
	zombie = -1
	for c := range Procs {
		ci := int32(c)
		if Procs[c].State == Free || Procs[c].Parent != parent || !eligible(ci, which, id, sel) {
			continue
		}
		matched = true
		if Procs[c].State == Zombie {
			return ci, true
		}
	}
	return zombie, matched
	// lab:wait stub
	// // TODO(lab wait): look through the table for parent's children
	// // that the wait names (eligible).
	// return -1, false
	// lab:wait end
}
