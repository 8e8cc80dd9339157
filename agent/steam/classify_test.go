package steam

import "testing"

// Each line steamcmd prints on a failure, also wrapped in the colour
// escapes real steamcmd adds, with the exit code it came with.
func TestScan_Classification(t *testing.T) {
	for _, tc := range []struct {
		line  string
		exit  int
		code  string
		retry bool
	}{
		{"Success! App '258550' fully installed.", 0, "", false},
		{"Error! App '258550' state is 0x202 after update job.", 8, CodeDiskFull, false},
		{"\x1b[0mError! App '258550' state is 0x212 after update job.\x1b[0m", 8, CodeDiskFull, false},
		{"ERROR! Failed to install app '258550' (No subscription)", 8, CodeNoSubscription, false},
		{"Error! App '258550' state is 0x402 after update job.", 8, CodeNetwork, true},
		{"Error! App '258550' state is 0x602 after update job.", 0, CodeNetwork, true},
		{"Error! App '258550' state is 0x606 after update job.", 8, CodeFailed, true},
		{"Error! App '258550' state is 0x626 after update job.", 8, CodeFailed, true},
		{"info...\x1b[0mOK \x1b[0mERROR! Failed to install app '258550' (Missing configuration)", 8, CodeFailed, true},
		{"Error! App '258550' state is 0x6 after update job.", 8, CodeFailed, false},
		{"[----] Update complete, launching Steamcmd...", 7, CodeFailed, true},
		{"ERROR! Failed to install app '258550' (Invalid platform)", 8, CodeFailed, false},
		{"ERROR! Failed to install app '258550' (Invalid platform)", 0, CodeFailed, false},
		{"Logging in user 'x' to Steam Public...FAILED (Invalid Password)", 5, CodeFailed, false},
		{"Unloading Steam API...OK", 1, CodeFailed, false},
	} {
		var s scan
		s.line("Loading Steam API...OK")
		s.line(tc.line)
		v := s.verdict(tc.exit)
		if v.code != tc.code || v.retry != tc.retry {
			t.Errorf("%q exit %d: code %q retry %v, want %q %v", tc.line, tc.exit, v.code, v.retry, tc.code, tc.retry)
		}
	}
}
