package console

import (
	"net/http"
	"time"

	"github.com/corrosion/corrosion/agent/wire"
)

// consolesTimeout bounds the status request a console or RCON tab makes
// to learn what the instance offers; the page renders without it after.
const consolesTimeout = 2 * time.Second

// consoles asks the agent which consoles the instance offers (the status
// reply's wire.Consoles). The zero value, "unknown" (an agent older than
// the fields, or none answering), hides nothing.
func (f *Feature) consoles(r *http.Request, license, instance string) wire.Consoles {
	ctx, cancel := contextWithTimeout(r, consolesTimeout)
	defer cancel()
	var st wire.InstanceStatus
	if err := f.Agent.Instance(ctx, license, instance, wire.FuncStatus, nil, &st); err != nil {
		return wire.Consoles{}
	}
	return st.Consoles
}

// noRCON is what the RCON tab says up front when the agent reports the
// instance has no RCON; "" otherwise.
func noRCON(c wire.Consoles) string {
	if c.RCON != wire.RCONNone {
		return ""
	}
	return "This instance has no RCON: there is no [instance.rcon] for it in the agent's config, so there is nothing to send commands to."
}

// noInput is what the console tab says up front when the agent reports it
// cannot write the instance's console input; "" otherwise.
func noInput(c wire.Consoles) string {
	if c.ConsoleInput == nil || *c.ConsoleInput {
		return ""
	}
	return "This instance reads no console input: the agent only watches it (no exec in its config), so there is no process to type into."
}
