package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Expansion errors.
var (
	ErrUnsetEnv   = errors.New("environment variable is not set")
	ErrBadEnvExpr = errors.New("bad ${VAR} reference")
)

// expand replaces ${VAR} in every string value, field by field, after
// decoding: a value from the environment is never parsed as TOML.
func (c *Config) expand(lookupEnv func(string) (string, bool)) []error {
	var errs []error
	c.eachString(func(field string, s *string) {
		v, err := Expand(*s, lookupEnv)
		if err != nil {
			errs = append(errs, &FieldError{Field: field, Err: err})
			return
		}
		*s = v
	})
	return errs
}

// Expand replaces each ${NAME} in s with the value lookupEnv gives NAME
// (NAME is [A-Za-z_][A-Za-z0-9_]*) and each $${ with a literal ${. Any other
// $ is kept as written. An unset variable is ErrUnsetEnv; an unterminated
// or malformed reference is ErrBadEnvExpr. A variable set to "" expands to
// "".
func Expand(s string, lookupEnv func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "$${"):
			b.WriteString("${")
			i += 3
		case strings.HasPrefix(s[i:], "${"):
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return "", fmt.Errorf("%w: unterminated %q", ErrBadEnvExpr, s[i:])
			}
			name := s[i+2 : i+2+end]
			if !validEnvName(name) {
				return "", fmt.Errorf("%w: %q is not a variable name (want [A-Za-z_][A-Za-z0-9_]*)", ErrBadEnvExpr, name)
			}
			v, ok := lookupEnv(name)
			if !ok {
				return "", fmt.Errorf("${%s}: %w", name, ErrUnsetEnv)
			}
			b.WriteString(v)
			i += 2 + end + 1
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String(), nil
}

func validEnvName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_', 'A' <= r && r <= 'Z', 'a' <= r && r <= 'z':
		case '0' <= r && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// eachString calls fn with the path and address of every string value of
// the config, in file order. Env map values are visited in key order and
// written back.
func (c *Config) eachString(fn func(field string, s *string)) {
	a := &c.Agent
	fn("agent.license_id", &a.LicenseID)
	fn("agent.nats_url", &a.NATSURL)
	fn("agent.nats_creds", &a.NATSCreds)
	fn("agent.nats_user", &a.NATSUser)
	fn("agent.nats_password", &a.NATSPassword)
	fn("agent.nats_token", &a.NATSToken)
	fn("agent.nats_nkey_seed_file", &a.NATSNKeySeedFile)
	fn("agent.nats_ca_file", &a.NATSCAFile)
	fn("agent.state_dir", &a.StateDir)
	fn("agent.log_level", &a.LogLevel)
	fn("agent.metrics_listen", &a.MetricsListen)
	for i := range c.Probes {
		p := &c.Probes[i]
		pre := "probe[" + strconv.Itoa(i) + "]."
		fn(pre+"name", &p.Name)
		fn(pre+"host", &p.Host)
	}
	for i := range c.Instances {
		c.Instances[i].eachString("instance["+strconv.Itoa(i)+"].", fn)
	}
}

func (in *Instance) eachString(pre string, fn func(field string, s *string)) {
	fn(pre+"id", &in.ID)
	fn(pre+"game", &in.Game)
	fn(pre+"label", &in.Label)
	fn(pre+"root", &in.Root)
	fn(pre+"exec", &in.Exec)
	eachIndexed(pre+"args", in.Args, fn)
	for _, k := range sortedKeys(in.Env) {
		v := in.Env[k]
		fn(pre+"env."+k, &v)
		in.Env[k] = v
	}
	fn(pre+"stop_command", &in.StopCommand)
	fn(pre+"ready_pattern", &in.ReadyPattern)
	fn(pre+"ready_timeout_action", &in.ReadyTimeoutAction)
	fn(pre+"restart", &in.Restart)
	eachIndexed(pre+"depends_on", in.DependsOn, fn)
	if in.RCON != nil {
		fn(pre+"rcon.kind", &in.RCON.Kind)
		fn(pre+"rcon.password", &in.RCON.Password)
	}
	eachIndexed(pre+"files.deny", in.Files.Deny, fn)
}

func eachIndexed(field string, list []string, fn func(field string, s *string)) {
	for i := range list {
		fn(field+"["+strconv.Itoa(i)+"]", &list[i])
	}
}
