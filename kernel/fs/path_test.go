package fs

import "testing"

func TestCleanPath(t *testing.T) {
	cases := []struct{ base, p, want string }{
		{"/", "init", "/init"},
		{"/a/b", "../c", "/a/c"},
		{"/a/b", "/x//y/./z/..", "/x/y"},
		{"/", "../..", "/"},
		{"/home/u", "testdata/x.txt", "/home/u/testdata/x.txt"},
		{"/", "", "/"},
	}
	for _, c := range cases {
		var buf [64]byte
		n := CleanPath(buf[:], []byte(c.base), []byte(c.p))
		if n < 0 || string(buf[:n]) != c.want {
			t.Errorf("cleanPath(%q, %q) = %q, want %q", c.base, c.p, buf[:max(n, 0)], c.want)
		}
	}
	var small [4]byte
	if CleanPath(small[:], []byte("/"), []byte("toolong")) != -1 {
		t.Error("overflow not reported")
	}
}
