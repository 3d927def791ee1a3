// Package linux is the Linux personality the app sees, over the core
// (package kernel): the syscall table, split by area into sys_*.go files
// (mm, signal, futex, epoll, eventfd, timerfd, pipe, fs, time, proc,
// socket); the descriptor table; what Linux keeps per thread (thread.go);
// signals and signal frames; faults from the app as demand paging or
// signals (fault_arm64.go); the ELF loader and initial stack; the vDSO;
// and the /dev memory devices. The objects behind descriptors are the
// file-object packages' (vfs, fs, socket, tty). Install hands the core
// its entry points (kernel.OS); boot calls it before kernel.Start.
//
// Kernel-side rules apply (docs/ARCHITECTURE.md): no heap, no package
// initializers, no goroutines.
package linux
