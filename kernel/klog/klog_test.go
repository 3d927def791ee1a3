package klog

import "testing"

func TestFormats(t *testing.T) {
	Reset()
	Now = func() uint64 { return 1234567 }
	Begin(LevelInfo)
	for _, c := range []byte("booting\n") {
		Byte(c)
	}
	End()
	Append(FacilityUser, LevelWarning, []byte("a\tb\\"))
	var b [128]byte
	if n := SyslogText(At(0), b[:]); string(b[:n]) != "<6>[    1.234567] booting\n" {
		t.Errorf("syslog: %q", b[:n])
	}
	if n := KmsgText(At(1), b[:]); string(b[:n]) != "12,1,1234567,-;a\\x09b\\x5c\n" {
		t.Errorf("kmsg: %q", b[:n])
	}
	if n := KmsgText(At(1), b[:5]); n != 0 {
		t.Errorf("a short buffer took %d bytes", n)
	}
}

func TestRingOverwrites(t *testing.T) {
	Reset()
	for i := 0; i < MaxRecords+10; i++ {
		Append(0, LevelInfo, []byte{byte('a' + i%26)})
	}
	if First() != 10 || Next() != MaxRecords+10 || At(9) != nil || At(10) == nil || At(10).Text()[0] != 'a'+10%26 {
		t.Errorf("first %d next %d", First(), Next())
	}
}
