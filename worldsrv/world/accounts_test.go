package world

import (
	"context"
	"errors"
	"testing"

	"github.com/corrosion/corrosion/internal/pgtest"
	"github.com/corrosion/corrosion/worldsrv/account/accounttest"
	"github.com/corrosion/corrosion/worldsrv/engine"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// The store, as the engine sees it: an account in the engine's terms, and a
// bad name or password as engine.ErrBadCredentials (answered 3), nothing
// else.
func TestStoreAccounts_Login(t *testing.T) {
	a := storeAccounts{accounttest.New(t)}
	ctx := context.Background()
	acc, err := a.Login(ctx, "Zezima", "secret12")
	if err != nil || acc.User37 == 0 || acc.Name != "Zezima" {
		t.Fatalf("first login = %+v, %v; want the registered account", acc, err)
	}
	if again, err := a.Login(ctx, "zezima", "secret12"); err != nil || again != acc {
		t.Fatalf("second login = %+v, %v; want %+v", again, err, acc)
	}
	for _, tt := range []struct{ name, password string }{{"Zezima", "wrong-one"}, {"bad!name", "secret12"}} {
		if _, err := a.Login(ctx, tt.name, tt.password); !errors.Is(err, engine.ErrBadCredentials) {
			t.Errorf("login %q/%q = %v, want engine.ErrBadCredentials", tt.name, tt.password, err)
		}
	}
}
