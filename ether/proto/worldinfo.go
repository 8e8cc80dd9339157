package proto

import (
	"fmt"
	"net/url"
	"regexp"
)

// agentIDRE is what a license or instance id may be: the agent's rule
// (agent/wire), which neither ether nor worldsrv may import.
var agentIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// MaxPublicURL bounds WorldInfo's PublicURL.
const MaxPublicURL = 512

// CheckAgentIDs reports whether license and instance can be what an agent
// tells its instance (CORROSION_LICENSE_ID, CORROSION_INSTANCE_ID).
func CheckAgentIDs(license, instance string) error {
	switch {
	case !agentIDRE.MatchString(license):
		return fmt.Errorf("license id %q is not [A-Za-z0-9_-]{1,64}", license)
	case !agentIDRE.MatchString(instance):
		return fmt.Errorf("instance id %q is not [A-Za-z0-9_-]{1,64}", instance)
	}
	return nil
}

// Check reports the first field of m a world may not send: the ids as an
// agent's (both or neither), the URL absolute http(s) with a host and no
// credentials, at most MaxPublicURL bytes (or empty).
func (m WorldInfo) Check() error {
	if len(m.License) > 0 || len(m.Instance) > 0 {
		if err := CheckAgentIDs(string(m.License), string(m.Instance)); err != nil {
			return err
		}
	}
	return CheckPublicURL(string(m.PublicURL))
}

// CheckPublicURL reports whether s can be a world's public client URL: empty
// (none), or an absolute http(s) URL with a host and no credentials, at most
// MaxPublicURL bytes.
func CheckPublicURL(s string) error {
	if s == "" {
		return nil
	}
	if len(s) > MaxPublicURL {
		return fmt.Errorf("public url: %d bytes, more than %d", len(s), MaxPublicURL)
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("public url: %w", err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil:
		return fmt.Errorf("public url %q is not an http(s) URL with a host", s)
	}
	return nil
}
