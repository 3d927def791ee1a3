package proc

// MaxProcs is the size of the process table: live processes and
// zombies not yet reaped. A clone that would pass it answers EAGAIN,
// as Linux does at RLIMIT_NPROC or pid_max (kernel/fork.c).
const MaxProcs = 64

// State is a process's life-cycle state.
type State uint8

const (
	Free   State = iota // slot unused
	Live                // has at least one thread
	Zombie              // every thread exited; waits for its parent to reap it
)

// NoParent is the parent of PID 1, whose parent is the kernel (getppid
// answers 0 there, as Linux does for init).
const NoParent = -1

// Process is one process: what Linux's signal_struct and the task
// group's leader keep of identity and life. The indices of the table
// are stable for a process's life; links between processes are indices.
type Process struct {
	PID  int32 // the thread group ID: its first thread's TID
	PGID int32 // process group
	SID  int32 // session
	// Parent is the slot of the process that waits for this one
	// (NoParent for PID 1). An orphan's parent becomes its reaper
	// (Reparent).
	Parent int32
	State  State
	// Threads counts the threads that have not exited.
	Threads int32
	// ExitSignal is the signal the parent gets when this process
	// exits: clone's low byte, SIGCHLD for fork (0: none).
	ExitSignal int32
	// Status is the wait status once a zombie (Exited, Signaled).
	Status int32
	// Execed: the process has called execve since it was forked; its
	// parent may then no longer change its process group (EACCES).
	Execed bool
	// Subreaper: PR_SET_CHILD_SUBREAPER; orphaned descendants come here
	// instead of to PID 1.
	Subreaper bool
	// CTTY: the console is the process's controlling terminal (Linux's
	// signal->tty; gometal has one terminal). Inherited by fork, cleared
	// by setsid; the Linux layer sets and clears it with the console's
	// session (kernel/linux/ctty_arm64.go). A process that has it is in
	// the console's session.
	CTTY bool
	// Comm is the name /proc and the trace show: the executable's base
	// name, at most 15 bytes (TASK_COMM_LEN).
	Comm [16]byte
	// Limits are the process's resource limits (rlimit.go).
	Limits [NumLimits]Limit

	// Cred is the process's credentials (cred.go), copied by fork.
	Cred Cred

	// What the process shares with others, each a slot in its own
	// table with a reference count (ARCHITECTURE.md): its address space
	// (mm.Spaces), descriptor table (FDTables), file-system context
	// (FSContexts) and signal handlers (the Linux layer's table).
	MM, Files, FS, SigHand int32
}

// Procs is the process table.
var Procs [MaxProcs]Process

// Init is PID 1's slot: the first process made is always there.
const Init = 0

// New takes a free slot for a process whose first thread has TID pid,
// as a child of parent (NoParent for PID 1), in its parent's process
// group and session. It returns the slot, or -1 when the table is full.
func New(pid, parent int32) int32 {
	return NewFrom(pid, parent, parent)
}

// NewFrom is New for a process made by process from whose parent is
// parent (clone's CLONE_PARENT: the caller's own parent): its group,
// session, terminal, name and credentials are from's, as copy_process
// copies them from the calling task, whoever becomes the parent.
func NewFrom(pid, parent, from int32) int32 {
	for i := range Procs {
		p := &Procs[i]
		if p.State != Free {
			continue
		}
		*p = Process{PID: pid, Parent: parent, State: Live}
		if from != NoParent {
			pp := &Procs[from]
			p.PGID, p.SID, p.CTTY, p.Comm, p.Cred = pp.PGID, pp.SID, pp.CTTY, pp.Comm, pp.Cred
			p.Limits = pp.Limits
		} else {
			initLimits(&p.Limits)
		}
		return int32(i)
	}
	return -1
}

// Count is how many slots are in use (live processes and zombies).
func Count() int {
	n := 0
	for i := range Procs {
		if Procs[i].State != Free {
			n++
		}
	}
	return n
}

// ByPID returns the slot of the live or zombie process pid, or -1.
func ByPID(pid int32) int32 {
	if pid <= 0 {
		return -1
	}
	for i := range Procs {
		if Procs[i].State != Free && Procs[i].PID == pid {
			return int32(i)
		}
	}
	return -1
}

// PPID is what getppid answers for the process in slot i.
func PPID(i int32) int32 {
	if par := Procs[i].Parent; par != NoParent {
		return Procs[par].PID
	}
	return 0
}

// SetComm sets the process's name from an executable's path: the part
// after the last '/', cut to 15 bytes, as Linux's __set_task_comm.
func SetComm(i int32, path []byte) {
	for j := len(path) - 1; j >= 0; j-- {
		if path[j] == '/' {
			path = path[j+1:]
			break
		}
	}
	c := &Procs[i].Comm
	*c = [16]byte{}
	copy(c[:15], path)
}
