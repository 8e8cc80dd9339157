package template

import (
	"fmt"
	"strings"
	"time"
)

// ExecKind says where a Spec's Exec is.
type ExecKind string

// Exec kinds.
const (
	ExecInRoot  ExecKind = "root"    // Exec is relative to the instance root
	ExecProgram ExecKind = "program" // Exec is a host program; the host must allow it
)

// Spec is a template rendered with its values: what the agent runs. Every
// {{KEY}} is replaced; only the source steps whose condition holds are
// kept. String redacts the secrets' values.
type Spec struct {
	TemplateID string
	Game       string
	Exec       string
	ExecKind   ExecKind
	Args       []string
	Env        map[string]string
	Ports      []BoundPort
	Ready      ReadySpec
	Stop       StopSpec
	Console    ConsoleSpec
	Sources    []Source     // the steps to run, templated fields rendered
	Configs    []ConfigFile // the edits, values rendered
	Values     map[string]string

	secrets []string // the secret variables' non-empty values, for String
}

// BoundPort is a port with its number.
type BoundPort struct {
	Name     string
	Protocol Protocol
	Port     int
}

// ReadySpec: a console line matching Regex within Timeout marks the game
// ready ("" regex: ready when started).
type ReadySpec struct {
	Regex   string
	Timeout time.Duration
}

// StopSpec is the graceful stop; after Timeout the process tree is killed.
type StopSpec struct {
	Kind    StopKind
	Value   string
	Timeout time.Duration
}

// ConsoleSpec is how commands reach the game; Port and Password only for
// an RCON kind. Broadcast is the template's broadcast command ("" none).
type ConsoleSpec struct {
	Kind      ConsoleKind
	Port      int
	Password  string
	Broadcast string
}

// BroadcastCommand is the console command telling every player message
// (the placeholder of the template's broadcast replaced by it); ok is false
// when the game has no broadcast command.
func (c ConsoleSpec) BroadcastCommand(message string) (cmd string, ok bool) {
	if c.Broadcast == "" {
		return "", false
	}
	return strings.Replace(c.Broadcast, MessagePlaceholder, message, 1), true
}

// Port returns the number of the port named name, or 0.
func (s *Spec) Port(name string) int {
	for _, p := range s.Ports {
		if p.Name == name {
			return p.Port
		}
	}
	return 0
}

// String is the spec with every secret's value replaced by "[redacted]".
func (s Spec) String() string {
	type plain Spec // no String method: no recursion
	out := fmt.Sprintf("%+v", plain(s))
	for _, sec := range s.secrets {
		out = strings.ReplaceAll(out, sec, "[redacted]")
	}
	return out
}

// GoString is String, so %#v redacts too.
func (s Spec) GoString() string { return s.String() }
