package fleet_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
)

// rescuedError is the error River's rescuer records on a job it found
// stuck; the lifeline records one naming the dead process.
const rescuedError = "Stuck job rescued by JobRescuer"

// isRescue is the SQL test of a job error e that records a rescue, by
// River's rescuer ($1 = rescuedError) or the lifeline.
const isRescue = `(e->>'error' = $1 OR strpos(e->>'error', '` + errs.WorkerDied + `') > 0)`

// progress is the state of a run, read from river_job and edges.
type progress struct {
	targetsDone, targets int
	running, unfinished  int
	nliEdges             int
}

func readProgress(t *testing.T, pool *pgxpool.Pool) progress {
	t.Helper()
	var p progress
	err := pool.QueryRow(context.Background(), `
		SELECT count(*) FILTER (WHERE kind = 'target_queue' AND state = 'completed'),
		       count(*) FILTER (WHERE kind = 'target_queue'),
		       count(*) FILTER (WHERE state = 'running'),
		       count(*) FILTER (WHERE state IN ('available','running','retryable','scheduled','pending')),
		       (SELECT count(*) FROM edges WHERE relation IN `+nliRelations+`)
		FROM river_job`).Scan(&p.targetsDone, &p.targets, &p.running, &p.unfinished, &p.nliEdges)
	if err != nil {
		t.Fatalf("read progress: %v", err)
	}
	return p
}

func (p progress) String() string {
	return fmt.Sprintf("%d/%d targets done, %d jobs running, %d unfinished, %d NLI edges",
		p.targetsDone, p.targets, p.running, p.unfinished, p.nliEdges)
}

