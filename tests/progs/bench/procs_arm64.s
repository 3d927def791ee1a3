//go:build linux && arm64

#include "textflag.h"

// The process figures' raw clone calls (procs.go). The child side of each
// never touches the stack: a vfork child runs on its parent's, and a
// forked Go program has one thread and a runtime it must not use. Both
// return clone's raw result (a PID, or -errno).

#define SYS_CLONE	220
#define SYS_EXECVE	221
#define SYS_EXIT_GROUP	94

// func forkExit(flags uintptr) (r uintptr)
// clone(flags); the child calls exit_group(0) at once.
TEXT ·forkExit(SB),NOSPLIT|NOFRAME,$0-16
	MOVD	flags+0(FP), R0
	MOVD	$0, R1	// the same stack (a copy of it)
	MOVD	$0, R2
	MOVD	$0, R3
	MOVD	$0, R4
	MOVD	$SYS_CLONE, R8
	SVC
	CBZ	R0, child
	MOVD	R0, r+8(FP)
	RET
child:
	MOVD	$0, R0
	MOVD	$SYS_EXIT_GROUP, R8
	SVC
	B	child

// func vforkExec(path *byte, argv, envp **byte) (r uintptr)
// clone(CLONE_VM|CLONE_VFORK|SIGCHLD); the child calls execve(path,
// argv, envp), and exit_group(127) if that fails.
TEXT ·vforkExec(SB),NOSPLIT|NOFRAME,$0-32
	MOVD	$0x4111, R0	// CLONE_VM|CLONE_VFORK|SIGCHLD
	MOVD	$0, R1	// the parent's stack: the child only reads it
	MOVD	$0, R2
	MOVD	$0, R3
	MOVD	$0, R4
	MOVD	$SYS_CLONE, R8
	SVC
	CBZ	R0, vchild
	MOVD	R0, r+24(FP)
	RET
vchild:
	MOVD	path+0(FP), R0
	MOVD	argv+8(FP), R1
	MOVD	envp+16(FP), R2
	MOVD	$SYS_EXECVE, R8
	SVC
vexit:
	MOVD	$127, R0
	MOVD	$SYS_EXIT_GROUP, R8
	SVC
	B	vexit
