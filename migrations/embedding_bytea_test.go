package migrations_test

import (
	"context"
	"encoding/hex"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/evidencefleet/evidencefleet/migrations"
)

// TestEmbeddingsMigrateToBytes checks 00004 on a graph with real[]
// embeddings: each becomes its float4 values, big-endian, 4 bytes apiece;
// fragments without one stay without; down drops them (they are recomputable).
func TestEmbeddingsMigrateToBytes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, emptyDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	rm, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rm.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provider.UpTo(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `
		WITH p AS (INSERT INTO pages (url, domain) VALUES ('https://a.org/x', 'a.org') RETURNING id),
		     v AS (INSERT INTO page_versions (page_id, sha256, content) SELECT id, 'h', 'abcdefghij' FROM p RETURNING id, page_id)
		INSERT INTO fragments (page_id, page_version_id, start_char, end_char, text, embedding, embed_model)
		SELECT page_id, id, 0, 5, 'abcde', '{1, -2.5, 0.1}'::real[], 'm' FROM v
		UNION ALL SELECT page_id, id, 5, 10, 'fghij', NULL, NULL FROM v`); err != nil {
		t.Fatal(err)
	}
	if _, err := provider.UpTo(ctx, 4); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT encode(embedding, 'hex') FROM fragments ORDER BY start_char`)
	if err != nil {
		t.Fatal(err)
	}
	var got []*string
	for rows.Next() {
		var s *string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	// 1 = 3f800000, -2.5 = c0200000, 0.1 (float4) = 3dcccccd
	want := "3f800000" + "c0200000" + "3dcccccd"
	if len(got) != 2 || got[0] == nil || *got[0] != want || got[1] != nil {
		t.Fatalf("embeddings after 00004: %v, want [%s <nil>]", deref(got), want)
	}
	if _, err := hex.DecodeString(want); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE fragments SET embedding = '\x0102'::bytea WHERE start_char = 0`); err == nil {
		t.Error("an embedding of 2 bytes (not whole float4s) was accepted")
	}
	if _, err := provider.DownTo(ctx, 3); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM fragments WHERE embedding IS NOT NULL OR embed_model IS NOT NULL`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("%d embeddings left after down", left)
	}
}

func deref(ss []*string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		if s == nil {
			out[i] = "<nil>"
		} else {
			out[i] = *s
		}
	}
	return out
}
