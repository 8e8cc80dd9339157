package hostile

import (
	"testing"

	"github.com/corrosion/corrosion/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
