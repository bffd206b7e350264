package workers_test

import (
	"context"
	"slices"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/evidence"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
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
	recall := recallClaims(t, b.f.Store, b.task, embedder)
	if len(recall) < 5 {
		t.Fatalf("only %d claims", len(recall))
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

// TestTaskIndexExtendsAsPagesArrive: a process's index of a task whose
// crawl goes on is extended with the new pages' fragments, not read again,
// and recalls exactly what an index built at once over the task's state
// does; when a fragment it holds is no longer the task's embedded evidence
// (embedded again under another model), it is built again.
func TestTaskIndexExtendsAsPagesArrive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := testfleet.InTx(t, testfleet.Options{Pages: polarPages()})
	task := f.CreateTask(t, polarHypothesis, "Arctic sea ice has declined in area and volume.")
	f.AddTargets(t, task, polarURLs[0])
	f.Drain(t, jobs.KindTargetQueue, jobs.KindEmbed)
	md, err := configured.New(f.Config, nil)
	if err != nil {
		t.Fatal(err)
	}
	embedder := md.Embedder
	model := models.PassageModel(embedder)
	recallAll := store.Recall{PerClaim: 1 << 20, MaxTermFreq: 1}
	m := metrics.New()
	kept := workers.NewRecaller(f.Store, embedder, taskindex.NewCache(64<<20), recallAll, m)
	claims := recallClaims(t, f.Store, task, embedder)

	// recall checks the kept index against one built for this state alone
	// and returns the number of candidates
	recall := func(step string) int {
		t.Helper()
		state, err := f.Store.TaskVerifyState(ctx, store.TaskVerifyStateParams{TaskID: task, EmbedModel: model})
		if err != nil {
			t.Fatal(err)
		}
		got, err := kept.Candidates(ctx, task, state, claims)
		if err != nil {
			t.Fatal(err)
		}
		want, err := workers.NewRecaller(f.Store, embedder, taskindex.NewCache(64<<20), recallAll, nil).Candidates(ctx, task, state, claims)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range claims {
			n += len(want[c.ID])
			if !slices.Equal(got[c.ID], want[c.ID]) {
				t.Errorf("%s, claim %d: kept index\n %v\nbuilt at once\n %v", step, c.ID, got[c.ID], want[c.ID])
			}
		}
		return n
	}
	paths := func(step string, load, extend float64) {
		t.Helper()
		for path, want := range map[string]float64{"index_load": load, "index_extend": extend} {
			if got, _ := m.Sum("evidencefleet_verify_recalls_total", map[string]string{"path": path}); got != want {
				t.Errorf("%s: recalls by path %s = %v, want %v", step, path, got, want)
			}
		}
	}

	first := recall("one page")
	paths("one page", 1, 0)
	f.AddTargets(t, task, polarURLs[1:]...)
	f.Drain(t, jobs.KindTargetQueue)
	recall("two pages more, not embedded")
	paths("two pages more, not embedded", 1, 1)
	f.Drain(t, jobs.KindEmbed)
	if all := recall("two pages more, embedded"); all <= first {
		t.Fatalf("%d candidates after two pages more were embedded, %d before: the test proves nothing", all, first)
	}
	paths("two pages more, embedded", 1, 2)
	if _, err := f.Tx.Exec(ctx, `
		UPDATE fragments SET embed_model = 'another-model'
		WHERE id = (SELECT min(f.id) FROM task_pages tp JOIN fragments f ON f.page_version_id = tp.page_version_id WHERE tp.task_id = $1)`, task); err != nil {
		t.Fatal(err)
	}
	recall("a fragment embedded under another model")
	paths("a fragment embedded under another model", 2, 2)
}

// recallClaims are the task's claims as verify_nli recalls for them.
func recallClaims(t *testing.T, st *store.Store, task int64, embedder models.Embedder) []workers.RecallClaim {
	t.Helper()
	ctx := context.Background()
	claims, err := st.TaskClaimsForVerification(ctx, store.TaskClaimsForVerificationParams{TaskID: task, ClaimIds: []int64{}, MaxChars: jobs.MaxTextRunes})
	if err != nil {
		t.Fatal(err)
	}
	var recall []workers.RecallClaim
	for _, c := range claims {
		vecs, err := embedder.Embed(ctx, []string{c.Text})
		if err != nil {
			t.Fatal(err)
		}
		recall = append(recall, workers.RecallClaim{ID: c.ID, Text: c.Text, Lexemes: c.Lexemes, Vec: vecs[0], ExcludeDomain: c.OriginDomain})
	}
	return recall
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
