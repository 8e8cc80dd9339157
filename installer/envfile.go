package installer

import (
	"bufio"
	"bytes"
	"strings"
)

// parseEnvFile reads a systemd EnvironmentFile (NAME=value per line; blank
// lines and lines starting with # or ; are skipped; a value in matching
// single or double quotes loses them), as the service will see it.
func parseEnvFile(data []byte) map[string]string {
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if n := len(value); n >= 2 && (value[0] == '"' || value[0] == '\'') && value[n-1] == value[0] {
			value = value[1 : n-1]
		}
		env[name] = value
	}
	return env
}
