package fleet_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
)

// poisonClaim is the hypothesis whose verification kills its worker.
const poisonClaim = "Glaciers in the Sahara are advancing faster than any glacier on Earth."

// TestAClaimThatKillsItsWorkerIsRefusedAlone: the NLI server (TEI wire
// format, answering with the built-in model) SIGKILLs the worker process
// whenever it is asked to judge a pair of one claim, and the test starts a
// new worker each time, as a Deployment would. The shard holding the claim
// is split until the claim is alone; shards that died beside it run alone
// and are verified; the claim, having killed its worker while alone, is
// refused with the reason, and it alone.
func TestAClaimThatKillsItsWorkerIsRefusedAlone(t *testing.T) {
	t.Parallel() // with the other process tests that mark themselves so
	w := climateWorkload(t, 3)
	claims := append(manyClaims(t, 5), poisonClaim)
	servers := testfleet.StartModelServers(t)
	tei, err := url.Parse(servers.TEI.URL)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var current *workerProc
	kills := 0
	proxy := httputil.NewSingleHostReverseProxy(tei)
	poisoned := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(poisonClaim)) {
			mu.Lock()
			if current != nil && current.running() {
				_ = current.cmd.Process.Signal(syscall.SIGKILL)
				<-current.exited
				kills++
			}
			mu.Unlock()
			http.Error(rw, "the worker is gone", http.StatusInternalServerError)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(rw, r)
	}))
	t.Cleanup(poisoned.Close)

	env := deterministicEnv()
	env["EVF_NLI_BACKEND"], env["EVF_NLI_URL"], env["EVF_NLI_MODEL"] = "tei", poisoned.URL, "lexical"
	// Shards of two: the poison claim (id 7 in this test's own database)
	// shares [6, 7] with another claim, so the shard is split once.
	env["EVF_VERIFY_SHARD_CLAIMS"] = "2"
	env["EVF_LIFELINE_INTERVAL"] = "200ms"
	// Two shards at a time, as by default: the claim beside the poison dies
	// with it until each runs alone.
	env["EVF_NLI_WORKERS"] = "2"

	dbURL := pgtest.URL(t)
	pool := openPool(t, dbURL)
	task := seedTask(t, pool, w, claims, true)
	start := func(i int) {
		mu.Lock()
		defer mu.Unlock()
		current = startWorker(t, fmt.Sprintf("w%d", i), workerEnv(dbURL, w.archive, env))
	}
	start(0)
	restarts := 0
	idle := pollUntil(4*time.Minute, 100*time.Millisecond, func() bool {
		mu.Lock()
		dead := !current.running()
		mu.Unlock()
		if dead {
			restarts++
			start(restarts)
		}
		return queryInt(t, pool, `SELECT count(*) FROM river_job WHERE state IN ('available','running','retryable','scheduled','pending')`) == 0
	})
	if !idle {
		t.Fatalf("the task never finished (%d kills)\n%s\n%s", kills, testfleet.JobDump(t, pool), current.logTail(40))
	}
	mu.Lock()
	current.stop(t, 15*time.Second)
	mu.Unlock()
	t.Logf("%d kills, %d restarts", kills, restarts)

	var reason *string
	if err := pool.QueryRow(t.Context(), `SELECT refused_reason FROM claims WHERE task_id = $1 AND text = $2`, task, poisonClaim).
		Scan(&reason); err != nil {
		t.Fatal(err)
	}
	if reason == nil || !strings.Contains(*reason, "worker process died 3 times while verifying it") {
		t.Errorf("the poison claim's refused_reason is %v; want the worker deaths named", reason)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM claims WHERE task_id = $1 AND refused_reason IS NOT NULL`, task); n != 1 {
		t.Errorf("%d claims refused, want the poison claim alone", n)
	}
	unjudged := queryStrings(t, pool, `SELECT c.text FROM claims c WHERE c.task_id = $1 AND c.text <> $2 AND c.kind = 'hypothesis'
		AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.target_id = c.id AND e.relation IN `+nliRelations+`)`, task, poisonClaim)
	if len(unjudged) > 0 {
		t.Errorf("hypotheses never judged: %q", unjudged)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM river_job WHERE state = 'discarded'
		OR state = 'cancelled' AND metadata->'output'->>'failure' NOT IN ('claim_kills_worker', 'target_failed')`); n != 0 {
		t.Errorf("%d jobs discarded or cancelled for another reason\n%s", n, testfleet.JobDump(t, pool))
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM river_job WHERE state = 'cancelled' AND metadata->'output'->>'failure' = 'claim_kills_worker'`); n != 1 {
		t.Errorf("%d jobs cancelled naming the claim, want 1\n%s", n, testfleet.JobDump(t, pool))
	}
	checkPosteriorsCached(t, pool)
}