// TestKilledWorkerEndsWithSameGraph kills a worker process with SIGKILL in
// the middle of a run, restarts it, and requires the same graph as an
// uninterrupted run on the same input: same pages, fragments, claims, edges
// and posteriors by natural key, no duplicate rows, cached posteriors equal to
// a recomputation from the edges.
func TestKilledWorkerEndsWithSameGraph(t *testing.T) {
	t.Parallel()
	w := climateWorkload(t, 40)
	env := deterministicEnv()
	// The slowest job, a verify_nli judging every candidate pair of 40
	// claims, takes up to ~3s under -race on a busy 2-CPU machine: 10s is
	// well above that. The jobs of the killed process are rescued on the
	// first rescuer run of the restarted process, which can only lead once
	// the dead leader's term has expired (River: ~15s): any rescue delay
	// below that costs no time.
	env["EVF_JOB_TIMEOUT"] = "10s"
	env["EVF_RESCUE_STUCK_AFTER"] = "12s"

	refURL, runURL := pgtest.URL(t), pgtest.URL(t)
	refPool, runPool := openPool(t, refURL), openPool(t, runURL)
	seedTask(t, refPool, w, w.claims, true)
	seedTask(t, runPool, w, w.claims, true)
	t.Logf("workload: %d target URLs, %d hypothesis claims", len(w.urls), 1+len(w.claims))

	// The run: start, and kill when some but not all work is done and
	// jobs are running.
	first := startWorker(t, "first", workerEnv(runURL, w.archive, env))
	var atKill progress
	midRun := pollUntil(60*time.Second, 5*time.Millisecond, func() bool {
		atKill = readProgress(t, runPool)
		return (atKill.nliEdges > 0 || 3*atKill.targetsDone >= atKill.targets) && atKill.running > 0
	})
	if !midRun {
		t.Fatalf("no moment with work done and jobs running to kill in (last: %s)\n%s\n%s",
			atKill, testfleet.JobDump(t, runPool), first.logTail(30))
	}
	first.kill(t)
	afterKill := readProgress(t, runPool)
	stuck := queryStrings(t, runPool, `SELECT concat_ws(' ', id, kind, 'attempt', attempt) FROM river_job WHERE state = 'running' ORDER BY id`)
	t.Logf("SIGKILL at: %s; after the kill: %s", atKill, afterKill)
	t.Logf("graph at the kill: %s", readGraph(t, runPool).Summary())
	t.Logf("jobs left running by the killed process: %v", stuck)
	if afterKill.unfinished == 0 {
		t.Fatalf("the worker had finished everything before it was killed: nothing was mid-run\n%s", testfleet.JobDump(t, runPool))
	}

	// The restart and, meanwhile, the uninterrupted reference run.
	restarted := startWorker(t, "restarted", workerEnv(runURL, w.archive, env))
	ref := startWorker(t, "reference", workerEnv(refURL, w.archive, env))
	start := time.Now()
	waitIdle(t, refPool, 90*time.Second, ref)
	t.Logf("reference run idle after %s", time.Since(start).Round(time.Millisecond))
	waitIdle(t, runPool, 90*time.Second, restarted)
	t.Logf("restarted run idle after %s", time.Since(start).Round(time.Millisecond))
	ref.stop(t, 15*time.Second)
	restarted.stop(t, 15*time.Second)

	// The kill really interrupted jobs, and they were rescued and re-run.
	rescued := queryStrings(t, runPool, `SELECT concat_ws(' ', id, kind, state, 'attempt', attempt) FROM river_job
		WHERE EXISTS (SELECT 1 FROM unnest(errors) e WHERE `+isRescue+`) ORDER BY id`, rescuedError)
	rerun := queryInt(t, runPool, `SELECT count(*) FROM river_job WHERE attempt > 1`)
	t.Logf("jobs rescued after the kill: %v; jobs with attempt > 1: %d", rescued, rerun)
	if len(stuck) > 0 && len(rescued) < len(stuck) {
		t.Errorf("%d jobs were left running by the killed worker, only %d were rescued\n%s",
			len(stuck), len(rescued), testfleet.JobDump(t, runPool))
	}
	if len(stuck) == 0 {
		t.Logf("note: no job was in state running at the kill, so none was rescued; the kill still cut the run (%s)", afterKill)
	}
	// No job failed for any other reason in either run. A job timeout only
	// means the machine is overloaded (the retry must still converge, which
	// the graph comparison checks), so it is logged, not failed.
	for _, c := range []struct {
		name string
		pool *pgxpool.Pool
	}{{"reference", refPool}, {"run", runPool}} {
		errs := queryStrings(t, c.pool, `SELECT concat_ws(' ', j.id, j.kind, e->>'error') FROM river_job j, unnest(j.errors) e
			WHERE NOT `+isRescue+` ORDER BY j.id`, rescuedError)
		for _, e := range errs {
			if strings.Contains(e, "deadline exceeded") {
				t.Logf("%s: a job hit EVF_JOB_TIMEOUT (overloaded machine?): %s", c.name, e)
			} else {
				t.Errorf("%s: job error other than a rescue: %s\n%s", c.name, e, testfleet.JobDump(t, c.pool))
			}
		}
		states := queryStrings(t, c.pool, `SELECT concat_ws(' ', id, kind, state) FROM river_job WHERE state <> 'completed' ORDER BY id`)
		if len(states) > 0 {
			t.Errorf("%s: jobs not completed: %v", c.name, states)
		}
		t.Logf("%s: slowest jobs: %v", c.name, queryStrings(t, c.pool, `
			SELECT concat_ws(' ', kind, max(finalized_at - attempted_at)) FROM river_job GROUP BY kind ORDER BY kind`))
	}

	want, got := readGraph(t, refPool), readGraph(t, runPool)
	t.Logf("reference graph: %s", want.Summary())
	t.Logf("run graph:       %s", got.Summary())
	checkSameGraph(t, want, got, "the graph after kill and restart", "the uninterrupted run")
	for _, c := range []struct {
		name string
		pool *pgxpool.Pool
	}{{"reference", refPool}, {"run", runPool}} {
		t.Run(c.name+" is consistent", func(t *testing.T) {
			checkNoDuplicates(t, c.pool)
			checkEvidenceNumbers(t, c.pool)
			checkPosteriorsCached(t, c.pool)
		})
	}
}

