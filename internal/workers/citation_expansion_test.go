package workers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/cassette"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// requestLog is the URLs an API server was asked, in order.
type requestLog struct {
	mu   sync.Mutex
	urls []string
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.urls = append(l.urls, r.URL.String())
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *requestLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.urls)
}

// citationPrompts returns the user prompts of the citation_relevance chat
// requests the model server recorded.
func citationPrompts(t *testing.T, servers *testfleet.ModelServers) []string {
	t.Helper()
	var out []string
	for _, body := range servers.Requests("openai", "/v1/chat/completions") {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
			ResponseFormat struct {
				JSONSchema struct {
					Name string `json:"name"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatalf("recorded chat request %s: %v", body, err)
		}
		if req.ResponseFormat.JSONSchema.Name == "citation_relevance" {
			out = append(out, req.Messages[len(req.Messages)-1].Content)
		}
	}
	return out
}

// TestCitationGraphExpandsThePaperForEveryTask: two tasks with different
// hypotheses reach the same paper. Each gets a citation_graph job (unique
// per task and page) and the paper's selected citation pages; Semantic
// Scholar is asked for the paper once, by the first; every stage 2
// relevance request carries its own task's hypothesis and the source
// paper, checked on the requests the OpenAI-compatible server recorded.
func TestCitationGraphExpandsThePaperForEveryTask(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, err := cassette.Load(referencesCassette)
	if err != nil {
		t.Fatalf("recorded Semantic Scholar session: %v", err)
	}
	s2 := &requestLog{}
	srv := httptest.NewServer(s2.wrap(c.Replayer("fields")))
	t.Cleanup(srv.Close)
	servers := testfleet.StartModelServers(t)
	f := testfleet.InTx(t, testfleet.Options{Adjust: func(cfg *config.Config) {
		cfg.S2URL, cfg.OpenAlexURL = srv.URL+"/graph/v1", ""
		cfg.LLM = config.Model{Backend: "openai", URL: servers.OpenAI.URL + "/v1", ModelName: "test-llm",
			Concurrency: 2, Retries: 1, BreakerFailures: 5, BreakerCooldown: time.Second}
	}})
	hypotheses := []string{
		"Constrained optimization controls the sparsity of neural networks.",
		"Pruning large language models keeps their accuracy.",
	}
	const sourceText = "We study how to train sparse neural networks with constrained optimization and pruning."
	var page int64
	if err := f.Tx.QueryRow(ctx, `
		WITH p AS (INSERT INTO pages (url, domain, title, doi, s2_paper_id, abstract_only)
		           VALUES ('https://doi.org/10.0000/source', 'doi.org', 'Sparse neural networks', '10.0000/source', 'CorpusID:1033682', true) RETURNING id),
		     v AS (INSERT INTO page_versions (page_id, sha256, content) SELECT id, 'src', $1 FROM p RETURNING id, page_id)
		SELECT page_id FROM v`, sourceText).Scan(&page); err != nil {
		t.Fatal(err)
	}

	type run struct {
		task int64
		out  workers.CitationOutput
	}
	var runs []run
	for i, hyp := range hypotheses {
		task := f.CreateTask(t, hyp)
		if _, err := f.Tx.Exec(ctx, `INSERT INTO task_pages (task_id, page_id, page_version_id, reason)
			SELECT $1, page_id, id, 'doi_target' FROM page_versions WHERE page_id = $2`, task, page); err != nil {
			t.Fatal(err)
		}
		args := jobs.CitationGraphArgs{TaskID: task, PageID: page}
		ins, err := f.Client.InsertTx(ctx, f.Tx, args, nil)
		if err != nil || ins.UniqueSkippedAsDuplicate {
			t.Fatalf("task %d's citation_graph of the page: %+v, %v; want a job of its own", i+1, ins, err)
		}
		promptsBefore, s2Before := len(citationPrompts(t, servers)), len(s2.all())
		f.Drain(t)
		state, lastErr, output := testfleet.JobRow(t, f.Tx, ins.Job.ID)
		if state != "completed" {
			t.Fatalf("task %d's citation_graph %s: %s", i+1, state, lastErr)
		}
		var out workers.CitationOutput
		if err := json.Unmarshal(output, &out); err != nil {
			t.Fatal(err)
		}
		if again, err := f.Client.InsertTx(ctx, f.Tx, args, nil); err != nil || !again.UniqueSkippedAsDuplicate {
			t.Errorf("task %d: a second citation_graph of the page was not deduplicated (%v)", i+1, err)
		}

		asked := len(s2.all()) - s2Before
		if first := i == 0; out.AskedAPIs != first || (asked > 0) != first {
			t.Errorf("task %d: asked_apis %v and %d Semantic Scholar requests; want the APIs asked by the first task only", i+1, out.AskedAPIs, asked)
		}
		if out.Neighbors != 147 || out.Stage1 != 30 || out.Selected != 10 || out.LLMFallbacks != 0 {
			t.Errorf("task %d: output %+v; want 147 neighbors, 30 stage 1 candidates, 10 selected, no fallback", i+1, out)
		}
		prompts := citationPrompts(t, servers)[promptsBefore:]
		if len(prompts) != out.Stage1 {
			t.Errorf("task %d: %d citation relevance requests, want one per stage 1 candidate (%d)", i+1, len(prompts), out.Stage1)
		}
		for _, p := range prompts {
			other := hypotheses[1-i]
			if !strings.Contains(p, "Hypothesis: "+hyp+"\n") || strings.Contains(p, other) || !strings.Contains(p, sourceText) {
				t.Errorf("task %d: a relevance request lacks its hypothesis %q or the source paper, or carries the other's:\n%s", i+1, hyp, p)
				break
			}
		}
		runs = append(runs, run{task, out})
	}
	if urls := s2.all(); len(urls) == 0 || len(slices.Compact(slices.Sorted(slices.Values(urls)))) != len(urls) {
		t.Errorf("Semantic Scholar requests %q: want some, none repeated", urls)
	}
	if n := queryInt(t, f.Tx, `SELECT count(*) FROM citation_candidates WHERE page_id = $1`, page); n != 30 {
		t.Errorf("%d candidates recorded for the paper, want its 30 stage 1 candidates", n)
	}

	// Both tasks show the paper's selected pages, each linked by citation
	// from the paper, with the cites edges the export reads.
	for i, r := range runs {
		origins, err := f.Store.TaskPageOrigins(ctx, r.task)
		if err != nil {
			t.Fatal(err)
		}
		cited := 0
		for _, o := range origins {
			if o.RetrievalContext == "citation" {
				if o.SourcePageID == nil || *o.SourcePageID != page || !(o.SourceCitesPage || o.PageCitesSource) || o.Depth != 1 {
					t.Errorf("task %d: citation page %d from %v at depth %d without a cites edge to the paper", i+1, o.PageID, o.SourcePageID, o.Depth)
				}
				cited++
			}
		}
		if cited == 0 || cited > 10 || cited != r.out.PagesNew {
			t.Errorf("task %d shows %d citation pages (output %+v), want its 1–10 new ones", i+1, cited, r.out)
		}
		cites, err := f.Store.TaskCitations(ctx, r.task)
		if err != nil || len(cites) < cited {
			t.Errorf("task %d: the graph export sees %d citations (%v), want at least %d", i+1, len(cites), err, cited)
		}
	}
}
