package installer

import (
	"errors"
	"testing"

	"github.com/corrosion/corrosion/agent/config"
)

// withValidator gives o the agent's config loader, as corrosion-agent
// install does.
func withValidator(o Options) Options {
	if o.ValidateConfig == nil {
		o.ValidateConfig = func(data []byte, lookup func(string) (string, bool)) error {
			_, err := config.Parse(data, lookup)
			return err
		}
	}
	return o
}

func TestOptions_NoValidatorIsAProblem(t *testing.T) {
	if err := (Options{}).validateConfig([]byte(ConfigTemplate), nil); !errors.Is(err, errNoValidator) {
		t.Fatalf("validateConfig without a validator = %v, want errNoValidator", err)
	}
	if err := withValidator(Options{}).validateConfig([]byte("not = [toml"), func(string) (string, bool) { return "", false }); err == nil {
		t.Fatal("the agent's loader accepted a broken config")
	}
}