// TestEmbedJobsRescuedAfterVerifyGaveUpGetJudged puts a run in the state a
// worker killed while embedding leaves behind: its embed jobs stay running
// until River rescues them (EVF_RESCUE_STUCK_AFTER, 15m by default), while
// the other workers take in every page and verify_nli, after
// EVF_VERIFY_MAX_EMBED_WAITS snoozes (2 minutes by default), judges without
// those fragments. Once the rescued embed jobs have run, the graph must be
// the one of an uninterrupted run: the late fragments must be judged too.
// Timings are scaled down; the ratio (rescue after the verify wait) is the
// default one.
func TestEmbedJobsRescuedAfterVerifyGaveUpGetJudged(t *testing.T) {
	t.Parallel()
	w := climateWorkload(t, 10)
	env := deterministicEnv()
	env["EVF_VERIFY_EMBED_WAIT"] = "100ms"
	env["EVF_VERIFY_MAX_EMBED_WAITS"] = "3"
	env["EVF_JOB_TIMEOUT"] = "10s"
	env["EVF_RESCUE_STUCK_AFTER"] = "12s"

	refURL, runURL := pgtest.URL(t), pgtest.URL(t)
	refPool, runPool := openPool(t, refURL), openPool(t, runURL)
	seedTask(t, refPool, w, w.claims, true)
	seedTask(t, runPool, w, w.claims, true)
	ref := startWorker(t, "reference", workerEnv(refURL, w.archive, env))
	waitIdle(t, refPool, 60*time.Second, ref)
	ref.stop(t, 15*time.Second)

	// The surviving workers: everything but embedding.
	noEmbed := map[string]string{"EVF_QUEUES": "target,nli"}
	for k, v := range env {
		noEmbed[k] = v
	}
	survivor := startWorker(t, "survivor", workerEnv(runURL, w.archive, noEmbed))
	done := pollUntil(60*time.Second, 50*time.Millisecond, func() bool {
		return queryInt(t, runPool, `SELECT count(*) FROM river_job WHERE kind <> 'embed' AND state <> 'completed'`) == 0
	})
	if !done {
		t.Fatalf("target_queue and verify_nli jobs did not finish\n%s\n%s", testfleet.JobDump(t, runPool), survivor.logTail(30))
	}
	survivor.stop(t, 15*time.Second)
	if !strings.Contains(survivor.log(), "verifying without fragments that are still not embedded") {
		t.Fatalf("verify_nli did not give up waiting for embeddings: the test proves nothing\n%s", survivor.logTail(30))
	}
	// The embed jobs as a killed worker leaves them: running, long ago.
	ctx := context.Background()
	tag, err := runPool.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1,
		attempted_at = now() - interval '1 hour', attempted_by = ARRAY['killed-worker']
		WHERE kind = 'embed' AND state = 'available'`)
	if err != nil {
		t.Fatal(err)
	}
	if tag.RowsAffected() == 0 {
		t.Fatalf("no embed job waiting\n%s", testfleet.JobDump(t, runPool))
	}

	restarted := startWorker(t, "restarted", workerEnv(runURL, w.archive, env))
	waitIdle(t, runPool, 90*time.Second, restarted)
	restarted.stop(t, 15*time.Second)
	rescued := queryInt(t, runPool, `SELECT count(*) FROM river_job
		WHERE kind = 'embed' AND state = 'completed' AND EXISTS (SELECT 1 FROM unnest(errors) e WHERE e->>'error' = $1)`, rescuedError)
	if rescued != int(tag.RowsAffected()) {
		t.Errorf("%d of %d stuck embed jobs were rescued and completed\n%s", rescued, tag.RowsAffected(), testfleet.JobDump(t, runPool))
	}
	want, got := readGraph(t, refPool), readGraph(t, runPool)
	t.Logf("reference graph: %s", want.Summary())
	t.Logf("run graph:       %s", got.Summary())
	if countNLI(want) == 0 {
		t.Fatalf("the reference graph has no NLI edge: the comparison would prove nothing")
	}
	if d := diffGraphs(want, got, 5); d != "" {
		t.Errorf("fragments embedded after verify_nli gave up waiting were never judged:\n%s", d)
	}
	checkPosteriorsCached(t, runPool)
}
