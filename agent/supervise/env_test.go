//go:build unix

package supervise

import (
	"testing"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
)

// TestSupervisor_GameEnvironment: a secret in the agent's environment does
// not reach the game; the base set and the instance's env do.
func TestSupervisor_GameEnvironment(t *testing.T) {
	t.Setenv("CORROSION_TEST_SECRET", "s3cret")
	t.Setenv("TZ", "UTC")
	f := newFixture(t, func(c *config.Instance, _ *Policy) { c.Env = map[string]string{"GIVEN": "yes"} },
		"-print-env", "CORROSION_TEST_SECRET,GIVEN,TZ,PATH")
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	f.waitState(t, wire.StateRunning)
	for _, want := range []string{"env CORROSION_TEST_SECRET unset", "env GIVEN=yes", "env TZ=UTC", "env PATH=/"} {
		f.waitLine(t, want)
	}
	if f.sink.hasLine("s3cret") {
		t.Fatal("the agent's secret reached the game")
	}
}

func TestSupervisor_GameEnvironment_InheritEnv(t *testing.T) {
	t.Setenv("CORROSION_TEST_SECRET", "s3cret")
	f := newFixture(t, func(c *config.Instance, _ *Policy) { c.InheritEnv = true },
		"-print-env", "CORROSION_TEST_SECRET")
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	f.waitLine(t, "env CORROSION_TEST_SECRET=s3cret")
}
