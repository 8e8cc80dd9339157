package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Session is one logged-in browser, with its operator.
type Session struct {
	UserID    int64
	CreatedAt time.Time
	ExpiresAt time.Time // absolute expiry
	LastSeen  time.Time // idle expiry counts from here
	User      User      // with grants
}

// CreateSession stores a session under the sha256 of its token.
func (s *Store) CreateSession(ctx context.Context, tokenHash []byte, userID int64, now, expiresAt time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO panel_sessions (token_hash, user_id, created_at, expires_at, last_seen)
		VALUES ($1, $2, $3, $4, $3)`, tokenHash, userID, now, expiresAt)
	if usersPGCode(err) == pgFKViolation {
		return fmt.Errorf("create session: user %d: %w", userID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

// SessionByHash returns a session with its operator and their grants, or
// ErrNotFound. It does not judge expiry or a disabled user: the caller does.
func (s *Store) SessionByHash(ctx context.Context, tokenHash []byte) (Session, error) {
	var se Session
	u := &se.User
	err := s.pool.QueryRow(ctx, `SELECT s.created_at, s.expires_at, s.last_seen, `+userCols+`
		FROM panel_sessions s JOIN panel_users u ON u.id = s.user_id WHERE s.token_hash = $1`, tokenHash).
		Scan(&se.CreatedAt, &se.ExpiresAt, &se.LastSeen, &u.ID, &u.Name, &u.PasswordHash, &u.Role, &u.Disabled, &u.CreatedAt, &u.Licenses)
	if errors.Is(err, pgx.ErrNoRows) {
		return Session{}, fmt.Errorf("session: %w", ErrNotFound)
	}
	if err != nil {
		return Session{}, fmt.Errorf("session: %w", err)
	}
	se.UserID = u.ID
	return se, nil
}

// TouchSession moves a session's last_seen to now (idle expiry).
func (s *Store) TouchSession(ctx context.Context, tokenHash []byte, now time.Time) error {
	if _, err := s.pool.Exec(ctx, `UPDATE panel_sessions SET last_seen = $2 WHERE token_hash = $1 AND last_seen < $2`, tokenHash, now); err != nil {
		return fmt.Errorf("touch session: %w", err)
	}
	return nil
}

// DeleteSession ends one session (logout); an unknown one is not an error.
func (s *Store) DeleteSession(ctx context.Context, tokenHash []byte) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM panel_sessions WHERE token_hash = $1`, tokenHash); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// DeleteUserSessions ends every session of an operator, returning how many.
func (s *Store) DeleteUserSessions(ctx context.Context, userID int64) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM panel_sessions WHERE user_id = $1`, userID)
	if err != nil {
		return 0, fmt.Errorf("delete sessions of %d: %w", userID, err)
	}
	return tag.RowsAffected(), nil
}

// PruneSessions deletes sessions past their absolute expiry or idle for
// longer than idle, returning how many.
func (s *Store) PruneSessions(ctx context.Context, now time.Time, idle time.Duration) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM panel_sessions WHERE expires_at <= $1 OR last_seen <= $2`, now, now.Add(-idle))
	if err != nil {
		return 0, fmt.Errorf("prune sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}

// SessionCount is the number of stored sessions.
func (s *Store) SessionCount(ctx context.Context) (int64, error) {
	var n int64
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM panel_sessions`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count sessions: %w", err)
	}
	return n, nil
}
