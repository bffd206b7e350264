// Package migrations holds the evidence schema as ordered goose SQL files and
// applies them, together with River's own migrations, under one Postgres
// advisory lock so that several worker pods can run `worker migrate` at once.
package migrations

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

//go:embed *.sql
var files embed.FS

// FS returns the embedded evidence-schema migrations.
func FS() fs.FS { return files }

// advisoryLockKey serialises migrations across processes ("evidencefleet" in ASCII, truncated).
const advisoryLockKey int64 = 0x65766964656e6365

// Result says what Up applied.
type Result struct {
	RiverVersions    []int   // River migration versions applied by this call
	EvidenceVersions []int64 // evidence-schema versions applied by this call
}

// Up applies River's migrations and then the evidence schema, holding a
// session-level advisory lock for the whole run. Running it again, or from
// several processes at once, is safe: the second runner waits for the lock and
// then finds nothing to do.
func Up(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) (Result, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var res Result
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return res, fmt.Errorf("migrate: acquire connection: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", advisoryLockKey); err != nil {
		return res, fmt.Errorf("migrate: take advisory lock: %w", err)
	}
	defer func() {
		// Unlock on a fresh context so a cancelled ctx still releases the lock.
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", advisoryLockKey)
	}()

	migrator, err := rivermigrate.New(riverpgxv5.New(pool), &rivermigrate.Config{Logger: logger})
	if err != nil {
		return res, fmt.Errorf("migrate: river migrator: %w", err)
	}
	riverRes, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return res, fmt.Errorf("migrate: river migrations: %w", err)
	}
	for _, v := range riverRes.Versions {
		res.RiverVersions = append(res.RiverVersions, v.Version)
	}

	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, files)
	if err != nil {
		return res, fmt.Errorf("migrate: goose provider: %w", err)
	}
	applied, err := provider.Up(ctx)
	if err != nil {
		return res, fmt.Errorf("migrate: evidence schema: %w", err)
	}
	for _, r := range applied {
		res.EvidenceVersions = append(res.EvidenceVersions, r.Source.Version)
	}
	logger.InfoContext(ctx, "migrations applied",
		slog.Any("river_versions", res.RiverVersions),
		slog.Any("evidence_versions", res.EvidenceVersions))
	return res, nil
}
