package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// ErrUsage marks a bad command line or configuration (see Exit).
var ErrUsage = errors.New("usage")

// BadUsage marks err as a bad command line or configuration: Exit turns
// it into ExitUsage. Its message is err's; nil stays nil.
func BadUsage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// usageError is an error marked by BadUsage.
type usageError struct{ error }

func (e usageError) Unwrap() []error { return []error{e.error, ErrUsage} }

// Exit reports how a command ended and returns its exit code: ExitOK for
// nil and for flag.ErrHelp (the flag set has printed its usage), else it
// writes "<who>: <err>" on its own line to w and returns ExitUsage for an
// error marked with ErrUsage (BadUsage) and ExitFail for any other.
func Exit(w io.Writer, who string, err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	fmt.Fprintf(w, "%s: %v\n", who, err)
	if errors.Is(err, ErrUsage) {
		return ExitUsage
	}
	return ExitFail
}

// FlagExit is the exit code after a flag set's Parse failed with err,
// when the flag set has already said why (or printed its usage): ExitOK
// for --help, ExitUsage for anything else.
func FlagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	return ExitUsage
}

// ConfigExit is the exit code of a command whose flags and environment
// did not load (err is not nil): for --help (flag.ErrHelp) it prints
// usage on stdout and returns ExitOK; for anything else it writes
// "<who>: <err>" on stderr and returns ExitUsage.
func ConfigExit(stdout, stderr io.Writer, who string, err error, usage func(io.Writer)) int {
	if errors.Is(err, flag.ErrHelp) {
		usage(stdout)
		return ExitOK
	}
	return Exit(stderr, who, BadUsage(err))
}
