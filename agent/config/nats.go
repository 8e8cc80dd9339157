package config

import (
	"net/url"
	"os"
	"strings"
)

// NATSAuth is how the agent authenticates to NATS: at most one way.
type NATSAuth string

// The ways to authenticate, by the field that selects them.
const (
	NATSAuthNone         NATSAuth = ""
	NATSAuthURL          NATSAuth = "agent.nats_url"            // user:password@ or token@ in the URL
	NATSAuthUserPassword NATSAuth = "agent.nats_user"           // with agent.nats_password
	NATSAuthToken        NATSAuth = "agent.nats_token"          // a bare token
	NATSAuthNKey         NATSAuth = "agent.nats_nkey_seed_file" // an nkey seed file
	NATSAuthCreds        NATSAuth = "agent.nats_creds"          // a .creds file (JWT and nkey)
)

// NATSAuths returns every way to authenticate the config sets, in the
// order above; Validate refuses more than one.
func (a *Agent) NATSAuths() []NATSAuth {
	var out []NATSAuth
	if a.natsURLHasCredentials() {
		out = append(out, NATSAuthURL)
	}
	if a.NATSUser != "" || a.NATSPassword != "" {
		out = append(out, NATSAuthUserPassword)
	}
	if a.NATSToken != "" {
		out = append(out, NATSAuthToken)
	}
	if a.NATSNKeySeedFile != "" {
		out = append(out, NATSAuthNKey)
	}
	if a.NATSCreds != "" {
		out = append(out, NATSAuthCreds)
	}
	return out
}

// NATSAuth returns the one way the config authenticates (NATSAuthNone
// when it sets none). On a config Validate refused it is the first set.
func (a *Agent) NATSAuth() NATSAuth {
	if all := a.NATSAuths(); len(all) > 0 {
		return all[0]
	}
	return NATSAuthNone
}

// natsURLHasCredentials reports whether an entry of nats_url carries a
// user, password or token (or an '@' that may be one).
func (a *Agent) natsURLHasCredentials() bool {
	for _, e := range strings.Split(a.NATSURL, ",") {
		if u, err := url.Parse(strings.TrimSpace(e)); (err == nil && u.User != nil) || strings.Contains(e, "@") {
			return true
		}
	}
	return false
}

// validateNATSAuth checks the NATS credential and TLS settings: files
// exist, user and password come together, and at most one way to
// authenticate is set. Secrets are never quoted.
func (a *Agent) validateNATSAuth(p *problems) {
	checkFile(p, "agent.nats_creds", a.NATSCreds, "a .creds file")
	checkFile(p, "agent.nats_nkey_seed_file", a.NATSNKeySeedFile, "an nkey seed file")
	checkFile(p, "agent.nats_ca_file", a.NATSCAFile, "a PEM CA certificate file")
	switch {
	case a.NATSUser == "" && a.NATSPassword != "":
		p.add("agent.nats_password", "is set without agent.nats_user")
	case a.NATSUser != "" && a.NATSPassword == "":
		p.add("agent.nats_user", "is set without agent.nats_password")
	}
	all := a.NATSAuths()
	for _, other := range all[min(1, len(all)):] {
		p.add(string(other), "conflicts with %s: set one way to authenticate (credentials in nats_url, nats_user and nats_password, nats_token, nats_nkey_seed_file or nats_creds)", all[0])
	}
}

// checkFile: a path set in field must name an existing file.
func checkFile(p *problems, field, path, want string) {
	if path == "" {
		return
	}
	if fi, err := os.Stat(path); err != nil {
		p.add(field, "%q %w", path, statErr(err))
	} else if fi.IsDir() {
		p.add(field, "%q is a directory (want %s)", path, want)
	}
}
