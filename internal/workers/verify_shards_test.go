package workers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// shardClaims are the further hypothesis claims of the shard tests: with the
// hypothesis and the pages' extracted claims, the task has claims in many
// shards of two.
var shardClaims = []string{
	"Arctic sea ice has declined in area and volume.",
	"Polar bears hunt seals from the sea ice.",
	"The polar bear is classified as a vulnerable species.",
	"Polar bear populations are thriving across the Arctic.",
	"Brown bears and polar bears can interbreed.",
}

// exhaustive makes the graph independent of which job judges which pair
// (no cut-off by rank or arrival), with the given shard width and pair bound.
func exhaustive(shardClaims, jobPairs int) func(*config.Config) {
	return func(c *config.Config) {
		c.TopK, c.MaxPairsPerClaim, c.RecallLimit, c.MaxDomains = 100000, 100000, 100000, 100000
		c.ShardClaims, c.JobPairs = shardClaims, jobPairs
	}
}

// shardTask is the polar task with shardClaims on a test fleet in exhaustive
// mode with the given shard width and pair bound; nothing is worked yet.
func shardTask(t *testing.T, width, jobPairs int) (*testfleet.TxFleet, int64) {
	t.Helper()
	f := testfleet.InTx(t, testfleet.Options{Pages: polarPages(), Adjust: exhaustive(width, jobPairs)})
	task := f.CreateTask(t, polarHypothesis, shardClaims...)
	f.AddTargets(t, task, polarURLs...)
	return f, task
}

// nliGraph is every NLI edge of the transaction's database by natural key:
// the claim's text and the fragment's page and offset.
func nliGraph(t *testing.T, tx pgx.Tx) []string {
	t.Helper()
	rows, err := tx.Query(context.Background(), `SELECT format('%s | %s@%s | %s %s %s', c.text, p.url, f.start_char,
		e.relation, e.nli_label, round(e.nli_edge_confidence::numeric, 6))
		FROM edges e JOIN claims c ON c.id = e.target_id JOIN fragments f ON f.id = e.source_id JOIN pages p ON p.id = f.page_id
		WHERE e.relation IN `+nliRelations+` ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestVerifyShardsJudgeNoMoreThanTheBoundAndBuildTheSameGraph verifies one
// task twice from the same input: once as one shard with no pair bound, once
// in shards of two claims judging at most five pairs per job. Every job
// stays within the bound, the task's verification is spread over several
// shards and successors, and the graph is the same.
func TestVerifyShardsJudgeNoMoreThanTheBoundAndBuildTheSameGraph(t *testing.T) {
	t.Parallel()
	// Each run in its own subtest, its transaction rolled back before the
	// next one inserts the same pages.
	var want, got []string
	t.Run("OneShard", func(t *testing.T) {
		f, _ := shardTask(t, jobs.MaxClaimIDs, 1000000)
		f.Drain(t)
		want = nliGraph(t, f.Tx)
	})
	t.Run("ShardsOfTwoFivePairsPerJob", func(t *testing.T) {
		f, _ := shardTask(t, 2, 5)
		f.Drain(t)
		got = nliGraph(t, f.Tx)
		checkShardJobs(t, f, 5)
	})
	if len(want) == 0 {
		t.Fatal("no NLI edge at all: the test proves nothing")
	}
	if !slices.Equal(got, want) {
		t.Errorf("sharded graph differs: %d edges, want %d\n%s", len(got), len(want), firstDiff(got, want))
	}
}

// checkShardJobs requires every shard job of f to have completed within the
// pair bound, over at least three shards and with hand-overs to successors.
func checkShardJobs(t *testing.T, f *testfleet.TxFleet, bound int) {
	t.Helper()
	rows, err := f.Tx.Query(context.Background(), `SELECT args->>'claim_from', args->>'claim_to', state, metadata->'output'
		FROM river_job WHERE kind = 'verify_nli' AND args ? 'claim_from' ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	ranges, handedOver, jobsRun := map[string]bool{}, 0, 0
	for rows.Next() {
		var from, to, state string
		var raw []byte
		if err := rows.Scan(&from, &to, &state, &raw); err != nil {
			t.Fatal(err)
		}
		var out workers.VerifyOutput
		if state != "completed" || json.Unmarshal(raw, &out) != nil {
			t.Errorf("shard [%s, %s] ended %s with output %s", from, to, state, raw)
			continue
		}
		if out.Judged > bound {
			t.Errorf("shard [%s, %s] judged %d pairs in one job, more than the bound of %d", from, to, out.Judged, bound)
		}
		ranges[from+"-"+to] = true
		if out.HandedOver {
			handedOver++
		}
		jobsRun++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d shard jobs over %d shards, %d handed over to a successor", jobsRun, len(ranges), handedOver)
	if len(ranges) < 3 || handedOver == 0 {
		t.Errorf("%d shards, %d hand-overs: the task was not spread over shards and successors", len(ranges), handedOver)
	}
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("first difference at %d:\n got  %s\n want %s", i, got[i], want[i])
		}
	}
	return "one is a prefix of the other"
}

