package fleetui_test

import (
	"testing"

	"github.com/corrosion/corrosion/internal/pgtest"
)

// TestMain removes the package's throwaway PostgreSQL cluster at the end.
func TestMain(m *testing.M) { pgtest.Main(m) }
