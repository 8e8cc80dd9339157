// Package logdest decides where worldsrv and ether write their logs:
// stderr, as a program run by hand does, or stdout when the corrosion
// agent runs them (or when asked), so that the agent's console shows their
// INFO lines as output rather than as errors.
package logdest

import "io"

// AgentEnv is set by the corrosion-agent in the environment of every
// instance it runs (its value is the instance id); its presence means
// "run by the agent".
const AgentEnv = "CORROSION_INSTANCE_ID"

// Writer is stdout when toStdout (the program's --log-stdout flag) is
// set or the agent runs the program, stderr otherwise.
func Writer(toStdout bool, getenv func(string) string, stdout, stderr io.Writer) io.Writer {
	if toStdout || getenv(AgentEnv) != "" {
		return stdout
	}
	return stderr
}
