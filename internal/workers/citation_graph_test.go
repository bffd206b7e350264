package workers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/cassette"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
)

const referencesCassette = "../../testdata/api-fixtures/semantic-scholar/test_get_paper_references@ae6c154.yaml"

// citationBundle is a task holding one academic page whose references
// Semantic Scholar answers from the recorded session.
type citationBundle struct {
	f          *testfleet.TxFleet
	task, page int64
}

func setupCitation(t *testing.T, adjust func(*config.Config)) *citationBundle {
	t.Helper()
	c, err := cassette.Load(referencesCassette)
	if err != nil {
		t.Fatalf("recorded Semantic Scholar session: %v", err)
	}
	srv := httptest.NewServer(c.Replayer("fields"))
	t.Cleanup(srv.Close)
	f := testfleet.InTx(t, testfleet.Options{Adjust: func(cfg *config.Config) {
		cfg.S2URL, cfg.OpenAlexURL = srv.URL+"/graph/v1", ""
		if adjust != nil {
			adjust(cfg)
		}
	}})
	task := f.CreateTask(t, "Constrained optimization controls the sparsity of neural networks.")
	var page int64
	err = f.Tx.QueryRow(context.Background(), `
		WITH p AS (INSERT INTO pages (url, domain, title, doi, s2_paper_id, abstract_only)
		           VALUES ('https://doi.org/10.0000/source', 'doi.org', 'Sparse neural networks', '10.0000/source', 'CorpusID:1033682', true) RETURNING id),
		     v AS (INSERT INTO page_versions (page_id, sha256, content) SELECT id, 'src', 'Sparse neural networks. We study how to train sparse neural networks with constrained optimization and pruning.' FROM p RETURNING id, page_id),
		     tp AS (INSERT INTO task_pages (task_id, page_id, page_version_id, reason) SELECT $1, page_id, id, 'doi_target' FROM v)
		SELECT page_id FROM v`, task).Scan(&page)
	if err != nil {
		t.Fatal(err)
	}
	return &citationBundle{f: f, task: task, page: page}
}

