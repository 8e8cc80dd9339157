package flagval

import (
	"errors"
	"flag"
	"fmt"
)

// EnvVar is a setting's environment variable and its setter.
type EnvVar struct {
	Name string
	Set  Setter
}

// Layer is the middle of the one order every config loader follows
// (docs/development.md, *Configuration*): defaults (the caller's Config
// as it stands), then the environment (getenv; an empty variable is
// unset), then args parsed on fs, whose flags win. The caller then
// resolves what is left to a default and validates. Help is
// flag.ErrHelp as is; every other error wraps errConfig (the binary's
// ErrConfig): a bad variable named with its value quoted (setters that can
// fail take no secrets: strings never fail), a bad flag, a stray argument.
func Layer(env []EnvVar, getenv func(string) string, fs *flag.FlagSet, args []string, errConfig error) error {
	for _, v := range env {
		if s := getenv(v.Name); s != "" {
			if err := v.Set(s); err != nil {
				return fmt.Errorf("%w: %s=%q: %v", errConfig, v.Name, s, err)
			}
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errConfig, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errConfig, fs.Arg(0))
	}
	return nil
}
