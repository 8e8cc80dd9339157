package flagval

import (
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
// resolves what is left to a default and validates. A bad variable is
// named with its value quoted (setters that can fail take no secrets:
// strings never fail); help is flag.ErrHelp as is; a stray argument is
// refused.
func Layer(env []EnvVar, getenv func(string) string, fs *flag.FlagSet, args []string) error {
	for _, v := range env {
		if s := getenv(v.Name); s != "" {
			if err := v.Set(s); err != nil {
				return fmt.Errorf("%s=%q: %v", v.Name, s, err)
			}
		}
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}
