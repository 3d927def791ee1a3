//go:build !arm64

package vfs

import (
	"testing"

	"golang.org/x/sys/unix"
)

// Descriptions in flight hold a reference each: taken, the reference
// moves to the taker; passed over by a read, or left when the pipe goes,
// it is dropped, and the description with its last reference.
func TestPipeRights(t *testing.T) {
	setup(t, 4)
	p := NewPipe()
	other := NewPipe()
	fr, fw := Alloc(other.Reader(), unix.O_RDONLY), Alloc(other.Writer(), unix.O_WRONLY)
	r := Rights{N: 2, Files: [MaxRights]int32{fr, fw}}
	if !p.Attach(10, 11, &r) || !p.Attach(20, 25, &Rights{N: 1, Files: [MaxRights]int32{fr}}) {
		t.Fatal("attach")
	}
	if Files[fr].refs != 3 || Files[fw].refs != 2 {
		t.Fatalf("refs after attaching: %d %d", Files[fr].refs, Files[fw].refs)
	}
	if at, end, ok := p.NextRights(0); !ok || at != 10 || end != 11 {
		t.Errorf("next from 0: %d %d %v", at, end, ok)
	}
	if at, end, ok := p.NextRights(11); !ok || at != 20 || end != 25 {
		t.Errorf("next from 11: %d %d %v", at, end, ok)
	}
	var got Rights
	if !p.TakeRights(10, &got) || got.N != 2 || got.Files[0] != fr || got.Files[1] != fw {
		t.Fatalf("take: %+v", got)
	}
	// The sender closes its descriptors: the taken set keeps them open.
	DecRef(fr)
	DecRef(fw)
	if Files[fw].refs != 1 {
		t.Fatalf("fw refs %d after the sender's close", Files[fw].refs)
	}
	got.Close()
	if Files[fw].Impl != nil {
		t.Error("fw still open after the taker closed it")
	}
	// A read past position 20 drops the other set, and fr with it.
	p.DropRights(21)
	if Files[fr].Impl != nil {
		t.Error("fr still open after its set was read past")
	}
	if _, _, ok := p.NextRights(0); ok {
		t.Error("a set left in flight")
	}
	// A set left in a pipe goes with the pipe.
	f := Alloc(other.Reader(), unix.O_RDONLY)
	p.Attach(30, 31, &Rights{N: 1, Files: [MaxRights]int32{f}})
	DecRef(f)
	p.Close(false)
	p.Close(true)
	if Files[f].Impl != nil {
		t.Error("a description in flight outlived its pipe")
	}
}
