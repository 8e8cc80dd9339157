package steam

import (
	"regexp"
	"strings"
)

// Error codes of a steamcmd run: stable, for the agent's funcs to return.
const (
	CodeDiskFull       = "steam_disk_full"       // 0x202 / 0x212: not enough disk space
	CodeNoSubscription = "steam_no_subscription" // the app is not available to an anonymous login
	CodeNetwork        = "steam_network"         // 0x402 / 0x602 after every attempt
	CodeTimeout        = "steam_timeout"         // the wall-clock limit killed steamcmd
	CodeCanceled       = "steam_canceled"        // the caller gave up (context canceled)
	CodeNoBranch       = "steam_no_branch"       // the app has no such branch
	CodeFailed         = "steam_failed"          // anything else, or a retryable state after every attempt
)

// Error is a failed steamcmd run: a stable Code and a message in words.
// It never holds a secret (a beta password is masked in every line).
type Error struct {
	Code     string
	Msg      string
	Exit     int // steamcmd's exit code; -1 when it did not exit by itself
	Attempts int // how many times steamcmd ran
	Err      error
}

func (e *Error) Error() string { return e.Msg }

func (e *Error) Unwrap() error { return e.Err }

// verdict is what one run's output and exit code say.
type verdict struct {
	code  string // "" for success
	retry bool   // worth running steamcmd again
	why   string // in words
	line  string // the output line it rests on, if any
}

// stateLine matches "Error! App '258550' state is 0x202 after update job."
var stateLine = regexp.MustCompile(`(?i)state is (0x[0-9a-f]+) after update job`)

// appStates is the classification of the app states steamcmd reports on
// a failed update job (LinuxGSM's docs list what each means in practice).
var appStates = map[string]verdict{
	"0x202": {code: CodeDiskFull, why: "not enough disk space"},
	"0x212": {code: CodeDiskFull, why: "not enough disk space"},
	"0x402": {code: CodeNetwork, retry: true, why: "a network error reaching Steam"},
	"0x602": {code: CodeNetwork, retry: true, why: "a network error reaching Steam"},
	"0x606": {code: CodeFailed, retry: true, why: "the download stalled"},
	"0x626": {code: CodeFailed, retry: true, why: "the files did not validate"},
}

// scan is the classification of a run, fed line by line.
type scan struct {
	found *verdict // the first decisive line; nil while none
}

// line looks at one output line.
func (s *scan) line(l string) {
	if s.found != nil {
		return
	}
	switch {
	case strings.Contains(l, "No subscription"):
		s.found = &verdict{code: CodeNoSubscription, why: "the app is not available to an anonymous login (No subscription)"}
	case strings.Contains(l, "Missing configuration"):
		s.found = &verdict{code: CodeFailed, retry: true, why: "steamcmd had no configuration for the app yet (Missing configuration)"}
	default:
		m := stateLine.FindStringSubmatch(l)
		if m == nil {
			if strings.Contains(l, "ERROR!") || strings.Contains(l, "Error!") || strings.Contains(l, "FAILED (") {
				s.found = &verdict{code: CodeFailed, why: "steamcmd reported an error"}
				s.found.line = l
			}
			return
		}
		v, ok := appStates[strings.ToLower(m[1])]
		if !ok {
			v = verdict{code: CodeFailed, why: "the update job ended in state " + m[1]}
		}
		s.found = &v
	}
	s.found.line = l
}

// verdict combines the decisive line with the exit code: an error line
// wins over exit 0 (steamcmd's exit code alone is not trusted), exit 7 is
// steamcmd having updated itself, any other non-zero exit a failure.
func (s *scan) verdict(exit int) verdict {
	switch {
	case s.found != nil:
		return *s.found
	case exit == 0:
		return verdict{}
	case exit == 7:
		return verdict{code: CodeFailed, retry: true, why: "steamcmd updated itself (exit 7)"}
	default:
		return verdict{code: CodeFailed, why: "steamcmd failed"}
	}
}
