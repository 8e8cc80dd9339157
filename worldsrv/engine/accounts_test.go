package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/corrosion/corrosion/worldsrv/account"
	"github.com/corrosion/corrosion/worldsrv/account/accounttest"
)

// storeAccounts is the real account store as Accounts, as worldsrv/world
// adapts it (which the engine's own tests cannot import).
type storeAccounts struct{ s *account.Store }

func (a storeAccounts) Login(ctx context.Context, name, password string) (Account, error) {
	acc, err := a.s.Login(ctx, name, password)
	if errors.Is(err, account.ErrBadCredentials) || errors.Is(err, account.ErrBadName) {
		err = fmt.Errorf("%w: %w", ErrBadCredentials, err)
	}
	return Account{User37: acc.User37, Name: acc.Name}, err
}

// testAccounts is a fresh real account store (accounttest) as Accounts.
func testAccounts(t *testing.T) Accounts { return storeAccounts{accounttest.New(t)} }

// noAccounts stands in for the accounts where no account check runs
// (players placed directly).
type noAccounts struct{}

func (noAccounts) Login(context.Context, string, string) (Account, error) {
	return Account{}, errors.New("no accounts in this test")
}