// TestVerifyShardSplitsUntilTheClaimThatKillsItsWorkerIsAlone plays a claim
// whose verification kills the worker process: every shard job whose range
// holds it is given errs.MaxWorkerDeaths deaths (as the lifeline records
// them) before it runs. Shards split in halves until the claim is alone;
// only that claim is refused, with the reason, its last job is cancelled
// naming it, and every other claim of the task is verified.
func TestVerifyShardSplitsUntilTheClaimThatKillsItsWorkerIsAlone(t *testing.T) {
	t.Parallel()
	poisonText := shardClaims[2]
	// The graph of a run without the poison, but for the poison claim's edges.
	var want, got []string
	t.Run("Clean", func(t *testing.T) {
		f, _ := shardTask(t, 8, 1000000)
		f.Drain(t)
		for _, e := range nliGraph(t, f.Tx) {
			if !strings.HasPrefix(e, poisonText+" |") {
				want = append(want, e)
			}
		}
	})
	t.Run("Poisoned", func(t *testing.T) {
		f, task := shardTask(t, 8, 1000000)
		f.Drain(t, jobs.KindTargetQueue, jobs.KindEmbed)
		var poison int64
		if err := f.Tx.QueryRow(context.Background(), `SELECT id FROM claims WHERE task_id = $1 AND text = $2`, task, poisonText).
			Scan(&poison); err != nil {
			t.Fatal(err)
		}
		drainPoisoned(t, f, poison)
		got = nliGraph(t, f.Tx)
	})
	if len(want) == 0 {
		t.Fatal("no NLI edge at all: the test proves nothing")
	}
	if !slices.Equal(got, want) {
		t.Errorf("the other claims' graph differs from a clean run: %d edges, want %d\n%s", len(got), len(want), firstDiff(got, want))
	}
}

