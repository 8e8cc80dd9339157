//go:build unix

package supervise

import (
	"errors"
	"testing"

	"github.com/corrosion/corrosion/agent/config"
	"github.com/corrosion/corrosion/agent/wire"
)

func TestSupervisor_SendAndStopCommandViaSend(t *testing.T) {
	f := newFixture(t, func(c *config.Instance, p *Policy) { c.StopCommand = "quit"; c.Restart = config.RestartAlways },
		"-stop-line", "quit")
	if err := f.sup.Send("hello"); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("send to a stopped instance: %v", err)
	}
	if err := f.sup.Start(true); err != nil {
		t.Fatal(err)
	}
	if err := f.sup.Send("hello there"); err != nil {
		t.Fatal(err)
	}
	f.waitLine(t, "echo: hello there")
	if err := f.sup.Send("two\nlines"); err == nil {
		t.Fatal("a line with a newline was accepted")
	}
	if err := f.sup.Send("quit"); err != nil {
		t.Fatal(err)
	}
	st := f.waitState(t, wire.StateStopped)
	if st.RestartIn != nil || !st.ManualStop {
		t.Fatalf("a typed stop command counted as a crash: %+v events %v", st, f.sink.states())
	}
}
