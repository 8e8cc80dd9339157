package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
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

// AuditScope limits the audit rows a non-admin may read: rows of the
// licenses they can view, plus their own actions.
type AuditScope struct {
	UserID   int64
	Licenses []string
}

// AuditFilter selects audit rows. Zero fields do not filter.
type AuditFilter struct {
	Scope    *AuditScope // nil: every row (admins)
	User     string      // exact user name
	Action   string      // exact action, or a prefix ending in '.' ("user.")
	License  string
	Instance string
	Result   AuditResult
	Since    time.Time // at >= Since
	Until    time.Time // at < Until
	Before   int64     // id < Before: the next page after a page whose last id was Before
	Limit    int       // default DefaultAuditLimit, at most MaxAuditLimit
}

// The page sizes of Audit.
const (
	DefaultAuditLimit = 50
	MaxAuditLimit     = 500
)

// Audit returns the newest audit rows matching f, newest first. To page
// on, pass the last row's ID as f.Before.
func (s *Store) Audit(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	where, args := auditWhere(f)
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultAuditLimit
	}
	limit = min(limit, MaxAuditLimit)
	q := `SELECT id, at, COALESCE(user_id, 0), user_name, remote_addr, action, license_id, instance_id,
		target, result, detail FROM panel_audit`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += fmt.Sprintf(" ORDER BY id DESC LIMIT %d", limit)
	return queryRows(ctx, s.pool, "read audit", scanAuditEntry, q, args...)
}

func scanAuditEntry(r pgx.CollectableRow) (AuditEntry, error) {
	var e AuditEntry
	var res string
	err := r.Scan(&e.ID, &e.At, &e.UserID, &e.UserName, &e.RemoteAddr, &e.Action, &e.License,
		&e.Instance, &e.Target, &res, &e.Detail)
	e.Result = AuditResult(res)
	return e, err
}

// auditWhere builds the conditions of f, with numbered arguments.
func auditWhere(f AuditFilter) (where []string, args []any) {
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "$?", "$"+strconv.Itoa(len(args))))
	}
	if f.Scope != nil {
		args = append(args, f.Scope.UserID, f.Scope.Licenses)
		n := len(args)
		where = append(where, fmt.Sprintf("(user_id = $%d OR (license_id <> '' AND license_id = ANY($%d)))", n-1, n))
	}
	if f.User != "" {
		add("user_name = $?", f.User)
	}
	if strings.HasSuffix(f.Action, ".") {
		add("starts_with(action, $?)", f.Action)
	} else if f.Action != "" {
		add("action = $?", f.Action)
	}
	if f.License != "" {
		add("license_id = $?", f.License)
	}
	if f.Instance != "" {
		add("instance_id = $?", f.Instance)
	}
	if f.Result != "" {
		add("result = $?", string(f.Result))
	}
	if !f.Since.IsZero() {
		add("at >= $?", f.Since)
	}
	if !f.Until.IsZero() {
		add("at < $?", f.Until)
	}
	if f.Before > 0 {
		add("id < $?", f.Before)
	}
	return where, args
}
