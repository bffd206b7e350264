package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestRecallLeavesOutCommonTermsOnlyWithStatistics: a term in nearly every
// fragment is dropped from the recall query once ANALYZE has seen it, as long
// as the claim keeps MinTerms rarer terms; before that, or with the pruning
// off, every term is used.
func TestRecallLeavesOutCommonTermsOnlyWithStatistics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	var task, page, version int64
	err := pool.QueryRow(ctx, `
		WITH t AS (INSERT INTO tasks (hypothesis) VALUES ('h') RETURNING id),
		     p AS (INSERT INTO pages (url, domain) VALUES ('https://a.example/x', 'a.example') RETURNING id),
		     v AS (INSERT INTO page_versions (page_id, sha256, content) SELECT id, 'x', repeat('x', 100000) FROM p RETURNING id, page_id),
		     tp AS (INSERT INTO task_pages (task_id, page_id, page_version_id, reason) SELECT t.id, v.page_id, v.id, 'url_target' FROM t, v)
		SELECT t.id, v.page_id, v.id FROM t, v`).Scan(&task, &page, &version)
	if err != nil {
		t.Fatal(err)
	}
	const common = 60
	for i := 0; i <= common; i++ {
		text := fmt.Sprintf("The climate report number %d discusses the weather.", i)
		if i == common {
			text = "Glaciers shelter penguins that migrate."
		}
		if _, err := pool.Exec(ctx, `
			INSERT INTO fragments (page_id, page_version_id, start_char, end_char, text, embedding, embed_model)
			VALUES ($1, $2, $3, $3 + 50, $4, '\x3f800000', 'm')`, page, version, i*100, text); err != nil {
			t.Fatal(err)
		}
	}
	claim := []store.ClaimQuery{{ClaimID: 1, Text: "Climate change makes glaciers shelter penguins."}}
	q := store.New(pool)
	recall := func(lim store.Recall) int {
		t.Helper()
		got, err := q.RecallCandidates(ctx, task, claim, lim, "m")
		if err != nil {
			t.Fatal(err)
		}
		return len(got[1])
	}
	pruned := store.Recall{PerClaim: 200, MaxTermFreq: 0.05, MinTerms: 3}
	if n := recall(pruned); n != common+1 {
		t.Errorf("without statistics: %d candidates, want every fragment matching a term (%d)", n, common+1)
	}
	if _, err := pool.Exec(ctx, "ANALYZE fragments"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		lim  store.Recall
		want int
	}{
		{"common term dropped", pruned, 1},
		{"pruning off", store.Recall{PerClaim: 200, MaxTermFreq: 1, MinTerms: 3}, common + 1},
		{"too few rare terms keep the common one", store.Recall{PerClaim: 200, MaxTermFreq: 0.05, MinTerms: 6}, common + 1},
		{"per-claim limit", store.Recall{PerClaim: 10, MaxTermFreq: 1, MinTerms: 3}, 10},
	}
	for _, tt := range tests {
		if n := recall(tt.lim); n != tt.want {
			t.Errorf("%s: %d candidates, want %d", tt.name, n, tt.want)
		}
	}
}
