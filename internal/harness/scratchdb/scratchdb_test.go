package scratchdb_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/scratchdb"
)

// TestScratchDatabase creates a scratch database, uses it and drops it.
func TestScratchDatabase(t *testing.T) {
	t.Parallel()
	base := pgtest.BaseURL(t)
	ctx := context.Background()
	u, drop, err := scratchdb.Create(ctx, base, "evf_scratch_")
	if err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(ctx, u)
	if err != nil {
		_ = drop()
		t.Fatalf("connect to the scratch database: %v", err)
	}
	var name string
	err = c.QueryRow(ctx, "SELECT current_database()").Scan(&name)
	c.Close(ctx)
	if err != nil {
		_ = drop()
		t.Fatal(err)
	}
	if !strings.HasPrefix(name, "evf_scratch_") {
		t.Errorf("connected to %q, want a scratch database", name)
	}
	if err := drop(); err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Errorf("scratch database %s still exists after drop", name)
	}
}

func TestWithDatabase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base, want string
		wantErr    bool
	}{
		{"postgres://u@127.0.0.1:5432/postgres?sslmode=disable", "postgres://u@127.0.0.1:5432/evf_x?sslmode=disable", false},
		{"postgresql://u:p@h/db", "postgresql://u:p@h/evf_x", false},
		{"postgres://h:1", "postgres://h:1/evf_x", false},
		{"host=h user=u dbname=db", "host=h user=u dbname=db dbname=evf_x", false},
		{"", "", true},
		{"postgres://h:bad port/db", "", true},
	}
	for _, tt := range tests {
		got, err := scratchdb.WithDatabase(tt.base, "evf_x")
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("WithDatabase(%q) = %q, %v; want %q, error %v", tt.base, got, err, tt.want, tt.wantErr)
		}
	}
}
