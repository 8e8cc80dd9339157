package wire

import (
	"errors"
	"fmt"
	"strings"
)

// SubjectKind is what a subject of the protocol carries.
type SubjectKind string

// The subject kinds (docs/wire-protocol.md); host kinds name no instance.
const (
	SubjectHeartbeat    SubjectKind = "heartbeat"     // corrosion.{license}.host.heartbeat
	SubjectGoingOffline SubjectKind = "going_offline" // corrosion.{license}.host.going_offline
	SubjectHostCmd      SubjectKind = "host.cmd"      // corrosion.{license}.host.cmd
	SubjectCmd          SubjectKind = "cmd"           // corrosion.{license}.{instance}.cmd
	SubjectStatus       SubjectKind = "status"        // corrosion.{license}.{instance}.status
	SubjectConsole      SubjectKind = "console"       // corrosion.{license}.{instance}.console
	SubjectFilesCmd     SubjectKind = "files.cmd"     // corrosion.{license}.{instance}.files.cmd
)

// Subject is a parsed subject of the protocol.
type Subject struct {
	License  string
	Instance string // empty for the host kinds
	Kind     SubjectKind
}

// ErrSubject is wrapped by every ParseSubject error.
var ErrSubject = errors.New("not a corrosion subject")

// ParseSubject splits a subject of the protocol into its license, its
// instance (the host kinds have none) and its kind, checking the ids by
// the protocol's rules (ValidLicenseID, ValidInstanceID). It is the one
// parser of subjects: every receiver of agent messages uses it.
func ParseSubject(subject string) (Subject, error) {
	tok := strings.Split(subject, ".")
	if len(tok) < 4 || len(tok) > 5 || tok[0] != "corrosion" {
		return Subject{}, fmt.Errorf("%w: %q", ErrSubject, subject)
	}
	if !ValidLicenseID(tok[1]) {
		return Subject{}, fmt.Errorf("%w: %q: license id %q is not [A-Za-z0-9_-]{1,64}", ErrSubject, subject, tok[1])
	}
	s := Subject{License: tok[1], Kind: SubjectKind(strings.Join(tok[3:], "."))}
	if tok[2] == "host" {
		switch s.Kind {
		case SubjectHeartbeat, SubjectGoingOffline:
			return s, nil
		case SubjectCmd:
			s.Kind = SubjectHostCmd
			return s, nil
		}
		return Subject{}, fmt.Errorf("%w: %q: unknown host subject", ErrSubject, subject)
	}
	if !ValidInstanceID(tok[2]) {
		return Subject{}, fmt.Errorf("%w: %q: instance id %q is not [a-z0-9_-]{1,64}", ErrSubject, subject, tok[2])
	}
	switch s.Kind {
	case SubjectCmd, SubjectStatus, SubjectConsole, SubjectFilesCmd:
		s.Instance = tok[2]
		return s, nil
	}
	return Subject{}, fmt.Errorf("%w: %q: unknown instance subject", ErrSubject, subject)
}

// String is the subject s was parsed from.
func (s Subject) String() string {
	second, kind := s.Instance, string(s.Kind)
	if s.Instance == "" {
		second, kind = "host", strings.TrimPrefix(kind, "host.")
	}
	return "corrosion." + s.License + "." + second + "." + kind
}
