package app

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/corrosion/corrosion/internal/flagval"
	"github.com/corrosion/corrosion/internal/natsconn"
	"github.com/corrosion/corrosion/internal/redact"
)

// Defaults (DESIGN.md sections 3 and 7).
const (
	DefaultListen  = "127.0.0.1:7780"
	DefaultNATSURL = "nats://127.0.0.1:4222"
)

// ErrConfig marks an invalid configuration; the message names the flag and
// its environment variable.
var ErrConfig = errors.New("invalid config")

// Config is what `corrosion-panel serve` needs.
type Config struct {
	Listen      string // --listen [CORROSION_PANEL_LISTEN]: host:port of the HTTP server
	DatabaseURL string // --database-url [DATABASE_URL], --database-url-file [DATABASE_URL_FILE]: Postgres; secret parts never printed
	NATSURL     string // --nats-url [NATS_URL]: comma-separated list

	// At most one way to authenticate to NATS besides credentials in the
	// URL, as the agent's options: user and password, a token, a .creds
	// file, an nkey seed file. NATSCAFile adds a CA for the servers' TLS.
	NATSUser         string // --nats-user [NATS_USER]
	NATSPassword     string // --nats-password [NATS_PASSWORD], --nats-password-file [NATS_PASSWORD_FILE]; secret
	NATSToken        string // --nats-token [NATS_TOKEN], --nats-token-file [NATS_TOKEN_FILE]; secret
	NATSCreds        string // --nats-creds [NATS_CREDS]: a .creds file
	NATSNKeySeedFile string // --nats-nkey-seed-file [NATS_NKEY_SEED_FILE]
	NATSCAFile       string // --nats-ca-file [NATS_CA_FILE]

	// TrustedOrigins are extra origins (scheme://host[:port]) allowed to
	// send state-changing requests, e.g. a load balancer's public name.
	TrustedOrigins []string // --trusted-origins [CORROSION_PANEL_TRUSTED_ORIGINS]
	// TrustedProxies are the load balancers (addresses or CIDR prefixes)
	// whose X-Forwarded-For names the client, for the audit log and the
	// failed-login limit.
	TrustedProxies []string // --trusted-proxies [CORROSION_PANEL_TRUSTED_PROXIES]
	// SecureCookies marks session cookies Secure: set it when the panel is
	// reached over HTTPS (behind a TLS-terminating proxy).
	SecureCookies bool // --secure-cookies [CORROSION_PANEL_SECURE_COOKIES]
	// MetricsToken lets a scraper read /metrics with `Authorization:
	// Bearer <token>`; an admin's session always may. Empty: admins only.
	MetricsToken string     // --metrics-token [CORROSION_PANEL_METRICS_TOKEN], --metrics-token-file [CORROSION_PANEL_METRICS_TOKEN_FILE]; secret
	LogLevel     slog.Level // --log-level [CORROSION_PANEL_LOG_LEVEL]

	// ProbePrivate lets the inbound reachability probe connect to private,
	// loopback and the panel's own addresses (reach.Options.AllowPrivate):
	// `corrosion-panel dev` sets it for its fleet on loopback; serve has
	// no flag for it, so production probes public addresses only.
	ProbePrivate bool
}

// DefaultConfig is the configuration before the environment and flags.
func DefaultConfig() Config {
	return Config{Listen: DefaultListen, NATSURL: DefaultNATSURL, LogLevel: slog.LevelInfo}
}

