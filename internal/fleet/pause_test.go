package fleet_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/service"
)

// TestPausedRunEndsWithSameGraph pauses a task mid-run under load in a
// started worker and resumes it: no job of the task starts while it is
// paused (every job's recorded attempts lie outside the pause), running
// jobs finish, the graph does not change while paused, none is discarded
// and no snooze uses an attempt; after the resume the task completes with
// the graph of an uninterrupted run of the same input (exhaustive mode, as
// the crash tests compare), and no NLI pair was judged twice (the pairs the
// NLI server judged are the NLI edges, as many as the reference's).
func TestPausedRunEndsWithSameGraph(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := climateWorkload(t, 24)
	type run struct {
		fleet   *testfleet.Fleet
		servers *testfleet.ModelServers
		svc     *service.Service
		task    int64
	}
	start := func() run {
		servers := testfleet.StartModelServers(t)
		f := testfleet.Start(t, testfleet.Options{Adjust: func(cfg *config.Config) {
			cfg.ReplayDir = w.archive
			// chaos.DeterministicEnv: no cut-off of candidates by arrival order
			cfg.TopK, cfg.MaxPairsPerClaim, cfg.RecallLimit, cfg.MaxDomains = 100000, 100000, 100000, 100000
			cfg.NLI.Backend, cfg.NLI.URL, cfg.NLI.ModelName = "tei", servers.TEI.URL, "learned"
			cfg.TargetWorkers = 1 // a run long enough to pause in
			cfg.PausedSnooze = 20 * time.Millisecond
			cfg.TaskSettle = 100 * time.Millisecond
		}})
		task := seedTask(t, f.Pool, w, w.claims, true)
		return run{fleet: f, servers: servers, svc: service.New(f.Store, f.Client), task: task}
	}
	ref, paused := start(), start()
	t.Logf("workload: %d target URLs, %d hypothesis claims", len(w.urls), 1+len(w.claims))

	// Pause when some pairs are judged and some targets are not yet done.
	var at progress
	if !pollUntil(90*time.Second, 5*time.Millisecond, func() bool {
		at = readProgress(t, paused.fleet.Pool)
		return at.nliEdges > 0 && at.targetsDone <= at.targets-3
	}) {
		t.Fatalf("no moment with pairs judged and targets left to pause in (last: %s)\n%s", at, testfleet.JobDump(t, paused.fleet.Pool))
	}
	if _, err := paused.svc.PauseTask(ctx, "test-org", paused.task); err != nil {
		t.Fatal(err)
	}
	pausedFrom := dbNow(t, paused.fleet.Pool) // every job fetched after this sees the pause
	t.Logf("paused at: %s", at)

	// While paused: the jobs running at the pause finish, every waiting job
	// is offered to the worker and held back three times over, and the
	// graph does not change meanwhile.
	var running, held int
	quiet := func() bool {
		running = queryInt(t, paused.fleet.Pool, `SELECT count(*) FROM river_job WHERE state = 'running' AND attempted_at < $1`, pausedFrom)
		return running == 0
	}
	if !pollUntil(60*time.Second, 5*time.Millisecond, quiet) {
		t.Fatalf("%d jobs running at the pause still running\n%s", running, testfleet.JobDump(t, paused.fleet.Pool))
	}
	before := readGraph(t, paused.fleet.Pool)
	heldBack := func(times int) bool {
		held = queryInt(t, paused.fleet.Pool, `SELECT count(*) FROM river_job WHERE state IN ('available','running','retryable','scheduled','pending')
			AND COALESCE((metadata ->> 'paused_waits')::int, 0) < $1`, times)
		return held == 0
	}
	if !pollUntil(60*time.Second, 5*time.Millisecond, func() bool { return heldBack(3) }) {
		t.Fatalf("%d waiting jobs not yet held back three times\n%s", held, testfleet.JobDump(t, paused.fleet.Pool))
	}
	waiting := queryInt(t, paused.fleet.Pool, `SELECT count(*) FROM river_job WHERE state IN ('available','running','retryable','scheduled','pending')`)
	if waiting == 0 {
		t.Fatalf("no job waits while paused: the pause came after the work (%s)", readProgress(t, paused.fleet.Pool))
	}
	if d := diffGraphs(before, readGraph(t, paused.fleet.Pool), 5); d != "" {
		t.Errorf("the graph changed while the task was paused:\n%s", d)
	}
	if s, err := paused.svc.Status(ctx, "test-org", paused.task); err != nil || s.TaskStatus != "paused" {
		t.Errorf("status while paused: %v, %v; want paused", s, err)
	}
	resumeFrom := dbNow(t, paused.fleet.Pool)
	if _, err := paused.svc.ResumeTask(ctx, "test-org", paused.task); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d jobs waited through the pause", waiting)

	for name, r := range map[string]run{"reference": ref, "paused": paused} {
		if !pollUntil(3*time.Minute, 20*time.Millisecond, func() bool {
			s, err := r.svc.Status(ctx, "test-org", r.task)
			return err == nil && s.TaskStatus == "completed"
		}) {
			t.Fatalf("%s: the task is not completed\n%s", name, testfleet.JobDump(t, r.fleet.Pool))
		}
	}
	pool := paused.fleet.Pool
	// No job ran while paused: none whose last attempt (those held back were
	// fetched again after the resume) both started and ended inside the
	// pause, and no failure inside it. attempted_at is the start of River's
	// fetch transaction, so on a busy machine a fetch that began just before
	// the resume and returned after it carries a time inside the pause: its
	// job ends after the resume.
	inPause := queryStrings(t, pool, `SELECT concat_ws(' ', id, kind, attempted_at, finalized_at) FROM river_job
		WHERE attempted_at > $1 AND finalized_at < $2
		UNION ALL SELECT concat_ws(' ', j.id, j.kind, e ->> 'at') FROM river_job j, unnest(j.errors) e
		WHERE (e ->> 'at')::timestamptz > $1 AND (e ->> 'at')::timestamptz < $2`, pausedFrom, resumeFrom)
	if len(inPause) > 0 {
		t.Errorf("jobs started while the task was paused (%s to %s): %v", pausedFrom, resumeFrom, inPause)
	}
	// None was discarded, and waiting used no attempt.
	if bad := queryStrings(t, pool, `SELECT concat_ws(' ', id, kind, state) FROM river_job WHERE state <> 'completed'`); len(bad) > 0 {
		t.Errorf("jobs not completed: %v", bad)
	}
	if burnt := queryStrings(t, pool, `SELECT concat_ws(' ', id, kind, 'attempt', attempt, 'errors', cardinality(errors)) FROM river_job
		WHERE (metadata ->> 'paused_waits')::int > 0 AND attempt <> 1 + COALESCE(cardinality(errors), 0)`); len(burnt) > 0 {
		t.Errorf("held jobs whose waits used attempts: %v", burnt)
	}

	want, got := readGraph(t, ref.fleet.Pool), readGraph(t, pool)
	// The pause and the resume are the run's own events; the rest is equal.
	got["events"] = slices.DeleteFunc(got["events"], func(e string) bool { return e == "task_paused" || e == "task_resumed" })
	t.Logf("reference graph: %s", want.Summary())
	t.Logf("paused graph:    %s", got.Summary())
	checkSameGraph(t, want, got, "the graph after pause and resume", "the uninterrupted run")
	checkNoDuplicates(t, pool)
	checkPosteriorsCached(t, pool)
	refPairs, pausedPairs := judgedPairs(t, ref.servers), judgedPairs(t, paused.servers)
	if pausedPairs != countNLI(got) || pausedPairs != refPairs {
		t.Errorf("the NLI server judged %d pairs for %d NLI edges (the uninterrupted run: %d pairs): a pair was judged again", pausedPairs, countNLI(got), refPairs)
	}
}

// dbNow is the database's time.
func dbNow(t *testing.T, pool *pgxpool.Pool) time.Time {
	t.Helper()
	var now time.Time
	if err := pool.QueryRow(context.Background(), `SELECT clock_timestamp()`).Scan(&now); err != nil {
		t.Fatal(err)
	}
	return now
}

// judgedPairs is how many pairs the NLI server judged: the lengths of its
// /predict answers (one list of labels per pair).
func judgedPairs(t *testing.T, s *testfleet.ModelServers) int {
	t.Helper()
	n := 0
	for _, body := range s.Answers("tei", "/predict") {
		var rows []json.RawMessage
		if err := json.Unmarshal(body, &rows); err != nil {
			t.Fatalf("an NLI answer: %v", err)
		}
		n += len(rows)
	}
	return n
}
