package workers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// searxng answers like a SearxNG JSON API: per query, a fixed list of URLs.
func searxng(t *testing.T, answers map[string][]string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query().Get("q")
		var results []map[string]any
		for i, u := range answers[q] {
			results = append(results, map[string]any{"url": u, "title": fmt.Sprintf("hit %d", i), "content": "…", "engine": "test", "score": 1.0 / float64(i+1)})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"query": q, "number_of_results": len(results), "results": results,
			"answers": []any{}, "suggestions": []any{}, "unresponsive_engines": []any{}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestQueryTargetsFanOutAndFetchEachURLOnce(t *testing.T) {
	t.Parallel()
	const q1, q2 = "polar bear population decline", "arctic sea ice melting"
	srv := searxng(t, map[string][]string{
		q1: {"https://en.wikipedia.org/wiki/Polar_bear", "https://news.example-daily.com/polar-bears-thriving", "not a url"},
		q2: {"https://www.example-science.org/arctic/sea-ice", "https://en.wikipedia.org/wiki/Polar_bear#Population"},
	})
	f := testfleet.InTx(t, testfleet.Options{Pages: polarPages(), Adjust: func(c *config.Config) { c.SearchURL = srv.URL }})
	task := f.CreateTask(t, polarHypothesis)
	f.AddTargetsOf(t, task, jobs.Target{Kind: jobs.TargetQuery, Value: q1}, jobs.Target{Kind: jobs.TargetQuery, Value: q2})
	f.Drain(t)

	pool := f.Tx
	// Three distinct pages (the fragment #Population normalises away), each fetched by one job.
	if n := queryInt(t, pool, `SELECT count(*) FROM targets WHERE task_id = $1 AND kind = 'url'`, task); n != 3 {
		t.Errorf("%d url targets, want 3", n)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM river_job WHERE kind = 'target_queue' AND args->'target'->>'kind' = 'url'`); n != 3 {
		t.Errorf("%d url target_queue jobs, want 3 (one per URL, even for the URL both queries returned):\n%s", n, testfleet.JobDump(t, f.Tx))
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM river_job WHERE kind = 'target_queue' AND args->'target'->>'kind' = 'url' AND (args->>'depth')::int = 1 AND state = 'completed'`); n != 3 {
		t.Errorf("%d url jobs completed at depth 1, want 3", n)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM task_pages WHERE task_id = $1`, task); n != 3 {
		t.Errorf("%d pages in the task, want 3", n)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM targets WHERE task_id = $1 AND kind = 'query' AND status = 'extracted' AND stage = 'searched'`, task); n != 2 {
		t.Errorf("%d query targets searched, want 2", n)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM edges WHERE relation IN ('supports', 'refutes', 'neutral')`); n == 0 {
		t.Error("the searched pages were not verified")
	}
	// Searching the same query again registers nothing new.
	f.AddTargetsOf(t, task, jobs.Target{Kind: jobs.TargetQuery, Value: q1 + "  "})
	f.Drain(t)
	if n := queryInt(t, pool, `SELECT count(*) FROM river_job WHERE kind = 'target_queue'`); n != 5 {
		t.Errorf("%d target_queue jobs after the same query again, want 5 (the repeat is a duplicate)", n)
	}
	if got, _ := f.Metrics.Sum("evidencefleet_search_requests_total", map[string]string{"outcome": "ok"}); got != 2 {
		t.Errorf("%v searches, want 2", got)
	}
}

func TestQueryTargetWithoutSearchBackendFailsClearly(t *testing.T) {
	t.Parallel()
	// Neither EVF_SEARCH_URL nor a replay archive (whose offline search would answer).
	f := testfleet.InTx(t, testfleet.Options{Pages: polarPages(), Adjust: func(c *config.Config) { c.ReplayDir = "" }})
	task := f.CreateTask(t, polarHypothesis)
	f.AddTargetsOf(t, task, jobs.Target{Kind: jobs.TargetQuery, Value: "polar bears"})
	f.Drain(t)
	var status, errText string
	if err := f.Tx.QueryRow(t.Context(), `SELECT status, COALESCE(error, '') FROM targets WHERE task_id = $1`, task).Scan(&status, &errText); err != nil {
		t.Fatal(err)
	}
	if status != "failed" || !strings.Contains(errText, "EVF_SEARCH_URL") {
		t.Errorf("target %s (%q), want failed naming EVF_SEARCH_URL", status, errText)
	}
	if got, _ := f.Metrics.Sum("evidencefleet_search_requests_total", map[string]string{"outcome": "not_configured"}); got != 1 {
		t.Errorf("not_configured counted %v times, want 1", got)
	}
}

// TestAcademicQueryFansOutToDOITargets: a query that looks academic goes to
// the academic search too (here the only backend); its papers become doi
// targets, resolved like any doi target.
func TestAcademicQueryFansOutToDOITargets(t *testing.T) {
	t.Parallel()
	paper, err := os.ReadFile(s2PaperFixture)
	if err != nil {
		t.Fatalf("recorded Semantic Scholar paper: %v", err)
	}
	var searched string
	s2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/paper/search":
			searched = r.URL.Query().Get("query")
			// The Graph API's search answer: total, offset, next, data[].
			fmt.Fprint(w, `{"total": 2, "offset": 0, "next": 2, "data": [
			  {"paperId": "e9ec2d7c1f1bd2b3b05b2ec9b2a4c3a8c4b1d9f0", "title": "Computing Machinery and Intelligence", "externalIds": {"DOI": "10.1093/MIND/LIX.236.433", "CorpusId": 14636783}, "year": 1950},
			  {"paperId": "0000000000000000000000000000000000000001", "title": "An unknown study", "externalIds": {"DOI": "10.5555/unknown.study"}, "year": 2020},
			  {"paperId": "0000000000000000000000000000000000000002", "title": "No DOI at all", "externalIds": {"CorpusId": 1}}]}`)
		case strings.EqualFold(r.URL.Path, "/paper/DOI:"+turingDOI):
			_, _ = w.Write(paper)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error": "Paper not found"}`)
		}
	}))
	t.Cleanup(s2.Close)
	f := testfleet.InTx(t, testfleet.Options{Adjust: func(c *config.Config) { c.S2URL, c.OpenAlexURL = s2.URL, "" }})
	task := f.CreateTask(t, "Machines can think.")
	const q = "study of machine intelligence"
	f.AddTargetsOf(t, task, jobs.Target{Kind: jobs.TargetQuery, Value: q})
	f.Drain(t)

	if searched != q {
		t.Errorf("the academic search was asked %q, want %q", searched, q)
	}
	pool := f.Tx
	if n := queryInt(t, pool, `SELECT count(*) FROM targets WHERE task_id = $1 AND kind = 'doi'`, task); n != 2 {
		t.Errorf("%d doi targets, want 2 (the paper without a DOI is skipped)", n)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM pages WHERE doi = $1 AND abstract_only`, turingDOI); n != 1 {
		t.Error("the found paper did not become an abstract-only page")
	}
	var errText string
	if err := pool.QueryRow(t.Context(), `SELECT COALESCE(error, '') FROM targets WHERE task_id = $1 AND value = '10.5555/unknown.study'`, task).Scan(&errText); err != nil || !strings.Contains(errText, "not found") {
		t.Errorf("the unknown DOI's target: %q (%v), want failed: not found", errText, err)
	}
}
