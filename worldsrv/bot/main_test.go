package bot_test

import (
	"testing"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/worldsrv/bot/worldtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const wait = worldtest.Wait

func startWorld(t *testing.T) string { t.Helper(); return worldtest.Start(t) }