// drainPoisoned works f's jobs, giving every shard job whose range holds the
// poison claim errs.MaxWorkerDeaths deaths (as the lifeline counts them)
// before it runs, and checks the splits, the refusal and the cancellation.
func drainPoisoned(t *testing.T, f *testfleet.TxFleet, poison int64) {
	t.Helper()
	ctx := context.Background()
	for range 200 {
		_, err := f.Tx.Exec(ctx, `UPDATE river_job SET metadata = metadata || jsonb_build_object('worker_deaths', $1::int, 'worker_deaths_solo', $1::int), attempt = $1
			WHERE kind = 'verify_nli' AND state = 'available' AND args ? 'claim_from'
			  AND $2 BETWEEN (args->>'claim_from')::bigint AND (args->>'claim_to')::bigint AND NOT metadata ? 'worker_deaths'`,
			errs.MaxWorkerDeaths, poison)
		if err != nil {
			t.Fatal(err)
		}
		if f.WorkNext(t) == nil {
			break
		}
	}
	splits := queryInt(t, f.Tx, `SELECT count(*) FROM river_job WHERE kind = 'verify_nli' AND metadata->'output' ? 'split_into'`)
	// Claim ids of parallel tests interleave: count the claims the first
	// shard holding the poison had.
	first := queryInt(t, f.Tx, `SELECT count(*) FROM claims c JOIN claims p ON p.id = $1 AND c.task_id = p.task_id,
		(SELECT (args->>'claim_from')::bigint AS lo, (args->>'claim_to')::bigint AS hi FROM river_job
		 WHERE kind = 'verify_nli' AND $1 BETWEEN (args->>'claim_from')::bigint AND (args->>'claim_to')::bigint ORDER BY id LIMIT 1) j
		WHERE c.id BETWEEN j.lo AND j.hi`, poison)
	t.Logf("the poison's first shard held %d claims; %d splits", first, splits)
	// Halving at the median isolates a claim of n in at least ⌊log₂ n⌋ splits.
	if splits < bits.Len(uint(first))-1 {
		t.Errorf("%d splits of a shard of %d claims: not halved down to the claim\n%s", splits, first, testfleet.JobDump(t, f.Tx))
	}
	var reason *string
	if err := f.Tx.QueryRow(ctx, `SELECT refused_reason FROM claims WHERE id = $1`, poison).Scan(&reason); err != nil {
		t.Fatal(err)
	}
	if reason == nil || !strings.Contains(*reason, "died 3 times while verifying it") {
		t.Errorf("the poison claim's refused_reason is %v; want the worker deaths named", reason)
	}
	cancelled := queryInt(t, f.Tx, `SELECT count(*) FROM river_job WHERE kind = 'verify_nli' AND state = 'cancelled'
		AND errors[cardinality(errors)]->>'error' LIKE $1 AND metadata->'output'->>'failure' = 'claim_kills_worker'`,
		fmt.Sprintf("%%claim %d refused%%", poison))
	if cancelled != 1 {
		t.Errorf("%d cancelled jobs name the poison claim, want 1:\n%s", cancelled, testfleet.JobDump(t, f.Tx))
	}
	if n := queryInt(t, f.Tx, `SELECT count(*) FROM river_job WHERE state NOT IN ('completed', 'cancelled')`); n != 0 {
		t.Errorf("%d jobs unfinished:\n%s", n, testfleet.JobDump(t, f.Tx))
	}
	if n := queryInt(t, f.Tx, `SELECT count(*) FROM claims WHERE refused_reason IS NOT NULL AND id <> $1`, poison); n != 0 {
		t.Errorf("%d other claims were refused", n)
	}
}

