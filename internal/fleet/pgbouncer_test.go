package fleet_test

import (
	"context"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgbouncer"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/scratchdb"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
)

// clientIDInLog is the River client id a worker logs when it starts.
var clientIDInLog = regexp.MustCompile(`client_id=(evf1_\S+)`)

// TestWorkersThroughPgBouncerInTransactionMode runs a task on two worker
// processes that reach Postgres through PgBouncer in transaction mode
// (EVF_DB_POOLER=transaction) and kills one of them while it runs jobs. It
// requires: the killed process's running jobs rescued by the lifeline of
// the other (River's time-based rescuer is set out of reach), every job
// completed with no other error, and the graph of the same task run straight
// to Postgres. Each process holds one connection of its own (its liveness
// lock, EVF_DATABASE_DIRECT_URL); everything else shares the bouncer's few
// server connections.
func TestWorkersThroughPgBouncerInTransactionMode(t *testing.T) {
	pgbouncer.Need(t)
	t.Parallel()
	ctx := context.Background()
	w := climateWorkload(t, 20)
	env := deterministicEnv()
	env["EVF_JOB_TIMEOUT"] = "20s"
	env["EVF_RESCUE_STUCK_AFTER"] = "10m" // only the lifeline rescues within the test
	env["EVF_LIFELINE_INTERVAL"] = "500ms"

	refURL, runURL := pgtest.URL(t), pgtest.URL(t)
	refPool := openPool(t, refURL)
	ownURL, err := scratchdb.WithParam(runURL, "application_name", "evf-test")
	if err != nil {
		t.Fatal(err)
	}
	runPool := openPool(t, ownURL)
	seedTask(t, refPool, w, w.claims, true)
	seedTask(t, runPool, w, w.claims, true)

	// Startup parameters do not pass a transaction pooler: the timeouts
	// come from the database (or the role), or the worker refuses to start.
	if err := pgbouncer.BoundTimeouts(ctx, runPool, runURL); err != nil {
		t.Fatal(err)
	}
	const poolSize = 4
	b, err := pgbouncer.Start(ctx, runURL, poolSize)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	pooled := maps.Clone(env)
	pooled["EVF_DB_POOLER"] = "transaction"
	pooled["EVF_DATABASE_DIRECT_URL"] = runURL
	pooledURL, err := b.Pooled(runURL)
	if err != nil {
		t.Fatal(err)
	}

	ref := startWorker(t, "reference", workerEnv(refURL, w.archive, env))
	first := startWorker(t, "first", workerEnv(pooledURL, w.archive, pooled))
	second := startWorker(t, "second", workerEnv(pooledURL, w.archive, pooled))

	// While both run: each holds exactly one connection of its own, and
	// no other connection to the database is a worker's but the bouncer's.
	var firstID string
	maxOthers, killed := 0, false
	var stuck []string
	ok := pollUntil(90*time.Second, 10*time.Millisecond, func() bool {
		if firstID == "" {
			if m := clientIDInLog.FindStringSubmatch(first.log()); m != nil {
				firstID = m[1]
			}
			return false
		}
		var lifelines, others int
		if err := runPool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE application_name LIKE 'evidencefleet lifeline %'),
				count(*) FILTER (WHERE application_name NOT LIKE 'evidencefleet lifeline %' AND application_name <> 'evf-test')
			FROM pg_stat_activity WHERE datname = current_database()`).Scan(&lifelines, &others); err != nil {
			t.Fatal(err)
		}
		maxOthers = max(maxOthers, others)
		if lifelines > 2 {
			t.Errorf("%d liveness-lock connections for 2 processes", lifelines)
		}
		stuck = queryStrings(t, runPool, `SELECT concat_ws(' ', id, kind) FROM river_job
			WHERE state = 'running' AND attempted_by[cardinality(attempted_by)] = $1 ORDER BY id`, firstID)
		return len(stuck) > 0 && queryInt(t, runPool, `SELECT count(*) FROM river_job WHERE state = 'completed'`) > 0
	})
	if !ok {
		t.Fatalf("no moment with work done and jobs of the first process running (its id %q)\n%s\n%s\n%s",
			firstID, testfleet.JobDump(t, runPool), first.logTail(30), b.Log())
	}
	first.kill(t)
	killed = true
	// What the process was running when it died: its jobs still running
	// now (it can finish none any more), and any the lifeline rescued
	// already. The look above may hold a job that finished before the
	// kill, or miss one that started after it.
	stuck = queryStrings(t, runPool, `SELECT concat_ws(' ', id, kind) FROM river_job
		WHERE (state = 'running' AND attempted_by[cardinality(attempted_by)] = $1)
		   OR EXISTS (SELECT 1 FROM unnest(errors) e WHERE strpos(e->>'error', $2) > 0) ORDER BY id`,
		firstID, firstID+" "+errs.WorkerDied)
	t.Logf("killed %s with jobs running: %v; most connections to the database not a lifeline's nor the test's: %d (the bouncer's pool: %d)",
		firstID, stuck, maxOthers, poolSize)
	if maxOthers > poolSize {
		t.Errorf("%d connections besides the lifelines: more than the bouncer's %d, so a worker connected around it", maxOthers, poolSize)
	}

	waitIdle(t, refPool, 90*time.Second, ref)
	waitIdle(t, runPool, 90*time.Second, second)
	ref.stop(t, 15*time.Second)
	second.stop(t, 15*time.Second)

	rescued := queryStrings(t, runPool, `SELECT concat_ws(' ', j.id, j.kind) FROM river_job j
		WHERE EXISTS (SELECT 1 FROM unnest(j.errors) e WHERE strpos(e->>'error', $1) > 0) ORDER BY j.id`,
		firstID+" "+errs.WorkerDied)
	if killed && (len(without(stuck, rescued)) > 0 || len(without(rescued, stuck)) > 0) {
		t.Errorf("jobs running in the killed process: %v; rescued by the lifeline: %v", stuck, rescued)
	}
	if others := queryStrings(t, runPool, `SELECT concat_ws(' ', j.id, j.kind, e->>'error') FROM river_job j, unnest(j.errors) e
		WHERE strpos(e->>'error', $1) = 0`, errs.WorkerDied); len(others) > 0 {
		t.Errorf("job errors other than the rescue: %v", others)
	}
	if n := queryInt(t, runPool, `SELECT count(*) FROM river_job WHERE state <> 'completed'`); n > 0 {
		t.Errorf("%d jobs not completed\n%s", n, testfleet.JobDump(t, runPool))
	}
	want, got := readGraph(t, refPool), readGraph(t, runPool)
	checkSameGraph(t, want, got, "the graph through PgBouncer", "the one straight to Postgres")
	checkNoDuplicates(t, runPool)
	checkPosteriorsCached(t, runPool)
}

// TestWorkerThroughPgBouncerRefusesUnboundedTimeouts starts a worker
// through PgBouncer on a database whose sessions have no timeouts: it must
// refuse to start, naming each setting and the statement that sets it.
func TestWorkerThroughPgBouncerRefusesUnboundedTimeouts(t *testing.T) {
	pgbouncer.Need(t)
	t.Parallel()
	ctx := context.Background()
	dbURL := pgtest.URL(t)
	b, err := pgbouncer.Start(ctx, dbURL, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	env := deterministicEnv()
	env["EVF_DB_POOLER"] = "transaction"
	env["EVF_DATABASE_DIRECT_URL"] = dbURL
	pooledURL, err := b.Pooled(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	p := startWorker(t, "unbounded", workerEnv(pooledURL, t.TempDir(), env))
	code, exited := p.wait(30 * time.Second)
	if !exited || code == 0 {
		t.Fatalf("the worker did not refuse to start (exited %v, code %d)\n%s", exited, code, p.logTail(20))
	}
	log := p.log()
	for _, name := range []string{"statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout"} {
		if !strings.Contains(log, "ALTER ROLE") || !strings.Contains(log, " SET "+name+" = '") {
			t.Errorf("the refusal does not name %s and its fix:\n%s", name, p.logTail(20))
		}
	}
}

// without is the strings of a that are not in b.
func without(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}
