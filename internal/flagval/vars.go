package flagval

import (
	"flag"
	"io"
	"strings"
)

// Var is one setting of a binary's config: its flag, its environment
// variable ("" when it has none), its usage, how it is set, and its
// current value as printed (secrets redacted: Shown, NoDefault).
type Var struct {
	Flag  string
	Env   string
	Usage string
	Set   Setter
	Get   func() string
	Bool  bool // a flag given without a value means true
}

// FlagSet declares vars' flags on a new set named name, writing its usage
// to out. A flag's usage names its variable and its default (what Get
// returns now), unless the default is empty or the usage already says it.
func FlagSet(name string, vars []Var, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	for _, v := range vars {
		usage := v.Usage
		if v.Env != "" {
			usage += " [" + v.Env + "]"
		}
		if def := v.Get(); def != "" && !strings.Contains(v.Usage, "(default") {
			usage += " (default " + def + ")"
		}
		if v.Bool {
			fs.BoolFunc(v.Flag, usage, v.Set)
			continue
		}
		fs.Func(v.Flag, usage, v.Set)
	}
	return fs
}

// Load is Layer over vars: their environment variables (getenv), then args
// parsed on FlagSet(name, vars). The caller's config, which vars point
// into, holds its defaults before and the layered values after; it then
// resolves and validates. A binary that prints its usage on --help calls
// Layer(EnvVars(vars), getenv, FlagSet(name, vars, out), …) instead.
func Load(name string, vars []Var, getenv func(string) string, args []string, errConfig error) error {
	return Layer(EnvVars(vars), getenv, FlagSet(name, vars, io.Discard), args, errConfig)
}

// EnvVars are the environment variables of vars, in order (those without
// one left out).
func EnvVars(vars []Var) []EnvVar {
	var env []EnvVar
	for _, v := range vars {
		if v.Env != "" {
			env = append(env, EnvVar{Name: v.Env, Set: v.Set})
		}
	}
	return env
}