// TestVerifyDispatchEnqueuesAPageOfShardsAndContinues: a dispatch enqueues
// at most DispatchShards shard jobs and a continuation for the rest; the
// chain of continuations covers every shard of the task once.
func TestVerifyDispatchEnqueuesAPageOfShardsAndContinues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tx := pgtest.Tx(t)
	task := fixture.Task(t, tx, "Dispatches are bounded.")
	for i := range 12 {
		fixture.Claim(t, tx, task, fmt.Sprintf("Claim number %d of a task with many shards.", i))
	}
	st := store.NewStore(tx)
	verify := workers.VerifyConfig{ShardClaims: 2, DispatchShards: 3}
	w := rivertest.NewWorker(t, riverpgxv5.New(nil), &river.Config{Middleware: workers.Middleware(store.NewStore(tx), workers.ServerWaits{}, nil, nil)},
		workers.NewVerifyNLIWorker(st, nil, nil, nil, verify, nil, nil))
	// Every bucket of the task's claims.
	rows, err := tx.Query(ctx, `SELECT DISTINCT format('%s-%s', greatest(id / 2 * 2, 1), id / 2 * 2 + 1) FROM claims WHERE task_id = $1`, task)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	args := jobs.VerifyNLIArgs{TaskID: task}
	var got []string
	for page := 0; ; page++ {
		if page > len(want) {
			t.Fatalf("more than %d dispatch pages", page)
		}
		res, err := w.Work(ctx, t, tx, args, nil)
		if err != nil || res.EventKind != river.EventKindJobCompleted {
			t.Fatalf("dispatch from %d: %v, %+v", args.DispatchFrom, err, res)
		}
		var out workers.DispatchOutput
		if err := json.Unmarshal(res.Job.Output(), &out); err != nil {
			t.Fatal(err)
		}
		if out.Shards > verify.DispatchShards {
			t.Errorf("one dispatch enqueued %d shards, more than %d", out.Shards, verify.DispatchShards)
		}
		rows, err := tx.Query(ctx, `SELECT format('%s-%s', args->>'claim_from', args->>'claim_to') FROM river_job
			WHERE kind = 'verify_nli' AND args ? 'claim_from' AND id > $1 ORDER BY id`, res.Job.ID)
		if err != nil {
			t.Fatal(err)
		}
		ranges, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ranges...)
		// Mark this page's shards done, as the fleet would, so that the
		// next dispatch does not leave them out as waiting.
		if _, err := tx.Exec(ctx, `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE kind = 'verify_nli' AND id > $1`, res.Job.ID); err != nil {
			t.Fatal(err)
		}
		if !out.Continued {
			break
		}
		var next int64
		if err := tx.QueryRow(ctx, `SELECT (args->>'dispatch_from')::bigint FROM river_job
			WHERE kind = 'verify_nli' AND args ? 'dispatch_from' AND id > $1`, res.Job.ID).Scan(&next); err != nil {
			t.Fatalf("no continuation after a page that said so: %v", err)
		}
		args.DispatchFrom = next
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || len(want) < 2*verify.DispatchShards {
		t.Errorf("the dispatches enqueued %v; want every bucket once: %v", got, want)
	}
}

// TestVerifySuspectClaimThatDiedBesideAnotherIsVerified: a one-claim shard
// whose worker died under it errs.MaxWorkerDeaths times, but never while it
// ran alone (it died beside the job that kills the worker), is not refused:
// it runs alone and is verified.
func TestVerifySuspectClaimThatDiedBesideAnotherIsVerified(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f, task := shardTask(t, 8, 1000000)
	f.Drain(t, jobs.KindTargetQueue, jobs.KindEmbed)
	var claim int64
	if err := f.Tx.QueryRow(ctx, `SELECT id FROM claims WHERE task_id = $1 AND text = $2`, task, shardClaims[1]).Scan(&claim); err != nil {
		t.Fatal(err)
	}
	id := testfleet.InsertRawJob(t, f.Tx, jobs.KindVerifyNLI, jobs.QueueNLI, fmt.Sprintf(`{"task_id":%d,"claim_from":%d,"claim_to":%d}`, task, claim, claim))
	if _, err := f.Tx.Exec(ctx, `UPDATE river_job SET attempt = $2::int, metadata = jsonb_build_object('worker_deaths', $2::int, 'worker_deaths_solo', $2::int - 1)
		WHERE id = $1`, id, errs.MaxWorkerDeaths); err != nil {
		t.Fatal(err)
	}
	res := f.WorkNext(t, jobs.KindVerifyNLI)
	if res == nil || res.Job.ID != id || res.EventKind != river.EventKindJobCompleted {
		t.Fatalf("the suspect shard: %+v, want job %d completed\n%s", res, id, testfleet.JobDump(t, f.Tx))
	}
	var refused *string
	if err := f.Tx.QueryRow(ctx, `SELECT refused_reason FROM claims WHERE id = $1`, claim).Scan(&refused); err != nil {
		t.Fatal(err)
	}
	if refused != nil || queryInt(t, f.Tx, `SELECT count(*) FROM edges WHERE target_id = $1 AND relation IN `+nliRelations, claim) == 0 {
		t.Errorf("claim refused %v, or not judged: a claim that did not die alone %d times must be verified", refused, errs.MaxWorkerDeaths)
	}
}
