package social_test

import (
	"fmt"
	"testing"

	"github.com/corrosion/corrosion/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func errorf(format string, a ...any) error { return fmt.Errorf(format, a...) }