// vars binds each field to its flag and environment variable.
func (c *Config) vars() []flagval.Var {
	str := func(p *string) func() string { return func() string { return *p } }
	return []flagval.Var{
		{Flag: "listen", Env: "CORROSION_PANEL_LISTEN", Usage: "HTTP address host:port", Set: flagval.String(&c.Listen), Get: str(&c.Listen)},
		{Flag: "database-url", Env: "DATABASE_URL", Usage: flagval.SecretUsage("Postgres URL, e.g. postgres://user:pass@host:5432/corrosion_panel", "DATABASE_URL", "database-url-file"), Set: flagval.String(&c.DatabaseURL), Get: func() string { return redact.URL(c.DatabaseURL) }},
		{Flag: "database-url-file", Env: "DATABASE_URL_FILE", Usage: "file holding the Postgres URL", Set: flagval.SecretFile(&c.DatabaseURL), Get: flagval.NoDefault},
		{Flag: "nats-url", Env: "NATS_URL", Usage: "comma-separated NATS URLs", Set: flagval.String(&c.NATSURL), Get: func() string { return redact.List(c.NATSURL) }},
		{Flag: "nats-user", Env: "NATS_USER", Usage: "NATS user (with --nats-password)", Set: flagval.String(&c.NATSUser), Get: str(&c.NATSUser)},
		{Flag: "nats-password", Env: "NATS_PASSWORD", Usage: flagval.SecretUsage("NATS password", "NATS_PASSWORD", "nats-password-file"), Set: flagval.String(&c.NATSPassword), Get: func() string { return flagval.Shown(c.NATSPassword) }},
		{Flag: "nats-password-file", Env: "NATS_PASSWORD_FILE", Usage: "file holding the NATS password", Set: flagval.SecretFile(&c.NATSPassword), Get: flagval.NoDefault},
		{Flag: "nats-token", Env: "NATS_TOKEN", Usage: flagval.SecretUsage("NATS token", "NATS_TOKEN", "nats-token-file"), Set: flagval.String(&c.NATSToken), Get: func() string { return flagval.Shown(c.NATSToken) }},
		{Flag: "nats-token-file", Env: "NATS_TOKEN_FILE", Usage: "file holding the NATS token", Set: flagval.SecretFile(&c.NATSToken), Get: flagval.NoDefault},
		{Flag: "nats-creds", Env: "NATS_CREDS", Usage: "NATS .creds file (JWT and nkey)", Set: flagval.String(&c.NATSCreds), Get: str(&c.NATSCreds)},
		{Flag: "nats-nkey-seed-file", Env: "NATS_NKEY_SEED_FILE", Usage: "NATS nkey seed file", Set: flagval.String(&c.NATSNKeySeedFile), Get: str(&c.NATSNKeySeedFile)},
		{Flag: "nats-ca-file", Env: "NATS_CA_FILE", Usage: "CA file for the NATS servers' TLS", Set: flagval.String(&c.NATSCAFile), Get: str(&c.NATSCAFile)},
		{Flag: "trusted-origins", Env: "CORROSION_PANEL_TRUSTED_ORIGINS", Usage: "comma-separated extra origins (scheme://host[:port]) allowed to post, e.g. a load balancer's", Set: flagval.List(&c.TrustedOrigins), Get: func() string { return strings.Join(c.TrustedOrigins, ",") }},
		{Flag: "trusted-proxies", Env: "CORROSION_PANEL_TRUSTED_PROXIES", Usage: "comma-separated addresses or CIDR prefixes of load balancers whose X-Forwarded-For names the client", Set: flagval.List(&c.TrustedProxies), Get: func() string { return strings.Join(c.TrustedProxies, ",") }},
		{Flag: "secure-cookies", Env: "CORROSION_PANEL_SECURE_COOKIES", Usage: "mark session cookies Secure (the panel is reached over HTTPS)", Set: flagval.Bool(&c.SecureCookies), Get: func() string { return strconv.FormatBool(c.SecureCookies) }, Bool: true},
		{Flag: "metrics-token", Env: "CORROSION_PANEL_METRICS_TOKEN", Usage: flagval.SecretUsage("bearer token a Prometheus scraper sends for /metrics (admins' sessions always may read it)", "CORROSION_PANEL_METRICS_TOKEN", "metrics-token-file"), Set: flagval.String(&c.MetricsToken), Get: func() string { return flagval.Shown(c.MetricsToken) }},
		{Flag: "metrics-token-file", Env: "CORROSION_PANEL_METRICS_TOKEN_FILE", Usage: "file holding the /metrics bearer token", Set: flagval.SecretFile(&c.MetricsToken), Get: flagval.NoDefault},
		{Flag: "log-level", Env: "CORROSION_PANEL_LOG_LEVEL", Usage: "debug, info, warn or error", Set: flagval.Level(&c.LogLevel), Get: func() string { return flagval.LevelName(c.LogLevel) }},
	}
}

