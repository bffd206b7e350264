package migrations_test

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/migrations"
)

// emptyDatabase creates a database with no schema at all.
func emptyDatabase(t *testing.T) string {
	t.Helper()
	base := pgtest.BaseURL(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("evf_migrate_%d", pgtestSeq())
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err == nil {
			_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(context.Background())
		}
	})
	u, _ := url.Parse(base)
	u.Path = "/" + name
	return u.String()
}

var (
	seqMu sync.Mutex
	seq   int
)

func pgtestSeq() int {
	seqMu.Lock()
	defer seqMu.Unlock()
	seq++
	return seq
}

func TestConcurrentMigrateFromSeveralPodsAppliesOnce(t *testing.T) {
	t.Parallel()
	dbURL := emptyDatabase(t)
	ctx := context.Background()
	const pods = 4
	results := make([]migrations.Result, pods)
	errs := make([]error, pods)
	var wg sync.WaitGroup
	for i := range pods {
		wg.Go(func() {
			pool, err := pgxpool.New(ctx, dbURL)
			if err != nil {
				errs[i] = err
				return
			}
			defer pool.Close()
			results[i], errs[i] = migrations.Up(ctx, pool, nil)
		})
	}
	wg.Wait()
	applied := 0
	for i := range pods {
		if errs[i] != nil {
			t.Fatalf("pod %d: %v", i, errs[i])
		}
		if len(results[i].EvidenceVersions) > 0 {
			applied++
		}
	}
	if applied != 1 {
		t.Errorf("%d pods applied the evidence schema, want exactly 1", applied)
	}
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var indexDef string
	if err := pool.QueryRow(ctx, `SELECT indexdef FROM pg_indexes WHERE indexname = 'idx_edges_nli_unique'`).Scan(&indexDef); err != nil {
		t.Fatalf("idx_edges_nli_unique missing: %v", err)
	}
	want := "CREATE UNIQUE INDEX idx_edges_nli_unique ON public.edges USING btree (target_id, source_id, target_type, source_type) WHERE ((source_type = 'fragment'::text) AND (target_type = 'claim'::text) AND (relation = ANY (ARRAY['supports'::text, 'refutes'::text, 'neutral'::text])))"
	if indexDef != want {
		t.Errorf("idx_edges_nli_unique:\n got %s\nwant %s", indexDef, want)
	}
	// A second run finds nothing to do.
	again, err := migrations.Up(ctx, pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.EvidenceVersions) != 0 || len(again.RiverVersions) != 0 {
		t.Errorf("second run applied %+v", again)
	}
}

func TestPageVersionsAreImmutable(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	var pageID, verID int64
	if err := pool.QueryRow(ctx, `INSERT INTO pages (url, domain) VALUES ('https://a.example/', 'a.example') RETURNING id`).Scan(&pageID); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `INSERT INTO page_versions (page_id, sha256, content) VALUES ($1, 'x', 'text') RETURNING id`, pageID).Scan(&verID); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE page_versions SET content = 'changed' WHERE id = $1`, verID); err == nil {
		t.Fatal("updating a page version succeeded")
	}
}
