package store

import "time"

// AuditResult is how an audited request ended.
type AuditResult string

// The audit results.
const (
	AuditOK     AuditResult = "ok"
	AuditDenied AuditResult = "denied"
	AuditError  AuditResult = "error"
)

// AuditEntry is one row of the audit log.
type AuditEntry struct {
	ID         int64
	At         time.Time
	UserID     int64 // 0: anonymous (e.g. a failed login)
	UserName   string
	RemoteAddr string
	Action     string // e.g. instance.power, files.save, user.add, login
	License    string
	Instance   string
	Target     string // e.g. a file path, a user name, "stop"
	Result     AuditResult
	Detail     string // the error shown, or what changed
}
