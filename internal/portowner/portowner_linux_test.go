package portowner

import (
	"net"
	"os"
	"testing"
)

// listen holds a port on addr for the test.
func listen(t *testing.T, addr string) int {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l.Addr().(*net.TCPAddr).Port
}

func TestLookupNamesTheHolder(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		t.Run(addr, func(t *testing.T) {
			port := listen(t, addr)
			o, err := Lookup(port)
			if err != nil {
				t.Fatalf("Lookup(%d): %v", port, err)
			}
			if o.PID != os.Getpid() || o.Program != os.Args[0] {
				t.Fatalf("Lookup(%d) = %+v, want pid %d program %s", port, o, os.Getpid(), os.Args[0])
			}
			if want := "pid " + itoa(os.Getpid()) + " (" + os.Args[0] + ")"; Describe(port) != want {
				t.Fatalf("Describe = %q, want %q", Describe(port), want)
			}
		})
	}
}
