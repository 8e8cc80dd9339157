package store

import (
	"context"
	"fmt"
)

// RecordAudit writes one audit row. A zero At is the database's now; a
// zero UserID is stored as NULL (anonymous, e.g. a failed login).
func (s *Store) RecordAudit(ctx context.Context, e AuditEntry) error {
	if e.Action == "" {
		return fmt.Errorf("record audit: empty action")
	}
	if e.Result != AuditOK && e.Result != AuditDenied && e.Result != AuditError {
		return fmt.Errorf("record audit %s: unknown result %q", e.Action, e.Result)
	}
	var userID *int64
	if e.UserID != 0 {
		userID = &e.UserID
	}
	const q = `INSERT INTO panel_audit
		(at, user_id, user_name, remote_addr, action, license_id, instance_id, target, result, detail)
		VALUES (COALESCE($1, now()), $2, $3, $4, $5, $6, $7, $8, $9, $10)`
	var at any
	if !e.At.IsZero() {
		at = e.At
	}
	_, err := s.pool.Exec(ctx, q, at, userID, e.UserName, e.RemoteAddr, e.Action,
		e.License, e.Instance, e.Target, string(e.Result), e.Detail)
	if err != nil {
		return fmt.Errorf("record audit %s: %w", e.Action, err)
	}
	return nil
}
