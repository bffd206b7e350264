package workers_test

import (
	"slices"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/graphsnap"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// TestQueryTargetAnsweredFromTheReplayArchive: a worker with a replay
// archive and no EVF_SEARCH_URL searches the archive (internal/search/offline):
// a query target's results are the archive's pages holding its terms, each
// fetched, extracted and judged, and the search and the fetches are the
// task's costs.
func TestQueryTargetAnsweredFromTheReplayArchive(t *testing.T) {
	t.Parallel()
	pages := append(polarPages(), testfleet.Page("https://food.example.org/pasta", "Pasta",
		"Cook the pasta in salted water and serve it with tomatoes and basil."))
	f := testfleet.Start(t, testfleet.Options{Pages: pages})
	if f.Config.SearchURL != "" || f.Config.ReplayDir == "" {
		t.Fatalf("test fleet: search URL %q, replay dir %q; want the archive alone", f.Config.SearchURL, f.Config.ReplayDir)
	}
	task := f.CreateTask(t, polarHypothesis)
	f.AddTargetsOf(t, task, jobs.Target{Kind: jobs.TargetQuery, Value: "polar bear sea ice decline"})
	testfleet.WaitIdle(t, f.Pool, 60*time.Second)

	ctx := t.Context()
	got, err := graphsnap.Strings(ctx, f.Pool, `SELECT value FROM targets WHERE task_id = $1 AND kind = 'url' AND via = 'query' AND status = 'extracted' ORDER BY 1`, task)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"https://en.wikipedia.org/wiki/Polar_bear", "https://news.example-daily.com/polar-bears-thriving", "https://www.example-science.org/arctic/sea-ice"}
	if !slices.Equal(got, want) {
		t.Errorf("url targets from the query = %v, want %v (the pasta page holds no query term):\n%s", got, want, testfleet.JobDump(t, f.Pool))
	}
	if n := queryInt(t, f.Pool, `SELECT count(*) FROM targets WHERE task_id = $1 AND kind = 'query' AND status = 'extracted' AND stage = 'searched'`, task); n != 1 {
		t.Errorf("%d query targets searched, want 1", n)
	}
	if n := queryInt(t, f.Pool, `SELECT count(*) FROM task_pages WHERE task_id = $1`, task); n != 3 {
		t.Errorf("%d pages in the task, want 3", n)
	}
	if n := queryInt(t, f.Pool, `SELECT count(*) FROM edges e JOIN claims c ON c.id = e.target_id WHERE c.task_id = $1 AND e.relation IN ('supports','refutes','neutral')`, task); n == 0 {
		t.Error("the pages found were not judged against the task's claims")
	}
	costs, err := f.Store.TaskCosts(ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	var searches, fetches int64
	for _, c := range costs {
		searches += c.Searches
		fetches += c.Fetches
	}
	if searches != 1 || fetches != 3 {
		t.Errorf("task costs: %d searches, %d fetches; want 1 and 3", searches, fetches)
	}
}
