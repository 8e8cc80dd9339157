package installer

import (
	"strings"
	"testing"
)

// FuzzParseEnvFile: any bytes parse without a panic, and every variable
// found has a name without '=' or a line break.
func FuzzParseEnvFile(f *testing.F) {
	for _, seed := range []string{"", "A=1\n", "# c\nB = \"x y\"\n", "C='z'\r\nD\n=E\n", "\"=\"\n", "F==\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for k := range parseEnvFile(data) {
			if strings.ContainsAny(k, "=\n") {
				t.Fatalf("name %q from %q", k, data)
			}
		}
	})
}
