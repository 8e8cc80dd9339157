//go:build unix

package supervise

import (
	"slices"
	"strings"
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

// TestGameEnviron_NamesTheInstance: with a license the game is told its
// license and instance id, and its env table cannot say otherwise; without
// one (worldsrv's sidecar) it is told nothing.
func TestGameEnviron_NamesTheInstance(t *testing.T) {
	t.Setenv(EnvLicenseID, "from-the-agents-env")
	cfg := &config.Instance{ID: "ether10", Env: map[string]string{EnvLicenseID: "demo", EnvInstanceID: "other"}}
	got := map[string][]string{}
	for _, kv := range gameEnviron(cfg, "lic-x") {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = append(got[k], v)
	}
	if l, i := got[EnvLicenseID], got[EnvInstanceID]; !slices.Equal(l, []string{"lic-x"}) || !slices.Equal(i, []string{"ether10"}) {
		t.Fatalf("license %q, instance %q; want [lic-x] and [ether10]", l, i)
	}
	cfg.Env = nil
	for _, kv := range gameEnviron(cfg, "") {
		if strings.HasPrefix(kv, "CORROSION_") {
			t.Fatalf("without a license the game got %q", kv)
		}
	}
}
