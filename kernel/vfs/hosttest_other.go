//go:build !arm64

package vfs

// Reset empties every table of the file layer: the starting state of a
// host test of code built on it (sockets, the file system). Host builds
// only; the kernel's tables start empty.
func Reset() {
	Files = [MaxFiles]File{}
	pipes = [MaxPipes]Pipe{}
	epolls = [MaxEpolls]Epoll{}
	interests = [MaxInterests]interest{}
	eventfds = [MaxFiles]Eventfd{}
	timerfds = [MaxTimerfds]Timerfd{}
	rightsSets = [maxRightsSets]rightsSet{}
	credMarks = [maxCredMarks]credMark{}
	Stats = counters{}
}
