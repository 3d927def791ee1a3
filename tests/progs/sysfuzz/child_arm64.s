// The child side of the fuzz's fork and vfork (procs.go, childPlan).
//
// A forked child of a Go program has one thread and a copy of a runtime
// whose locks other threads may have held at the fork; a vfork child
// (CLONE_VM|CLONE_VFORK) even runs on its parent's memory and stack. So
// neither may run Go code: not a stack check (which may call morestack
// and the scheduler), not an allocation, not a signal handler of the
// runtime's. Both run this: from the clone's return to exit_group, only
// registers and system calls, no stack at all, reading the calls to make
// from the plan the parent wrote before the clone (its copy for fork,
// the parent's own for vfork, whose thread waits until the child exits
// or execs).

#include "textflag.h"

#define SYS_exit_group	94
#define SYS_rt_sigaction	134
#define SYS_rt_sigprocmask	135
#define SYS_getpid	172
#define SYS_clone	220
#define SIG_SETMASK	2

// childPlan's layout; procs.go checks it against the Go struct.
#define P_FLAGS	0
#define P_N	8
#define P_CODE	16
#define P_TLS	24
#define P_MASK	32
#define P_ALL	40
#define P_OLD	48
#define P_PIDFD	56
#define P_CTID	64
#define P_DFL	72
#define P_CALLS	152
#define CALL_SIZE	64

// selfPID in procs.go: an argument with this value is the child's PID.
#define SELF	$0x5e1f5e1f5e1f5e1f

// func forkRun(p *childPlan) uintptr
//
// clone(p.Flags) with every signal blocked in the calling thread until
// the clone has returned (so that none of the runtime's handlers runs in
// the child before it resets them), as the runtime's own fork for
// os/exec does. The parent gets clone's raw result (a PID, or -errno);
// the child runs the plan and never returns.
TEXT ·forkRun(SB),NOSPLIT|NOFRAME,$0-16
	MOVD	p+0(FP), R19
	MOVD	$SIG_SETMASK, R0
	ADD	$P_ALL, R19, R1
	ADD	$P_OLD, R19, R2
	MOVD	$8, R3
	MOVD	$SYS_rt_sigprocmask, R8
	SVC
	MOVD	P_FLAGS(R19), R0
	MOVD	$0, R1		// the same stack: the child uses none
	ADD	$P_PIDFD, R19, R2	// CLONE_PIDFD, CLONE_PARENT_SETTID
	MOVD	P_TLS(R19), R3	// CLONE_SETTLS
	ADD	$P_CTID, R19, R4	// CLONE_CHILD_SETTID, CLONE_CHILD_CLEARTID
	MOVD	$SYS_clone, R8
	SVC
	CBZ	R0, child
	MOVD	R0, R20
	MOVD	$SIG_SETMASK, R0
	ADD	$P_OLD, R19, R1
	MOVD	$0, R2
	MOVD	$8, R3
	MOVD	$SYS_rt_sigprocmask, R8
	SVC
	MOVD	R20, ret+8(FP)
	RET

child:
	// Every handler back to SIG_DFL (SIGKILL's and SIGSTOP's answer
	// EINVAL): the runtime's handlers must never run here.
	MOVD	$1, R21
sigs:
	MOVD	R21, R0
	ADD	$P_DFL, R19, R1
	MOVD	$0, R2
	MOVD	$8, R3
	MOVD	$SYS_rt_sigaction, R8
	SVC
	ADD	$1, R21
	CMP	$65, R21
	BNE	sigs
	MOVD	$SYS_getpid, R8
	SVC
	MOVD	R0, R22
	// The child's own mask, then the calls.
	MOVD	$SIG_SETMASK, R0
	ADD	$P_MASK, R19, R1
	MOVD	$0, R2
	MOVD	$8, R3
	MOVD	$SYS_rt_sigprocmask, R8
	SVC
	MOVD	P_N(R19), R23
	ADD	$P_CALLS, R19, R24
	MOVD	SELF, R25
calls:
	CBZ	R23, done
	MOVD	8(R24), R0
	CMP	R25, R0
	CSEL	EQ, R22, R0, R0
	MOVD	16(R24), R1
	CMP	R25, R1
	CSEL	EQ, R22, R1, R1
	MOVD	24(R24), R2
	CMP	R25, R2
	CSEL	EQ, R22, R2, R2
	MOVD	32(R24), R3
	CMP	R25, R3
	CSEL	EQ, R22, R3, R3
	MOVD	40(R24), R4
	CMP	R25, R4
	CSEL	EQ, R22, R4, R4
	MOVD	48(R24), R5
	CMP	R25, R5
	CSEL	EQ, R22, R5, R5
	MOVD	0(R24), R8
	SVC
	// A grandchild (a clone in the plan) goes on from here too; its PID
	// for later calls is its own.
	CBNZ	R0, next
	CMP	$SYS_clone, R8
	BNE	next
	MOVD	$SYS_getpid, R8
	SVC
	MOVD	R0, R22
next:
	ADD	$CALL_SIZE, R24
	SUB	$1, R23
	B	calls
done:
	MOVD	P_CODE(R19), R0
	MOVD	$SYS_exit_group, R8
	SVC
	B	done
