package workers_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
)

// TestModelServerDownMakesJobsWait points NLI at a TEI server that answers
// 503 (down for maintenance) until the test brings it up. verify_nli must
// wait — snooze without using up attempts, record no error, write no edge —
// and finish normally once the server is back.
func TestModelServerDownMakesJobsWait(t *testing.T) {
	t.Parallel()
	servers := testfleet.StartModelServers(t)
	var down atomic.Bool
	down.Store(true)
	var refused atomic.Int64
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			refused.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"error":"Model is overloaded","error_type":"Overloaded"}`))
			return
		}
		servers.TEI.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(flaky.Close)

	const cooldown = 200 * time.Millisecond
	f := testfleet.InTx(t, testfleet.Options{Pages: polarPages(), Adjust: func(c *config.Config) {
		c.NLI = config.Model{Backend: "tei", URL: flaky.URL, ModelName: "lexical", Concurrency: 2,
			Retries: 1, BreakerFailures: 3, BreakerCooldown: cooldown}
	}})
	task := f.CreateTask(t, "Polar bear populations are declining because the Arctic sea ice is melting.")
	f.AddTargets(t, task, "https://en.wikipedia.org/wiki/Polar_bear", "https://www.example-science.org/arctic/sea-ice",
		"https://news.example-daily.com/polar-bears-thriving")

	ctx := context.Background()
	// Jobs are worked one at a time in the order River fetches them
	// (priority, scheduled time): verify_nli first waits for the embeddings
	// (snoozes too), then asks the NLI server. Count its snoozes from the
	// first refused request on, in either state a snoozed job is left in
	// (`available` with a future scheduled_at, or `scheduled`).
	var snoozes int
	from := -1
	for works := 0; from < 0 || snoozes < from+2; works++ {
		if f.WorkNext(t) == nil || works == 1000 {
			t.Fatalf("verify_nli never snoozed twice while the NLI server was down (%d requests refused)\n%s",
				refused.Load(), testfleet.JobDump(t, f.Tx))
		}
		err := f.Tx.QueryRow(ctx, `SELECT COALESCE(max((metadata->>'snoozes')::int), 0) FROM river_job
			WHERE kind = 'verify_nli' AND state IN ('available', 'scheduled')`).Scan(&snoozes)
		if err != nil {
			t.Fatal(err)
		}
		if from < 0 && refused.Load() > 0 {
			from = snoozes
		}
	}
	var nli, errs, discarded int
	if err := f.Tx.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM edges WHERE relation IN ('supports','refutes','neutral')),
			(SELECT count(*) FROM river_job, unnest(errors) WHERE kind = 'verify_nli'),
			(SELECT count(*) FROM river_job WHERE state IN ('discarded','cancelled'))`).Scan(&nli, &errs, &discarded); err != nil {
		t.Fatal(err)
	}
	if refused.Load() == 0 {
		t.Fatal("the NLI server was never asked while down: the test proves nothing")
	}
	if nli != 0 || errs != 0 || discarded != 0 {
		t.Fatalf("while the server was down: %d NLI edges, %d job errors, %d jobs given up; want none\n%s",
			nli, errs, discarded, testfleet.JobDump(t, f.Tx))
	}
	t.Logf("server down: %d requests refused, verify_nli snoozed %d times, nothing written", refused.Load(), snoozes)

	down.Store(false)
	// The breaker the refusals opened lets a request through once its
	// cooldown has passed (a running client would wait out the job's
	// snooze, as long or longer); worked sooner, the job snoozes again.
	time.Sleep(cooldown)
	f.Drain(t)
	if err := f.Tx.QueryRow(ctx, `SELECT count(*) FROM edges WHERE relation IN ('supports','refutes','neutral')`).Scan(&nli); err != nil {
		t.Fatal(err)
	}
	var unfinished int
	if err := f.Tx.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE state <> 'completed'`).Scan(&unfinished); err != nil {
		t.Fatal(err)
	}
	if nli == 0 || unfinished != 0 {
		t.Fatalf("after the server came back: %d NLI edges, %d jobs not completed\n%s", nli, unfinished, testfleet.JobDump(t, f.Tx))
	}
	n, err := f.Metrics.Sum("evidencefleet_model_errors_total", map[string]string{"backend": "tei", "capability": "nli"})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Error("no model error was counted for tei/nli")
	}
}
