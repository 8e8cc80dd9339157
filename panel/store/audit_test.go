package store_test

import (
	"context"
	"testing"

	"github.com/corrosion/corrosion/panel/store"
)

func TestRecordAudit_RejectsBadRows(t *testing.T) {
	s := openP4Store(t)
	ctx := context.Background()
	if err := s.RecordAudit(ctx, store.AuditEntry{Result: store.AuditOK}); err == nil {
		t.Error("empty action accepted")
	}
	if err := s.RecordAudit(ctx, store.AuditEntry{Action: "x", Result: "maybe"}); err == nil {
		t.Error("unknown result accepted")
	}
	// Anonymous (user 0) is stored as NULL, not as a dangling reference.
	if err := s.RecordAudit(ctx, store.AuditEntry{Action: "login", Result: store.AuditDenied, UserName: "mallory"}); err != nil {
		t.Fatalf("anonymous row: %v", err)
	}
}
