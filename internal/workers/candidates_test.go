package workers_test

import (
	"context"
	"slices"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/configured"
	"github.com/evidencefleet/evidencefleet/internal/taskindex"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestCandidatesInMemoryMatchPostgres checks the in-memory task index against
// Postgres's full-text search on a real task: with a limit above every match
// and no term pruning, both recall exactly the same fragments, with the same
// cosine similarities, for every claim; only the order differs (BM25 in
// memory, ts_rank in Postgres).
func TestCandidatesInMemoryMatchPostgres(t *testing.T) {
	t.Parallel()
	b := setupVerify(t)
	ctx := context.Background()
	m := metrics.New()
	md, err := configured.New(b.f.Config, nil)
	if err != nil {
		t.Fatal(err)
	}
	embedder := md.Embedder
	recallAll := store.Recall{PerClaim: 1 << 20, MaxTermFreq: 1} // no pruning: the OR of every term
	claims, err := b.f.Store.TaskClaimsForVerification(ctx, store.TaskClaimsForVerificationParams{TaskID: b.task, ClaimIds: []int64{}, MaxChars: jobs.MaxTextRunes})
	if err != nil {
		t.Fatal(err)
	}
	if len(claims) < 5 {
		t.Fatalf("only %d claims", len(claims))
	}
	var recall []workers.RecallClaim
	for _, c := range claims {
		vecs, err := embedder.Embed(ctx, []string{c.Text})
		if err != nil {
			t.Fatal(err)
		}
		recall = append(recall, workers.RecallClaim{ID: c.ID, Text: c.Text, Lexemes: c.Lexemes, Vec: vecs[0], ExcludeDomain: c.OriginDomain})
	}
	state, err := b.f.Store.TaskVerifyState(ctx, store.TaskVerifyStateParams{TaskID: b.task, EmbedModel: models.PassageModel(embedder)})
	if err != nil {
		t.Fatal(err)
	}
	if state.Fragments == 0 || state.NotEmbedded != 0 {
		t.Fatalf("task state %+v: want embedded fragments", state)
	}

	inMemory, err := workers.NewRecaller(b.f.Store, embedder, taskindex.NewCache(64<<20), recallAll, m).Candidates(ctx, b.task, state, recall)
	if err != nil {
		t.Fatal(err)
	}
	viaSQL, err := workers.NewRecaller(b.f.Store, embedder, nil, recallAll, m).Candidates(ctx, b.task, state, recall)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, c := range recall {
		mem, sql := sorted(inMemory[c.ID]), sorted(viaSQL[c.ID])
		total += len(mem)
		if !slices.Equal(mem, sql) {
			t.Errorf("claim %d %q:\n in memory %v\n postgres  %v", c.ID, c.Text, mem, sql)
		}
	}
	if total == 0 {
		t.Fatal("no candidates at all: the comparison proves nothing")
	}
	for path, want := range map[string]float64{"index_load": 1, "sql": 1, "index_hit": 0} {
		if got, _ := m.Sum("evidencefleet_verify_recalls_total", map[string]string{"path": path}); got != want {
			t.Errorf("recalls by path %s = %v, want %v", path, got, want)
		}
	}
}

// sorted orders cs by fragment id without their lexical scores, which
// differ by design between the paths (BM25 in memory, ts_rank in Postgres).
func sorted(cs []evidence.Candidate) []evidence.Candidate {
	out := slices.Clone(cs)
	for i := range out {
		out[i].Lexical = 0
	}
	slices.SortFunc(out, func(a, b evidence.Candidate) int { return int(a.FragmentID - b.FragmentID) })
	return out
}
