// Package vfs owns the file layer: open-file descriptions (File), the one
// interface every kind of open file implements (Impl), the one way a file
// operation waits (Wait, on a sched.Queue) and is woken (Notify), and the
// file objects that belong to no device or file system: pipes, eventfds,
// timerfds and epoll.
//
// Layers (docs/ARCHITECTURE.md): the Linux ABI (package kernel: the
// syscall table, descriptor table, signals, loader) calls down into this
// package; objects that live elsewhere (the console, initramfs and tmpfs
// files, sockets) implement Impl where their state is. Nothing here
// knows system call numbers or signals.
//
// Like all kernel-side code it runs with the Go runtime never started:
// every object is a slot in a fixed array, and an Impl is always a pointer
// to such a slot, so no interface value allocates. Its logic builds on the
// host, where vfs_test.go drives it over an mm.Space in Go memory.
//
// Locking: today everything here runs under sched.KernelLock. Each object
// keeps its state in its own slot and its waiters in its own Waitable,
// and reaches other objects only through Notify, so that a per-object
// lock can replace the big lock without another rewrite: the lock guards
// the slot and its Waitable; Notify takes the watching epoll's lock after
// releasing (or while holding, in that order: object, then epoll) the
// object's (see ARCHITECTURE.md, "The file layer").
package vfs
