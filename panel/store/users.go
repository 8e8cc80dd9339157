package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ErrUserExists is returned by CreateUser for a name already taken.
var ErrUserExists = errors.New("an operator with that name already exists")

// User is one operator of the panel.
type User struct {
	ID           int64
	Name         string
	PasswordHash string // argon2id PHC string; never shown
	Role         string // admin | operator | viewer (auth.Role)
	Disabled     bool
	CreatedAt    time.Time
	Licenses     []string // granted licenses, sorted (Users and UserByName fill it)
}

const userCols = `u.id, u.name, u.password_hash, u.role, u.disabled, u.created_at,
	coalesce(array(SELECT g.license_id FROM panel_grants g WHERE g.user_id = u.id ORDER BY g.license_id), '{}')`

func scanUser(row pgx.Row) (User, error) {
	var u User
	err := row.Scan(&u.ID, &u.Name, &u.PasswordHash, &u.Role, &u.Disabled, &u.CreatedAt, &u.Licenses)
	return u, err
}

// CreateUser adds an operator with a password hash and a role, returning
// it. A taken name is ErrUserExists.
func (s *Store) CreateUser(ctx context.Context, name, passwordHash, role string) (User, error) {
	row := s.pool.QueryRow(ctx, `INSERT INTO panel_users (name, password_hash, role) VALUES ($1, $2, $3)
		RETURNING id, name, password_hash, role, disabled, created_at, '{}'::text[]`, name, passwordHash, role)
	u, err := scanUser(row)
	if usersPGCode(err) == pgUniqueViolation {
		return User{}, fmt.Errorf("create user %q: %w", name, ErrUserExists)
	}
	if err != nil {
		return User{}, fmt.Errorf("create user %q: %w", name, err)
	}
	return u, nil
}

// UserByName returns an operator with their grants, or ErrNotFound.
func (s *Store) UserByName(ctx context.Context, name string) (User, error) {
	return s.userWhere(ctx, strconv.Quote(name), "u.name", name)
}

// UserByID returns an operator with their grants, or ErrNotFound.
func (s *Store) UserByID(ctx context.Context, id int64) (User, error) {
	return s.userWhere(ctx, strconv.FormatInt(id, 10), "u.id", id)
}

// userWhere reads the one operator whose column col is key, or
// ErrNotFound; who names them in the error.
func (s *Store) userWhere(ctx context.Context, who, col string, key any) (User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userCols+` FROM panel_users u WHERE `+col+` = $1`, key))
	if errors.Is(err, pgx.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("user %s: %w", who, err)
	}
	return u, nil
}

// Users lists every operator by name, with their grants.
func (s *Store) Users(ctx context.Context) ([]User, error) {
	return queryRows(ctx, s.pool, "list users", func(r pgx.CollectableRow) (User, error) { return scanUser(r) },
		`SELECT `+userCols+` FROM panel_users u ORDER BY u.name`)
}

// UserCount is the number of operators (0 on a fresh panel).
func (s *Store) UserCount(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM panel_users`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count users: %w", err)
	}
	return n, nil
}

// SetRole changes an operator's role.
func (s *Store) SetRole(ctx context.Context, userID int64, role string) error {
	return s.execUser(ctx, userID, "set role", `UPDATE panel_users SET role = $2 WHERE id = $1`, role)
}

// DisableUser disables an operator and ends every session of theirs at
// once.
func (s *Store) DisableUser(ctx context.Context, userID int64) error {
	return s.inUserTx(ctx, userID, "disable user", `UPDATE panel_users SET disabled = true WHERE id = $1`)
}

// EnableUser lets a disabled operator log in again.
func (s *Store) EnableUser(ctx context.Context, userID int64) error {
	return s.execUser(ctx, userID, "enable user", `UPDATE panel_users SET disabled = false WHERE id = $1`)
}

// SetPassword stores a new password hash and ends every session of the
// operator (whoever knew the old password is logged out).
func (s *Store) SetPassword(ctx context.Context, userID int64, passwordHash string) error {
	return s.inUserTx(ctx, userID, "set password", `UPDATE panel_users SET password_hash = $2 WHERE id = $1`, passwordHash)
}

// DeleteUser removes an operator, their sessions and grants (audit rows
// keep their name).
func (s *Store) DeleteUser(ctx context.Context, userID int64) error {
	return s.execUser(ctx, userID, "delete user", `DELETE FROM panel_users WHERE id = $1`)
}

// execUser runs one statement on a user row; no row is ErrNotFound.
func (s *Store) execUser(ctx context.Context, userID int64, what, sql string, args ...any) error {
	tag, err := s.pool.Exec(ctx, sql, append([]any{userID}, args...)...)
	if err != nil {
		return fmt.Errorf("%s %d: %w", what, userID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%s %d: %w", what, userID, ErrNotFound)
	}
	return nil
}

// inUserTx runs one statement on a user row and deletes their sessions,
// in one transaction.
func (s *Store) inUserTx(ctx context.Context, userID int64, what, sql string, args ...any) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, sql, append([]any{userID}, args...)...)
		if err != nil {
			return fmt.Errorf("%s %d: %w", what, userID, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("%s %d: %w", what, userID, ErrNotFound)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM panel_sessions WHERE user_id = $1`, userID); err != nil {
			return fmt.Errorf("%s %d: end sessions: %w", what, userID, err)
		}
		return nil
	})
}

// Grants returns the licenses granted to an operator, sorted.
func (s *Store) Grants(ctx context.Context, userID int64) ([]string, error) {
	return queryRows(ctx, s.pool, "grants of "+strconv.FormatInt(userID, 10), pgx.RowTo[string],
		`SELECT license_id FROM panel_grants WHERE user_id = $1 ORDER BY license_id`, userID)
}

// SetGrants replaces an operator's grants with exactly licenses. An
// unknown user or license is ErrNotFound.
func (s *Store) SetGrants(ctx context.Context, userID int64, licenses []string) error {
	licenses = slices.Compact(slices.Sorted(slices.Values(licenses)))
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM panel_grants WHERE user_id = $1`, userID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO panel_grants (user_id, license_id) SELECT $1, unnest($2::text[])`, userID, licenses)
		return err
	})
	if usersPGCode(err) == pgFKViolation {
		return fmt.Errorf("set grants of %d: %w (user or license)", userID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("set grants of %d: %w", userID, err)
	}
	return nil
}

// Grant gives an operator a license (granting it twice is not an error).
// An unknown user or license is ErrNotFound.
func (s *Store) Grant(ctx context.Context, userID int64, license string) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO panel_grants (user_id, license_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, userID, license)
	if usersPGCode(err) == pgFKViolation {
		return fmt.Errorf("grant %s to %d: %w (user or license)", license, userID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("grant %s to %d: %w", license, userID, err)
	}
	return nil
}

// Revoke takes a license from an operator (revoking what was never granted
// is not an error).
func (s *Store) Revoke(ctx context.Context, userID int64, license string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM panel_grants WHERE user_id = $1 AND license_id = $2`, userID, license); err != nil {
		return fmt.Errorf("revoke %s from %d: %w", license, userID, err)
	}
	return nil
}

// Postgres error codes the user queries map to sentinel errors.
const (
	pgUniqueViolation = "23505"
	pgFKViolation     = "23503"
)

// usersPGCode is the SQLSTATE of a Postgres error ("" for other errors).
func usersPGCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
