package jobs_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/testfleet"
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
	const q1, q2 = "polar bear population decline", "arctic sea ice melting"
	srv := searxng(t, map[string][]string{
		q1: {"https://en.wikipedia.org/wiki/Polar_bear", "https://news.example-daily.com/polar-bears-thriving", "not a url"},
		q2: {"https://www.example-science.org/arctic/sea-ice", "https://en.wikipedia.org/wiki/Polar_bear#Population"},
	})
	f := testfleet.Start(t, testfleet.Options{Pages: polarPages(), Adjust: func(c *config.Config) { c.SearchURL = srv.URL }})
	task := f.CreateTask(t, polarHypothesis)
	f.AddTargetsOf(t, task, jobs.Target{Kind: jobs.TargetQuery, Value: q1}, jobs.Target{Kind: jobs.TargetQuery, Value: q2})
	testfleet.WaitIdle(t, f.Pool, 60*time.Second)

	pool := f.Pool
	// Three distinct pages (the fragment #Population normalises away), each fetched by one job.
	if n := queryInt(t, pool, `SELECT count(*) FROM targets WHERE task_id = $1 AND kind = 'url'`, task); n != 3 {
		t.Errorf("%d url targets, want 3", n)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM river_job WHERE kind = 'target_queue' AND args->'target'->>'kind' = 'url'`); n != 3 {
		t.Errorf("%d url target_queue jobs, want 3 (one per URL, even for the URL both queries returned)", n)
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
	testfleet.WaitIdle(t, f.Pool, 60*time.Second)
	if n := queryInt(t, pool, `SELECT count(*) FROM river_job WHERE kind = 'target_queue'`); n != 5 {
		t.Errorf("%d target_queue jobs after the same query again, want 5 (the repeat is a duplicate)", n)
	}
	if got, _ := f.Worker.Metrics().Sum("evidencefleet_search_requests_total", map[string]string{"outcome": "ok"}); got != 2 {
		t.Errorf("%v searches, want 2", got)
	}
}

func TestQueryTargetWithoutSearchBackendFailsClearly(t *testing.T) {
	f := testfleet.Start(t, testfleet.Options{Pages: polarPages()})
	task := f.CreateTask(t, polarHypothesis)
	f.AddTargetsOf(t, task, jobs.Target{Kind: jobs.TargetQuery, Value: "polar bears"})
	testfleet.WaitIdle(t, f.Pool, 30*time.Second)
	var status, errText string
	if err := f.Pool.QueryRow(t.Context(), `SELECT status, COALESCE(error, '') FROM targets WHERE task_id = $1`, task).Scan(&status, &errText); err != nil {
		t.Fatal(err)
	}
	if status != "failed" || !strings.Contains(errText, "EVF_SEARCH_URL") {
		t.Errorf("target %s (%q), want failed naming EVF_SEARCH_URL", status, errText)
	}
	if got, _ := f.Worker.Metrics().Sum("evidencefleet_search_requests_total", map[string]string{"outcome": "not_configured"}); got != 1 {
		t.Errorf("not_configured counted %v times, want 1", got)
	}
}
