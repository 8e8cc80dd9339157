package world

import (
	"context"
	"errors"
	"fmt"

	"github.com/corrosion/corrosion/worldsrv/account"
	"github.com/corrosion/corrosion/worldsrv/engine"
)

// storeAccounts is the account store as the engine's Accounts: its account
// and its errors in the engine's terms (a bad name or password wraps
// engine.ErrBadCredentials).
type storeAccounts struct{ s *account.Store }

var _ engine.Accounts = storeAccounts{}

func (a storeAccounts) Login(ctx context.Context, name, password string) (engine.Account, error) {
	acc, err := a.s.Login(ctx, name, password)
	switch {
	case errors.Is(err, account.ErrBadCredentials) || errors.Is(err, account.ErrBadName):
		return engine.Account{}, fmt.Errorf("%w: %w", engine.ErrBadCredentials, err)
	case err != nil:
		return engine.Account{}, err
	}
	return engine.Account{User37: acc.User37, Name: acc.Name}, nil
}
