package netserve

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/corrosion/corrosion/worldsrv/account"
	"github.com/corrosion/corrosion/worldsrv/account/accounttest"
	"github.com/corrosion/corrosion/worldsrv/engine"
)

// testAccounts is a fresh real account store (accounttest) as the engine's
// Accounts, adapted as worldsrv/world does (which imports this package, so
// its tests cannot import it).
func testAccounts(t *testing.T) engine.Accounts { return storeAccounts{accounttest.New(t)} }

type storeAccounts struct{ s *account.Store }

func (a storeAccounts) Login(ctx context.Context, name, password string) (engine.Account, error) {
	acc, err := a.s.Login(ctx, name, password)
	if errors.Is(err, account.ErrBadCredentials) || errors.Is(err, account.ErrBadName) {
		err = fmt.Errorf("%w: %w", engine.ErrBadCredentials, err)
	}
	return engine.Account{User37: acc.User37, Name: acc.Name}, err
}
