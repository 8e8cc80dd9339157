package installer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ReadEnvFile reads the variables of an agent.env (NAME=value lines, the
// format of systemd's EnvironmentFile; see parseEnvFile). A missing file
// has none. The Windows service reads its agent.env with it at each start,
// as systemd does on Linux; the Windows install validates the config with
// it.
func ReadEnvFile(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return parseEnvFile(b), nil
}

// EnvLookup looks a name up in env, then in the process environment.
func EnvLookup(env map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if v, ok := env[name]; ok {
			return v, true
		}
		return os.LookupEnv(name)
	}
}