func (b *citationBundle) run(t *testing.T) workers.CitationOutput {
	t.Helper()
	// A raw insert, as another service might: not deduplicated by River, so
	// a second run really runs.
	id := testfleet.InsertRawJob(t, b.f.Tx, jobs.KindCitationGraph, jobs.QueueCitation, fmt.Sprintf(`{"task_id": %d, "page_id": %d}`, b.task, b.page))
	b.f.Drain(t)
	state, lastErr, output := testfleet.JobRow(t, b.f.Tx, id)
	if state != "completed" {
		t.Fatalf("citation_graph %s: %s", state, lastErr)
	}
	var out workers.CitationOutput
	if err := json.Unmarshal(output, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCitationGraphOnARecordedPaper(t *testing.T) {
	t.Parallel()
	b := setupCitation(t, nil)
	out := b.run(t)
	pool := b.f.Tx
	// 156 references are recorded; 9 have no paper id of any kind (a
	// parsing failure of the API: author names in the title) and are left out.
	if out.Neighbors != 147 {
		t.Errorf("%d neighbors, want the 147 recorded references that have an id", out.Neighbors)
	}
	if out.Stage1 != 30 || out.Selected != 10 {
		t.Errorf("stage 1 kept %d, final %d; want 30 and 10", out.Stage1, out.Selected)
	}
	pages := queryInt(t, pool, `SELECT count(*) FROM task_pages WHERE task_id = $1 AND reason = 'citation' AND source_page_id = $2`, b.task, b.page)
	edges := queryInt(t, pool, `SELECT count(*) FROM edges WHERE relation = 'cites' AND source_type = 'page' AND source_id = $1`, b.page)
	if pages == 0 || pages > 10 || edges != pages || out.PagesNew != pages || out.EdgesNew != edges {
		t.Errorf("%d cited pages and %d cites edges (output %+v); want 1–10 of each, equal", pages, edges, out)
	}
	if cites, err := b.f.Store.TaskCitations(context.Background(), b.task); err != nil || len(cites) != edges {
		t.Errorf("the graph export sees %d citations (%v), want the %d cites edges", len(cites), err, edges)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM pages WHERE id <> $1 AND NOT abstract_only`, b.page); n != 0 {
		t.Errorf("%d cited pages are not abstract-only", n)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM edges WHERE relation = 'cites' AND citation_source IS DISTINCT FROM 'semanticscholar'`); n != 0 {
		t.Errorf("%d cites edges without their source API", n)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM fragments f JOIN task_pages tp ON tp.page_version_id = f.page_version_id
		WHERE tp.task_id = $1 AND tp.reason = 'citation' AND f.embedding IS NOT NULL`, b.task); n == 0 {
		t.Error("the cited pages' fragments were not embedded")
	}

	before := [3]int{queryInt(t, pool, `SELECT count(*) FROM pages`), queryInt(t, pool, `SELECT count(*) FROM edges WHERE relation = 'cites'`),
		queryInt(t, pool, `SELECT count(*) FROM fragments`)}
	again := b.run(t)
	after := [3]int{queryInt(t, pool, `SELECT count(*) FROM pages`), queryInt(t, pool, `SELECT count(*) FROM edges WHERE relation = 'cites'`),
		queryInt(t, pool, `SELECT count(*) FROM fragments`)}
	if before != after || again.PagesNew != 0 || again.EdgesNew != 0 {
		t.Errorf("a second run created pages/edges/fragments %v → %v (output %+v)", before, after, again)
	}
}

// TestCitationGraphWithGarbageLLM: the LLM answers nonsense to every
// relevance question; 0.5 is used and the job completes.
func TestCitationGraphWithGarbageLLM(t *testing.T) {
	t.Parallel()
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"x","object":"chat.completion","created":0,"model":"garbage","choices":[{"index":0,"message":{"role":"assistant","content":"bananas are yellow"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":3,"total_tokens":4}}`)
	}))
	t.Cleanup(llm.Close)
	b := setupCitation(t, func(c *config.Config) {
		c.LLM = config.Model{Backend: "openai", URL: llm.URL + "/v1", ModelName: "garbage", Concurrency: 2, Retries: 0,
			BreakerFailures: 1000, BreakerCooldown: time.Second}
	})
	out := b.run(t)
	bad, _ := b.f.Metrics.Sum("evidencefleet_model_errors_total", map[string]string{"backend": "openai", "capability": "llm", "kind": "bad_response"})
	if out.Stage1 == 0 || int(bad)+out.LLMFallbacks < out.Stage1 {
		t.Errorf("%v unparsable answers and %d failed calls for %d stage-1 candidates: every one should fall back to 0.5", bad, out.LLMFallbacks, out.Stage1)
	}
	if out.Selected != 10 || out.PagesNew == 0 {
		t.Errorf("output %+v: the job did not go on with the fallback", out)
	}
}

func TestCitationRanking(t *testing.T) {
	t.Parallel()
	c := []workers.CitationCandidate{
		{Index: 0, Influential: false, Similarity: 0.9, LLM: 0.2},
		{Index: 1, Influential: true, Similarity: 0.1, LLM: 0.1},
		{Index: 2, Influential: false, Similarity: -0.4, LLM: 1},
		{Index: 3, Influential: false, Similarity: 0.5, LLM: 0.9},
	}
	// stage 1: 0.45, 0.55, 0, 0.25
	s1 := workers.TopByStage1(c, 3)
	if got := fmt.Sprint(s1[0].Index, s1[1].Index, s1[2].Index); got != "1 0 3" {
		t.Errorf("stage 1 order %s, want 1 0 3", got)
	}
	// final: 0.5·llm + 0.3·stage1 + 0.2·influential = 0.235, 0.415, 0.5, 0.525
	f := workers.TopByFinal(c, 2)
	if got := fmt.Sprint(f[0].Index, f[1].Index); got != "3 2" {
		t.Errorf("final order %s, want 3 2", got)
	}
	if got := c[1].Final(); got < 0.4149 || got > 0.4151 {
		t.Errorf("final of the influential candidate %v, want 0.415", got)
	}
}
