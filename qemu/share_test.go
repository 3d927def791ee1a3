package qemu

import (
	"slices"
	"testing"
)

func TestShareArgs(t *testing.T) {
	a, err := ParseShare("/h/a,b:/mnt/x/")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseShare("/h/c:/ro:ro")
	if err != nil {
		t.Fatal(err)
	}
	got := ShareArgs([]Share{a, b})
	want := []string{
		"-fsdev", "local,id=fs0,path=/h/a,,b,security_model=none",
		"-device", "virtio-9p-device,fsdev=fs0,mount_tag=gmshare0",
		"-fsdev", "local,id=fs1,path=/h/c,security_model=none,readonly=on",
		"-device", "virtio-9p-device,fsdev=fs1,mount_tag=gmshare1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("ShareArgs = %q, want %q", got, want)
	}
	if w := ShareBootargs([]Share{a, b}); !slices.Equal(w, []string{"gometal.9p=gmshare0:/mnt/x", "gometal.9p=gmshare1:/ro:ro"}) {
		t.Errorf("ShareBootargs = %q", w)
	}
	for _, bad := range []string{"/h", "/h:rel", "/h:/g:rx", ":/g", "/h:/a b"} {
		if _, err := ParseShare(bad); err == nil {
			t.Errorf("ParseShare(%q) accepted", bad)
		}
	}
}
