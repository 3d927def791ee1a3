package proc

import (
	"testing"

	"golang.org/x/sys/unix"
)

// The ID rules as Linux applies them (setuid(2), setresuid(2),
// setreuid(2)): root may become anyone and then only go back to its
// real or saved IDs.
func TestCredRules(t *testing.T) {
	var c Cred // root
	if e := c.User.SetRES(1000, 1000, 0, c.Privileged()); e != 0 || c.User.E != 1000 || c.User.S != 0 {
		t.Fatalf("setresuid as root: %v %+v", e, c.User)
	}
	if e := c.User.Set(0, c.Privileged()); e != 0 || c.User.E != 0 || c.User.R != 1000 {
		t.Errorf("back to the saved 0: %v %+v", e, c.User)
	}
	c.User.Set(1000, c.Privileged()) // root again: all three
	if c.User.S != 1000 || c.User.FS != 1000 {
		t.Errorf("setuid as root sets all three: %+v", c.User)
	}
	if e := c.User.Set(0, c.Privileged()); e != unix.EPERM {
		t.Errorf("an ordinary process to root: %v", e)
	}
	if e := c.SetGroups([]uint32{1}); e != unix.EPERM {
		t.Errorf("setgroups unprivileged: %v", e)
	}
	if old := c.User.SetFS(7, c.Privileged()); old != 1000 || c.User.FS != 1000 {
		t.Errorf("setfsuid to an ID it has not: old %d, now %d", old, c.User.FS)
	}
	var r Cred
	if e := r.User.SetRE(5, 6, r.Privileged()); e != 0 || r.User.R != 5 || r.User.E != 6 || r.User.S != 6 {
		t.Errorf("setreuid(5, 6): %v %+v", e, r.User)
	}
	if e := r.Group.Set(noChange, true); e != unix.EINVAL {
		t.Errorf("setgid(-1): %v", e)
	}
	var g Cred
	if e := g.SetGroups(make([]uint32, MaxGroups+1)); e != unix.EINVAL {
		t.Errorf("too many groups: %v", e)
	}
	if e := g.Group.SetRES(7, noChange, 9, g.Privileged()); e != 0 || g.Group.R != 7 || g.Group.E != 0 || g.Group.S != 9 {
		t.Errorf("setresgid: %v %+v", e, g.Group)
	}
}
