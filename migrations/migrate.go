// Package migrations holds the evidence schema as ordered goose SQL files and
// applies them, together with River's own migrations, under one Postgres
// advisory lock so that several worker pods can run `worker migrate` at once.
package migrations

import (
	"context"
	"embed"
	"errors"
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

// ErrNotMigrated: the database lacks migrations this build needs.
var ErrNotMigrated = errors.New("the database is not migrated to this version")

// Check reports ErrNotMigrated, naming how far River's and the evidence
// schema's migrations are and what to run, when the database lacks any
// this build needs; a database that cannot be read is its own error
// (store.ExplainDB tells what it means). A worker and the API check it
// before they start.
func Check(ctx context.Context, pool *pgxpool.Pool) error {
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("river migrator: %w", err)
	}
	var river []int
	if exists, err := tableExists(ctx, pool, "river_migration"); err != nil {
		return err
	} else if exists {
		existing, err := migrator.ExistingVersions(ctx)
		if err != nil {
			return fmt.Errorf("river's migrations: %w", err)
		}
		for _, m := range existing {
			river = append(river, m.Version)
		}
	}
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, files)
	if err != nil {
		return fmt.Errorf("goose provider: %w", err)
	}
	var current, target int64
	if exists, err := tableExists(ctx, pool, "goose_db_version"); err != nil {
		return err
	} else if exists {
		if current, target, err = provider.GetVersions(ctx); err != nil {
			return fmt.Errorf("evidence schema version: %w", err)
		}
	} else {
		target = provider.ListSources()[len(provider.ListSources())-1].Version
	}
	riverTarget := len(migrator.AllVersions())
	if len(river) < riverTarget || current < target {
		return fmt.Errorf("%w (River's migrations %d of %d, the evidence schema at version %d of %d): run `worker migrate`",
			ErrNotMigrated, len(river), riverTarget, current, target)
	}
	return nil
}

// tableExists reports whether the search path has the table.
func tableExists(ctx context.Context, pool *pgxpool.Pool, table string) (bool, error) {
	var ok bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&ok); err != nil {
		return false, fmt.Errorf("read the schema: %w", err)
	}
	return ok, nil
}
