// mounts checks mount(2), umount2(2), statfs(2) and the mount table as a
// program sees them (mount(2), proc(5)), each check printing "ok NAME"
// or "FAIL NAME: why", then "mounts ok" if all passed. It runs as init,
// with /proc mounted (the kernel mounts it at boot, as a distribution's
// initramfs does first; on Linux the program mounts it itself).
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"

	"github.com/gometal/gometal/tests/progs/internal/guest"

	"golang.org/x/sys/unix"
)

var check = guest.Checkf

// read is what a file holds, or the error.
var read = guest.ReadFile

// mountLine is /proc/mounts's line for mountpoint dir, or "".
func mountLine(dir string) string {
	line := ""
	for _, l := range strings.Split(read("/proc/mounts"), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[1] == dir {
			line = l // the last: the topmost of a stack
		}
	}
	return line
}

func dev(path string) uint64 {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0
	}
	return st.Dev
}

// jailed runs chrooted in /tmp/jail (main's chroot check): "/" and
// ".." stop at the jail, and getcwd answers inside it.
func jailed() {
	ents, _ := os.ReadDir("/../..")
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	wd, _ := os.Getwd()
	_, err := os.Stat("/proc/self")
	fmt.Printf("jail: ls /../.. = %s; cwd %s; /proc: %s\n", strings.Join(names, " "), wd, guest.Result(err))
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "jailed" {
		jailed()
		return
	}
	if _, err := os.Stat("/proc/self"); err != nil {
		os.MkdirAll("/proc", 0o555)
		unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	}
	for _, d := range []string{"/mnt", "/tmp", "/b", "/dev2"} {
		os.MkdirAll(d, 0o755)
	}
	guest.LinuxDev()
	var un unix.Utsname
	unix.Uname(&un)
	onGometal := strings.Contains(unix.ByteSliceToString(un.Release[:]), "gometal")

	check("proc-line", mountLine("/proc") == "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0", "%q", mountLine("/proc"))

	// A tmpfs with a size and a mode.
	err := unix.Mount("tmpfs", "/mnt", "tmpfs", 0, "size=1m,mode=700")
	check("tmpfs-mount", err == nil, "%v", err)
	st, _ := os.Stat("/mnt")
	check("tmpfs-mode", st != nil && st.Mode().Perm() == 0o700, "%v", st)
	check("tmpfs-dev", dev("/mnt") != dev("/") && dev("/mnt") != 0, "%d %d", dev("/mnt"), dev("/"))
	check("tmpfs-line", mountLine("/mnt") == "tmpfs /mnt tmpfs rw,relatime,size=1024k,mode=700,inode64 0 0", "%q", mountLine("/mnt"))
	var sfs unix.Statfs_t
	err = unix.Statfs("/mnt", &sfs)
	check("statfs", err == nil && sfs.Type == unix.TMPFS_MAGIC && sfs.Blocks == 256 && sfs.Bsize == 4096 && sfs.Bfree == 256,
		"%v type %#x blocks %d bsize %d bfree %d", err, sfs.Type, sfs.Blocks, sfs.Bsize, sfs.Bfree)
	big := make([]byte, 2<<20)
	err = os.WriteFile("/mnt/big", big, 0o644)
	check("tmpfs-full", errors.Is(err, syscall.ENOSPC), "%v", err)
	unix.Statfs("/mnt", &sfs)
	check("statfs-used", sfs.Bfree == 0, "bfree %d", sfs.Bfree)
	check("rename-exdev", errors.Is(os.Rename("/mnt/big", "/tmp/big"), syscall.EXDEV), "%v", os.Rename("/mnt/big", "/tmp/big"))
	check("link-exdev", errors.Is(os.Link("/mnt/big", "/tmp/big"), syscall.EXDEV), "%v", os.Link("/mnt/big", "/tmp/big"))
	err = unix.Mount("", "/mnt/big", "", unix.MS_REMOUNT, "")
	check("remount-notroot", errors.Is(err, syscall.EINVAL), "%v", err)

	// Busy while a working directory is in it; gone with its files after.
	os.Chdir("/mnt")
	wd, _ := os.Getwd()
	check("getcwd-in-mount", wd == "/mnt", "%q", wd)
	err = unix.Unmount("/mnt", 0)
	check("umount-busy", errors.Is(err, syscall.EBUSY), "%v", err)
	os.Chdir("/")
	err = unix.Unmount("/mnt", 0)
	check("umount", err == nil, "%v", err)
	_, err = os.Stat("/mnt/big")
	check("umount-uncovers", errors.Is(err, os.ErrNotExist) && dev("/mnt") == dev("/"), "%v", err)
	err = unix.Unmount("/mnt", 0)
	check("umount-not-mounted", errors.Is(err, syscall.EINVAL), "%v", err)

	// Read-only remount.
	unix.Mount("tmpfs", "/mnt", "tmpfs", 0, "")
	os.WriteFile("/mnt/f", []byte("x"), 0o644)
	err = unix.Mount("", "/mnt", "", unix.MS_REMOUNT|unix.MS_RDONLY, "")
	check("remount-ro", err == nil, "%v", err)
	_, err = os.Create("/mnt/g")
	check("ro-create", errors.Is(err, syscall.EROFS), "%v", err)
	_, err = os.OpenFile("/mnt/f", os.O_WRONLY, 0)
	check("ro-write", errors.Is(err, syscall.EROFS), "%v", err)
	check("ro-read", read("/mnt/f") == "x", "%q", read("/mnt/f"))
	check("ro-unlink", errors.Is(os.Remove("/mnt/f"), syscall.EROFS), "%v", os.Remove("/mnt/f"))
	unix.Statfs("/mnt", &sfs)
	check("statfs-ro", sfs.Flags&unix.ST_RDONLY != 0, "flags %#x", sfs.Flags)
	check("ro-line", strings.HasPrefix(mountLine("/mnt"), "tmpfs /mnt tmpfs ro,relatime"), "%q", mountLine("/mnt"))
	err = unix.Mount("", "/mnt", "", unix.MS_REMOUNT, "")
	check("remount-rw", err == nil && os.WriteFile("/mnt/f", []byte("y"), 0o644) == nil, "%v", err)

	// Stacked mounts: the newest shows; unmounting it shows the one below.
	unix.Mount("tmpfs", "/mnt", "tmpfs", 0, "")
	_, err = os.Stat("/mnt/f")
	check("stack-top", errors.Is(err, os.ErrNotExist), "%v", err)
	unix.Unmount("/mnt", 0)
	check("stack-below", read("/mnt/f") == "y", "%q", read("/mnt/f"))

	// A lazy unmount: the path goes at once, an open file lives on.
	f, _ := os.Open("/mnt/f")
	err = unix.Unmount("/mnt", unix.MNT_DETACH)
	b := make([]byte, 1)
	n, _ := f.Read(b)
	check("detach", err == nil && n == 1 && b[0] == 'y' && dev("/mnt") == dev("/"), "%v %q", err, b[:n])
	f.Close()

	// noexec: a program there is EACCES (os/exec's TestFindExecutableVsNoexec).
	unix.Mount("tmpfs", "/mnt", "tmpfs", unix.MS_NOEXEC, "")
	self, _ := os.ReadFile("/proc/self/exe")
	os.WriteFile("/mnt/prog", self, 0o755)
	err = exec.Command("/mnt/prog", "-h").Run()
	check("noexec", errors.Is(err, syscall.EACCES), "%v", err)
	unix.Unmount("/mnt", 0)

	// Bind mounts: the same directory at a second place; ".." and getcwd
	// go through the mount, not the source's parent.
	os.MkdirAll("/tmp/a/sub", 0o755)
	os.WriteFile("/tmp/a/file", []byte("bound"), 0o644)
	err = unix.Mount("/tmp/a", "/b", "", unix.MS_BIND, "")
	check("bind", err == nil && read("/b/file") == "bound", "%v %q", err, read("/b/file"))
	os.Chdir("/b/sub")
	wd, _ = os.Getwd()
	os.Chdir("..")
	up, _ := os.Getwd()
	os.Chdir("..")
	top, _ := os.Getwd()
	check("bind-dotdot", wd == "/b/sub" && up == "/b" && top == "/", "%q %q %q", wd, up, top)
	os.Chdir("/")
	mi := read("/proc/self/mountinfo")
	// A bind copies the source mount's flags (clone_mnt): the root mount has none.
	check("mountinfo-bind", regexp.MustCompile(`(?m)^\d+ \d+ 0:\d+ /tmp/a /b rw - rootfs rootfs rw,size=\d+k,nr_inodes=\d+,inode64$`).MatchString(mi), "%q", mi)
	check("mountinfo-root", regexp.MustCompile(`(?m)^\d+ \d+ 0:\d+ / / rw - rootfs rootfs rw,size=\d+k,nr_inodes=\d+,inode64$`).MatchString(mi), "%q", mi)
	// A recursive bind takes what is mounted under the source along.
	unix.Mount("tmpfs", "/tmp/a/sub", "tmpfs", 0, "")
	os.WriteFile("/tmp/a/sub/t", []byte("t"), 0o644)
	os.MkdirAll("/tmp/c", 0o755)
	err = unix.Mount("/tmp/a", "/tmp/c", "", unix.MS_BIND|unix.MS_REC, "")
	check("rbind", err == nil && read("/tmp/c/sub/t") == "t", "%v %q", err, read("/tmp/c/sub/t"))
	err = unix.Unmount("/tmp/a", 0)
	check("umount-not-root", errors.Is(err, syscall.EINVAL), "%v", err)
	err = unix.Unmount("/tmp/c", 0)
	check("umount-children-busy", errors.Is(err, syscall.EBUSY), "%v", err)
	unix.Unmount("/tmp/c/sub", 0)
	unix.Unmount("/tmp/c", 0)
	unix.Unmount("/tmp/a/sub", 0)
	err = unix.Unmount("/b", 0)
	check("bind-umount", err == nil && read("/tmp/a/file") == "bound", "%v", err)

	// devtmpfs: the kernel's devices; mknod makes one elsewhere too.
	err = unix.Mount("devtmpfs", "/dev2", "devtmpfs", unix.MS_NOSUID, "")
	ents, _ := os.ReadDir("/dev2")
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	list := strings.Join(names, " ")
	check("devtmpfs", err == nil && strings.Contains(list, "null") && strings.Contains(list, "console") && strings.Contains(list, "urandom"), "%v %q", err, list)
	err = os.WriteFile("/dev2/null", []byte("gone"), 0)
	check("devtmpfs-null", err == nil, "%v", err)
	err = unix.Mknod("/tmp/mynull", unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3)))
	check("mknod-chr", err == nil && os.WriteFile("/tmp/mynull", []byte("x"), 0) == nil && read("/tmp/mynull") == "", "%v", err)
	err = unix.Mknod("/tmp/nodisk", unix.S_IFBLK|0o600, int(unix.Mkdev(8, 0)))
	_, oerr := os.Open("/tmp/nodisk")
	check("mknod-blk", err == nil && errors.Is(oerr, syscall.ENXIO), "%v %v", err, oerr)

	// sysfs: the CPU lists, the interfaces, the mountpoints under it.
	os.MkdirAll("/sys", 0o555)
	err = unix.Mount("sysfs", "/sys", "sysfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	check("sysfs", err == nil && mountLine("/sys") == "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0", "%v %q", err, mountLine("/sys"))
	online := strings.TrimSpace(read("/sys/devices/system/cpu/online"))
	check("sysfs-cpus", regexp.MustCompile(`^0(-\d+)?$`).MatchString(online) && online == strings.TrimSpace(read("/sys/devices/system/cpu/possible")), "%q", online)
	// lo is up from boot here; on Linux as init it is down (0x8) until
	// something brings it up: IFF_LOOPBACK is what both have.
	var loFlags int
	fmt.Sscanf(read("/sys/class/net/lo/flags"), "0x%x", &loFlags)
	check("sysfs-lo", read("/sys/class/net/lo/mtu") == "65536\n" && loFlags&unix.IFF_LOOPBACK != 0 && read("/sys/class/net/lo/type") == "772\n",
		"%q %q %q", read("/sys/class/net/lo/mtu"), read("/sys/class/net/lo/flags"), read("/sys/class/net/lo/type"))
	unix.Statfs("/sys", &sfs)
	check("sysfs-statfs", sfs.Type == unix.SYSFS_MAGIC, "%#x", sfs.Type)

	// chroot: a child jailed in /tmp/jail sees only the jail; chroot
	// needs a directory.
	os.MkdirAll("/tmp/jail/sub", 0o755)
	os.WriteFile("/tmp/jail/prog", self, 0o755)
	cmd := exec.Command("/prog", "jailed")
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: "/tmp/jail"}
	cmd.Dir = "/sub"
	out, err := cmd.CombinedOutput()
	check("chroot", err == nil && string(out) == "jail: ls /../.. = prog sub; cwd /sub; /proc: ENOENT\n", "%v %q", err, out)
	check("chroot-notdir", errors.Is(syscall.Chroot("/tmp/jail/prog"), syscall.ENOTDIR), "%v", syscall.Chroot("/tmp/jail/prog"))

	// Types this kernel does not have, on the directories they mount on,
	// and bad arguments.
	for _, c := range [][2]string{{"securityfs", "/sys/kernel/security"}, {"debugfs", "/sys/kernel/debug"},
		{"cgroup2", "/sys/fs/cgroup"}, {"efivarfs", "/mnt"}, {"nosuchfs", "/mnt"}} {
		err = unix.Mount(c[0], c[1], c[0], 0, "")
		// Debian's Linux has the first three (and mounts them); gometal
		// answers as a kernel built without them.
		has := !onGometal && (c[0] == "securityfs" || c[0] == "debugfs" || c[0] == "cgroup2")
		check("enodev "+c[0], errors.Is(err, syscall.ENODEV) || has && err == nil, "%v", err)
	}
	err = unix.Mount("tmpfs", "/mnt", "tmpfs", 0, "bogus=1")
	check("bad-option", errors.Is(err, syscall.EINVAL), "%v", err)
	err = unix.Mount("tmpfs", "/nonexistent", "tmpfs", 0, "")
	check("no-target", errors.Is(err, syscall.ENOENT), "%v", err)
	err = unix.Mount("tmpfs", "/mnt", "", 0, "")
	check("no-type", errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENODEV), "%v", err)

	if guest.Failed() {
		os.Exit(1)
	}
	fmt.Println("mounts ok")
}
