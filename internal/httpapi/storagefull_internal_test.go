package httpapi

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// fullDisk is a store driver's error for a full disk: SQLite's
// SQLITE_FULL by its result code.
type fullDisk struct{}

func (fullDisk) Error() string { return "database or disk is full (13)" }
func (fullDisk) Code() int     { return 13 }

// TestStorageFullIs507: a write the store refused for a full disk answers
// 507 storage_full, not 500 internal.
func TestStorageFullIs507(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/v1/api/hosts", nil)
	p := problemFor(slog.New(slog.NewTextHandler(io.Discard, nil)), r, fmt.Errorf("sqlite: create host: %w", fullDisk{}))
	if p.Status != http.StatusInsufficientStorage || p.Code != "storage_full" {
		t.Fatalf("got %d %s, want 507 storage_full", p.Status, p.Code)
	}
	if statusOf("storage_full") != 507 {
		t.Fatalf("statusOf(storage_full) = %d", statusOf("storage_full"))
	}
}
