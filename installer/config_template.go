package installer

import _ "embed"

// ConfigTemplate is the agent.toml that Install writes when none exists: a
// starting point whose empty license_id makes `corrosion-agent validate`
// fail with "agent.license_id: is not set", so the service is not started
// until the host is configured.
//
//go:embed templates/agent.toml
var ConfigTemplate string
