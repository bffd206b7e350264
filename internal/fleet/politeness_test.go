package fleet_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestFleetWidePoliteness is issue 28's must-show: three worker processes
// and 31 URL targets on one live site (an httptest server, so the SSRF
// guard is off), under a domain policy of 5 requests a second (200 ms
// apart) and 30 a day. The fetch times the fleet granted for the domain,
// read from the database, are at least 200 ms apart whichever process
// fetched; the site is asked for 30 pages, each once; the budget stops
// the 31st target, whose job waits for the next UTC day naming the budget;
// and no wait used an attempt. The per-process floor is off, so the
// spacing seen is the fleet's.
func TestFleetWidePoliteness(t *testing.T) {
	t.Parallel()
	const (
		targets = 31
		budget  = 30
		spacing = 200 * time.Millisecond
	)
	var mu sync.Mutex
	requested := map[string]int{} // page path → requests
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		requested[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		n := strings.TrimPrefix(r.URL.Path, "/report/")
		_, _ = w.Write(testfleet.HTML("Station report "+n,
			fmt.Sprintf("Tide gauge station %s recorded a sea level rise of %s millimetres a year since 1993.", n, n),
			fmt.Sprintf("The record of station %s shows the rise accelerating in the last two decades.", n)))
	}))
	t.Cleanup(site.Close)

	policy := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(policy, fmt.Appendf(nil, "default: {requests_per_second: %g, requests_per_day: %d}\n", float64(time.Second)/float64(spacing), budget), 0o644); err != nil {
		t.Fatal(err)
	}
	w := workload{hypothesis: "Sea level rise is accelerating."}
	for i := 1; i <= targets; i++ {
		w.urls = append(w.urls, fmt.Sprintf("%s/report/%d", site.URL, i))
	}
	dbURL := pgtest.URL(t)
	pool := openPool(t, dbURL)
	task := seedTask(t, pool, w, nil, true)
	env := map[string]string{"EVF_DOMAIN_POLICY": policy, "EVF_ALLOW_PRIVATE_IPS": "true", "EVF_FETCH_DOMAIN_DELAY": "0",
		"EVF_QUEUES": "target"}
	var procs []*workerProc
	for _, name := range []string{"a", "b", "c"} {
		procs = append(procs, startWorker(t, name, workerEnv(dbURL, "", env)))
	}

	// Until 30 targets are extracted and the last job waits for the budget.
	budgetWait := `SELECT count(*) FROM river_job WHERE kind = 'target_queue' AND state = 'scheduled' AND metadata->>'polite_reason' = 'budget'`
	settled := pollUntil(2*time.Minute, 100*time.Millisecond, func() bool {
		return queryInt(t, pool, `SELECT count(*) FROM targets WHERE task_id = $1 AND status = 'extracted'`, task) == budget &&
			queryInt(t, pool, budgetWait) == targets-budget
	})
	for _, p := range procs {
		p.stop(t, 15*time.Second)
	}
	if !settled {
		t.Fatalf("the fleet did not settle on %d extracted targets and %d waiting for the budget\n%s\n%s", budget, targets-budget,
			testfleet.JobDump(t, pool), procs[0].logTail(30))
	}

	grants, err := store.New(pool).DomainFetchTimes(context.Background(), "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if days := queryInt(t, pool, `SELECT count(DISTINCT (granted_at AT TIME ZONE 'UTC')::date) FROM domain_fetches`); days > 1 {
		t.Skip("the run crossed UTC midnight, where the daily budget starts over")
	}
	if len(grants) != budget {
		t.Fatalf("%d fetches granted for 127.0.0.1, want the budget of %d", len(grants), budget)
	}
	for i := 1; i < len(grants); i++ {
		if gap := grants[i].GrantedAt.Sub(grants[i-1].GrantedAt); gap < spacing {
			t.Errorf("fetches %d and %d of the domain were granted %s apart, less than %s", i-1, i, gap, spacing)
		}
	}
	mu.Lock()
	pages, twice := len(requested), 0
	for _, n := range requested {
		if n > 1 {
			twice++
		}
	}
	mu.Unlock()
	if pages != budget || twice != 0 {
		t.Errorf("the site was asked for %d pages (%d of them more than once), want %d, each once", pages, twice, budget)
	}

	// The 31st: its target not fetched, its job waiting for the next UTC day.
	var status, reason string
	var scheduled, midnight time.Time
	if err := pool.QueryRow(context.Background(), `SELECT t.status, j.metadata->>'polite_reason', j.scheduled_at,
			((now() AT TIME ZONE 'UTC')::date + 1)::timestamp AT TIME ZONE 'UTC'
		FROM river_job j JOIN targets t ON t.task_id = $1 AND t.value = j.args->'target'->>'value'
		WHERE j.kind = 'target_queue' AND j.state = 'scheduled'`, task).Scan(&status, &reason, &scheduled, &midnight); err != nil {
		t.Fatalf("the waiting job: %v\n%s", err, testfleet.JobDump(t, pool))
	}
	if status != "seen" || reason != "budget" || scheduled.Before(midnight.Add(-time.Minute)) {
		t.Errorf("the 31st target is %s, its job waits for %q until %s; want seen, budget, the next UTC day (%s)", status, reason, scheduled, midnight)
	}
	var count int
	var answer string
	if err := pool.QueryRow(context.Background(), `SELECT day_count, last_answer FROM domain_politeness WHERE domain = '127.0.0.1'`).
		Scan(&count, &answer); err != nil {
		t.Fatal(err)
	}
	if count != budget || answer != "budget" {
		t.Errorf("the domain's row: %d fetches today, last answer %q; want %d, budget", count, answer, budget)
	}

	// Waits used no attempt; the fetches were shared by the processes.
	if n := queryInt(t, pool, `SELECT count(*) FROM river_job WHERE kind = 'target_queue' AND (attempt > 1 OR errors IS NOT NULL AND cardinality(errors) > 0
		OR state NOT IN ('completed', 'scheduled'))`); n != 0 {
		t.Errorf("%d target_queue jobs retried, failed or ended otherwise\n%s", n, testfleet.JobDump(t, pool))
	}
	byProcess := map[string]int{}
	for _, g := range grants {
		var by string
		if err := pool.QueryRow(context.Background(), `SELECT attempted_by[array_length(attempted_by, 1)] FROM river_job WHERE id = $1`, *g.JobID).Scan(&by); err != nil {
			t.Fatal(err)
		}
		byProcess[by]++
	}
	waits := queryInt(t, pool, `SELECT COALESCE(sum((metadata->>'polite_waits')::int), 0) FROM river_job WHERE kind = 'target_queue'`)
	shares, _ := json.Marshal(byProcess)
	t.Logf("fetches per process %s; %d politeness waits in all; first and last grant %s apart", shares, waits,
		grants[len(grants)-1].GrantedAt.Sub(grants[0].GrantedAt).Round(time.Millisecond))
	if len(byProcess) < 2 {
		t.Errorf("one process fetched everything (%s): the spacing was not tested across processes", shares)
	}
}