// LoadConfig builds the configuration in the one order
// (docs/development.md, *Configuration*): defaults, the environment
// (getenv), args, Validate (the panel resolves nothing). Help is
// flag.ErrHelp; usage goes to out.
func LoadConfig(name string, args []string, getenv func(string) string, out io.Writer) (Config, error) {
	c := DefaultConfig()
	vars := c.vars()
	if err := flagval.Layer(flagval.EnvVars(vars), getenv, flagval.FlagSet(name, vars, out), args, ErrConfig); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// Validate names the first bad field; it does not change c.
func (c Config) Validate() error {
	bad := func(what, format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrConfig, what, fmt.Sprintf(format, a...))
	}
	if err := validListen(c.Listen); err != nil {
		return bad("--listen (CORROSION_PANEL_LISTEN)", "%v", err)
	}
	if strings.TrimSpace(c.DatabaseURL) == "" {
		return bad("--database-url (DATABASE_URL)", "not set; e.g. postgres://user:pass@127.0.0.1:5432/corrosion_panel")
	}
	if _, err := pgx.ParseConfig(c.DatabaseURL); err != nil {
		return bad("--database-url (DATABASE_URL)", "%q does not parse", redact.URL(c.DatabaseURL))
	}
	if err := c.validateNATS(); err != nil {
		return err
	}
	for _, o := range c.TrustedOrigins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return bad("--trusted-origins (CORROSION_PANEL_TRUSTED_ORIGINS)", "%q is not an origin like https://panel.example.com", o)
		}
	}
	for _, p := range c.TrustedProxies {
		if _, err := netip.ParsePrefix(p); err == nil {
			continue
		}
		if _, err := netip.ParseAddr(p); err != nil {
			return bad("--trusted-proxies (CORROSION_PANEL_TRUSTED_PROXIES)", "%q is not an address or CIDR prefix like 10.0.0.0/8", p)
		}
	}
	if name := flagval.LevelName(c.LogLevel); strings.Trim(name, "-0123456789") == "" {
		return bad("--log-level (CORROSION_PANEL_LOG_LEVEL)", "%s is not debug, info, warn or error", name)
	}
	return nil
}

func validListen(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port", addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("%q: port %q is not 0-65535", addr, port)
	}
	_ = host // empty: every interface
	return nil
}

// NATSURLs returns the entries of NATSURL, split on commas and trimmed.
func (c Config) NATSURLs() []string { return natsconn.URLs(c.NATSURL) }

func (c Config) validateNATS() error {
	bad := func(what, format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrConfig, what, fmt.Sprintf(format, a...))
	}
	urls := c.NATSURLs()
	if len(urls) == 0 {
		return bad("--nats-url (NATS_URL)", "no URL; e.g. nats://127.0.0.1:4222")
	}
	for _, s := range urls {
		if natsconn.CheckURL(s) != nil {
			return bad("--nats-url (NATS_URL)", "%q is not a URL like nats://host:4222", redact.URL(s))
		}
	}
	var ways []string
	if c.NATSUser != "" || c.NATSPassword != "" {
		ways = append(ways, "--nats-user/--nats-password")
		if c.NATSUser == "" {
			return bad("--nats-user (NATS_USER)", "empty while --nats-password is set")
		}
	}
	for _, w := range []struct{ name, v string }{{"--nats-token", c.NATSToken}, {"--nats-creds", c.NATSCreds}, {"--nats-nkey-seed-file", c.NATSNKeySeedFile}} {
		if w.v != "" {
			ways = append(ways, w.name)
		}
	}
	if len(ways) > 1 {
		return bad("NATS credentials", "set one way to authenticate, not %s", strings.Join(ways, " and "))
	}
	for _, f := range []struct{ name, path string }{
		{"--nats-creds (NATS_CREDS)", c.NATSCreds},
		{"--nats-nkey-seed-file (NATS_NKEY_SEED_FILE)", c.NATSNKeySeedFile},
		{"--nats-ca-file (NATS_CA_FILE)", c.NATSCAFile},
	} {
		if f.path == "" {
			continue
		}
		if fi, err := os.Stat(f.path); err != nil || fi.IsDir() {
			return bad(f.name, "%s is not a readable file", f.path)
		}
	}
	return nil
}
