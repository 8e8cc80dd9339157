package portowner

import (
	"errors"
	"net"
	"testing"
)

func TestLookupOfAFreePortIsUnknown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	if _, err := Lookup(port); !errors.Is(err, ErrUnknown) {
		t.Fatalf("Lookup of a free port: %v, want ErrUnknown", err)
	}
	if got := Describe(port); got != "another program" {
		t.Fatalf("Describe of a free port = %q", got)
	}
	if _, err := Lookup(70000); err == nil || errors.Is(err, ErrUnknown) {
		t.Fatalf("Lookup(70000): %v, want a range error", err)
	}
}

func TestOwnerString(t *testing.T) {
	if got := (Owner{PID: 7}).String(); got != "pid 7" {
		t.Fatalf("%q", got)
	}
}

func itoa(n int) string { return (Owner{PID: n}).String()[len("pid "):] }
