// Package procfs owns /proc's tree (proc(5)): which names it holds — a
// directory per process, named by its PID, with its files; /proc/self;
// the system-wide files — and keeping them in step with the process
// table and each process's descriptors. The names and inodes live in
// kernel/fs as synthetic inodes (fs.Synth), in a directory tree mounted
// on /proc (fs.Mount); what each file says is made when it is read, by
// the layer that knows processes (kernel/linux's procfs_arm64.go), from
// the kinds this package gives each inode. Out holds such a file's
// bytes while they are made. Host-tested: go test ./kernel/procfs.
package procfs
