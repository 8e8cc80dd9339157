package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/corrosion/corrosion/agent/wire"
	"github.com/corrosion/corrosion/internal/natsconn"
	"github.com/corrosion/corrosion/internal/redact"
)

// FieldError is one problem with one setting. Its text is always
// "FIELD: PROBLEM", where FIELD is the TOML path with 0-based array indexes
// ("agent.nats_url", "probe[0].port", "instance[2].rcon.password") and
// PROBLEM quotes the offending value (secrets excepted), e.g.
//
//	instance[2].id: "Host" is not a valid instance id (want [a-z0-9_-]{1,64}, not "host")
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// problems collects FieldErrors.
type problems []error

func (p *problems) add(field, format string, args ...any) {
	*p = append(*p, &FieldError{Field: field, Err: fmt.Errorf(format, args...)})
}

// Validate checks the whole config and returns every problem, joined
// (errors.Join of *FieldError), or nil. It reads the filesystem: a managed
// instance's root, its exec, and nats_creds must exist.
func (c *Config) Validate() error {
	var p problems
	c.Agent.validate(&p)
	c.validateProbes(&p)
	c.validateInstances(&p)
	g := c.graph()
	p = append(p, g.problems...)
	p = append(p, g.cycles()...)
	return errors.Join(p...)
}

func (a *Agent) validate(p *problems) {
	switch {
	case a.LicenseID == "":
		p.add("agent.license_id", "is not set (set agent.license_id to the license this host belongs to)")
	case !wire.ValidLicenseID(a.LicenseID):
		p.add("agent.license_id", "%q is not a valid license id (want [A-Za-z0-9_-]{1,64})", a.LicenseID)
	}
	validateNATSURL(p, a.NATSURL)
	a.validateNATSAuth(p)
	if a.HeartbeatSeconds < 1 {
		p.add("agent.heartbeat_seconds", "%d is too small (want at least 1)", a.HeartbeatSeconds)
	}
	if a.StateDir == "" {
		p.add("agent.state_dir", "must not be empty")
	}
	if _, err := ParseLogLevel(a.LogLevel); err != nil {
		p.add("agent.log_level", "%w", err)
	}
	validateMetricsListen(p, a.MetricsListen)
	positive(p, "agent.console_line_limit", a.ConsoleLineLimit)
	positiveDur(p, "agent.console_window", a.ConsoleWindow)
	positive(p, "agent.console_ring_lines", a.ConsoleRingLines)
	positiveDur(p, "agent.restart_backoff_initial", a.BackoffInitial)
	positiveDur(p, "agent.restart_backoff_max", a.BackoffMax)
	if a.BackoffMax.Duration > 0 && a.BackoffMax.Duration < a.BackoffInitial.Duration {
		p.add("agent.restart_backoff_max", "%s is less than restart_backoff_initial %s", a.BackoffMax, a.BackoffInitial)
	}
	positiveDur(p, "agent.restart_healthy_after", a.HealthyAfter)
	positive(p, "agent.crash_loop_count", a.CrashLoopCount)
	positiveDur(p, "agent.crash_loop_window", a.CrashLoopWindow)
	a.validateProvisioning(p)
	if a.PublicAddress != "" && !validHost(a.PublicAddress) {
		p.add("agent.public_address", "%q is not an IP address or DNS name (want one without a port, e.g. \"203.0.113.7\" or \"game.example.com\")", a.PublicAddress)
	}
}

func positive(p *problems, field string, v int) {
	if v < 1 {
		p.add(field, "%d is not positive (want at least 1)", v)
	}
}

func positiveDur(p *problems, field string, d Duration) {
	if d.Duration <= 0 {
		p.add(field, "%q is not positive (want a duration like \"1.5s\")", d.String())
	}
}

func validateNATSURL(p *problems, list string) {
	const field = "agent.nats_url"
	entries := strings.Split(list, ",")
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if e == "" {
			p.add(field, "%q has an empty entry (want comma-separated nats:// URLs)", redact.List(list))
			return
		}
		u, err := url.Parse(e)
		shown := redact.URL(e)
		switch {
		case credentialsCutShort(e, u, err):
			p.add(field, "%q: the user name or password cannot be parsed (percent-encode / ? # @ %% in it, or use nats_user and nats_password)", shown)
		case err != nil:
			p.add(field, "%q is not a URL", shown)
		case natsconn.CheckScheme(u) != nil:
			p.add(field, "%q %v", shown, natsconn.CheckScheme(u))
		case u.Host == "" || u.Hostname() == "":
			p.add(field, "%q has no host", shown)
		case u.Port() != "" && !validPort(u.Port()):
			p.add(field, "%q has a bad port %q", shown, u.Port())
		}
	}
}

// credentialsCutShort reports whether e holds credentials that url.Parse
// (and so nats.go) cannot read as written: it fails to parse, or an
// unescaped '/', '?' or '#' in the password ends the authority early, so
// that the '@' lands in the path, query or fragment and part of the
// password would be taken for the host and port.
func credentialsCutShort(e string, u *url.URL, err error) bool {
	at := strings.LastIndexByte(e, '@')
	if at < 0 {
		return false
	}
	if err != nil || u.User == nil {
		return true
	}
	start := strings.Index(e, "://") + 3
	end := strings.IndexAny(e[start:], "/?#")
	return end >= 0 && at > start+end
}

func validPort(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 1 && n <= 65535
}

func (c *Config) validateProbes(p *problems) {
	seen := map[string]int{}
	for i, pr := range c.Probes {
		pre := "probe[" + strconv.Itoa(i) + "]."
		switch j, dup := seen[pr.Name]; {
		case pr.Name == "":
			p.add(pre+"name", "must not be empty")
		case dup:
			p.add(pre+"name", "%q duplicates probe[%d]", pr.Name, j)
		default:
			seen[pr.Name] = i
		}
		if !validHost(pr.Host) {
			p.add(pre+"host", "%q is not a host name or IP address", pr.Host)
		}
		if pr.Port < 1 || pr.Port > 65535 {
			p.add(pre+"port", "%d is out of range (want 1-65535)", pr.Port)
		}
	}
}

// validHost accepts an IP address (IPv6 without brackets) or a DNS name.
func validHost(h string) bool { return wire.ValidHostAddress(h) }

// statErr words a failed os.Stat for a message that already quotes the
// path: "does not exist", or "cannot be used: permission denied".
func statErr(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("does not exist")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cannot be used: %w", err)
}

// checkExec reports why exec cannot be run, or nil: it must be an absolute
// path to an executable file, or a command name found on PATH.
func checkExec(path string) error {
	if filepath.IsAbs(path) {
		fi, err := os.Stat(path)
		switch {
		case err != nil:
			return fmt.Errorf("%q %w", path, statErr(err))
		case fi.IsDir():
			return fmt.Errorf("%q is a directory (want an executable file)", path)
		case runtime.GOOS != "windows" && fi.Mode()&0o111 == 0:
			return fmt.Errorf("%q is not executable (mode %v)", path, fi.Mode().Perm())
		}
		return nil
	}
	if strings.ContainsAny(path, `/\`) {
		return fmt.Errorf("%q is a relative path (want an absolute path or a command name on PATH)", path)
	}
	if _, err := exec.LookPath(path); err != nil {
		return fmt.Errorf("%q is not an executable on PATH: %w", path, err)
	}
	return nil
}
