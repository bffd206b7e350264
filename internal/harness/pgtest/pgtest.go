// Package pgtest gives each test its own database cloned from a migrated
// template (CREATE DATABASE … TEMPLATE …), on the server named by DATABASE_URL,
// or — cheaper, for tests that need no client of their own — a transaction
// on a database shared by the package's tests, rolled back when the test
// ends (Tx). The template is built once per schema version, under an
// advisory lock, and shared by every test package of the run.
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/harness/scratchdb"
	"github.com/evidencefleet/evidencefleet/migrations"
)

const templateLockKey int64 = 0x65766674706c74 // "evftplt"

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
)

// BaseURL returns DATABASE_URL or fails the test with the command to run.
func BaseURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("DATABASE_URL")
	if u == "" {
		t.Fatal("DATABASE_URL is not set: run the suite with `make test`, which starts a throwaway Postgres")
	}
	return u
}

// URL creates a fresh migrated database for this test, drops it when the test
// ends, and returns its connection string.
func URL(t testing.TB) string {
	t.Helper()
	base := BaseURL(t)
	name, err := cloneTemplate(base, "evf_test_")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Logf("pgtest: drop %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
			t.Logf("pgtest: drop %s: %v", name, err)
		}
	})
	return withDatabase(t, base, name)
}

// Pool returns a pool on a fresh migrated database, closed when the test ends.
func Pool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), URL(t))
	if err != nil {
		t.Fatalf("pgtest: pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

var (
	sharedOnce sync.Once
	sharedPool *pgxpool.Pool
	sharedErr  error
)

// Tx begins a transaction on a database that the tests of this test binary
// share (cloned from the template once) and rolls it back when the test
// ends: such tests run in parallel and never see each other's rows. Work
// that needs its own connections (a running River client, LISTEN, several
// processes) takes Pool instead.
func Tx(t testing.TB) pgx.Tx {
	t.Helper()
	base := BaseURL(t)
	sharedOnce.Do(func() {
		name, err := cloneTemplate(base, "evf_txtest_")
		if err != nil {
			sharedErr = err
			return
		}
		u, err := scratchdb.WithDatabase(base, name)
		if err != nil {
			sharedErr = err
			return
		}
		sharedPool, sharedErr = pgxpool.New(context.Background(), u)
	})
	if sharedErr != nil {
		t.Fatalf("pgtest: shared database: %v", sharedErr)
	}
	tx, err := sharedPool.Begin(context.Background())
	if err != nil {
		t.Fatalf("pgtest: begin: %v", err)
	}
	t.Cleanup(func() { _ = tx.Rollback(context.WithoutCancel(context.Background())) })
	return tx
}

// cloneTemplate creates a database named prefix + a random suffix from the
// migrated template (built once per run) and returns its name.
func cloneTemplate(base, prefix string) (string, error) {
	templateOnce.Do(func() { templateName, templateErr = ensureTemplate(base) })
	if templateErr != nil {
		return "", fmt.Errorf("template database: %w", templateErr)
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer admin.Close(ctx)
	name := prefix + randomSuffix()
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, templateName)); err != nil {
		return "", fmt.Errorf("clone template: %w", err)
	}
	return name, nil
}

func withDatabase(t testing.TB, base, name string) string {
	t.Helper()
	u, err := scratchdb.WithDatabase(base, name)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return u
}

// ensureTemplate creates evf_tpl_<schema hash> once; later runs reuse it.
func ensureTemplate(base string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	hash, err := schemaHash()
	if err != nil {
		return "", err
	}
	name := "evf_tpl_" + hash[:16]
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock($1)", templateLockKey); err != nil {
		return "", fmt.Errorf("lock: %w", err)
	}
	defer admin.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", templateLockKey) //nolint:errcheck
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate)", name).Scan(&exists); err != nil {
		return "", fmt.Errorf("look up template: %w", err)
	}
	if exists {
		return name, nil
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name)); err != nil {
		return "", fmt.Errorf("drop half-built template: %w", err)
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s", name)); err != nil {
		return "", fmt.Errorf("create template: %w", err)
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	pool, err := pgxpool.New(ctx, u.String())
	if err != nil {
		return "", fmt.Errorf("connect template: %w", err)
	}
	_, err = migrations.Up(ctx, pool, nil)
	pool.Close()
	if err != nil {
		return "", fmt.Errorf("migrate template: %w", err)
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s WITH is_template true", name)); err != nil {
		return "", fmt.Errorf("mark template: %w", err)
	}
	return name, nil
}

func schemaHash() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(migrations.FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.FS(), path)
		if err != nil {
			return err
		}
		h.Write([]byte(path))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hash migrations: %w", err)
	}
	// River's schema version is part of the template's identity too.
	h.Write([]byte(riverVersion()))
	return hex.EncodeToString(h.Sum(nil)), nil
}

func riverVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/riverqueue/river" {
				return m.Version
			}
		}
	}
	return "unknown"
}

func randomSuffix() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
