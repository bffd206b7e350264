package workers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

var polarURLs = []string{
	"https://en.wikipedia.org/wiki/Polar_bear",
	"https://www.example-science.org/arctic/sea-ice",
	"https://news.example-daily.com/polar-bears-thriving",
}

const polarHypothesis = "Polar bear populations are declining because the Arctic sea ice is melting."

// verifyBundle is a task whose pages are fetched and embedded and whose
// verify_nli jobs have not run yet (candidates_test compares its two recall
// paths).
type verifyBundle struct {
	f    *testfleet.TxFleet
	task int64
}

func setupVerify(t *testing.T) *verifyBundle {
	t.Helper()
	f := testfleet.InTx(t, testfleet.Options{Pages: polarPages()})
	task := f.CreateTask(t, polarHypothesis, "Arctic sea ice has declined in area and volume.")
	f.AddTargets(t, task, polarURLs...)
	f.Drain(t, jobs.KindTargetQueue, jobs.KindEmbed)
	return &verifyBundle{f: f, task: task}
}

func queryInt(t *testing.T, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := q.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

const nliRelations = `('supports','refutes','neutral')`

func TestVerifyWaitsForEmbeddingsInsteadOfJudgingBlind(t *testing.T) {
	t.Parallel()
	f := testfleet.InTx(t, testfleet.Options{Pages: polarPages()})
	task := f.CreateTask(t, polarHypothesis)
	f.AddTargets(t, task, polarURLs...)
	f.Drain(t, jobs.KindTargetQueue)

	// Nothing embedded yet: the dispatches enqueue shards, and every shard
	// snoozes; none judges or fails.
	for queryInt(t, f.Tx, `SELECT COALESCE(max((metadata->>'snoozes')::int), 0) FROM river_job WHERE kind = 'verify_nli'`) < 2 {
		res := f.WorkNext(t, jobs.KindVerifyNLI)
		if res != nil && res.EventKind == river.EventKindJobCompleted && !bytes.Contains(res.Job.EncodedArgs, []byte("claim_from")) {
			continue // a dispatch
		}
		if res == nil || res.EventKind != river.EventKindJobSnoozed {
			t.Fatalf("verify_nli without embeddings: %+v, want snoozed:\n%s", res, testfleet.JobDump(t, f.Tx))
		}
	}
	if n := queryInt(t, f.Tx, `SELECT count(*) FROM edges WHERE relation IN `+nliRelations); n != 0 {
		t.Fatalf("%d NLI edges written before fragments were embedded", n)
	}
	// Once the embed jobs have run, the same jobs complete with edges.
	f.Drain(t)
	if n := queryInt(t, f.Tx, `SELECT count(*) FROM river_job WHERE kind = 'verify_nli' AND state <> 'completed'`); n != 0 {
		t.Errorf("%d verify_nli jobs did not complete:\n%s", n, testfleet.JobDump(t, f.Tx))
	}
	if n := queryInt(t, f.Tx, `SELECT count(*) FROM edges WHERE relation IN `+nliRelations); n == 0 {
		t.Fatalf("no NLI edges after embeddings arrived:\n%s", testfleet.JobDump(t, f.Tx))
	}
}

func TestVerifyRerunCreatesNothingAndReportsSkipped(t *testing.T) {
	t.Parallel()
	f := testfleet.InTx(t, testfleet.Options{Pages: polarPages()})
	task := f.CreateTask(t, polarHypothesis)
	f.AddTargets(t, task, polarURLs...)
	f.Drain(t)
	before := queryInt(t, f.Tx, `SELECT count(*) FROM edges`)

	res, err := f.Client.InsertTx(context.Background(), f.Tx, jobs.VerifyNLIArgs{TaskID: task}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.UniqueSkippedAsDuplicate {
		t.Fatal("a re-run was deduplicated against a completed job")
	}
	f.Drain(t)
	state, lastErr, _ := testfleet.JobRow(t, f.Tx, res.Job.ID)
	if state != "completed" {
		t.Fatalf("re-run ended %s: %s", state, lastErr)
	}
	out, shards := shardOutputs(t, f.Tx, res.Job.ID)
	if shards == 0 {
		t.Fatalf("the re-run enqueued no shard:\n%s", testfleet.JobDump(t, f.Tx))
	}
	if after := queryInt(t, f.Tx, `SELECT count(*) FROM edges`); after != before {
		t.Errorf("re-run changed the edge count %d → %d", before, after)
	}
	if out.Inserted != 0 || out.Judged != 0 {
		t.Errorf("re-run judged %d pairs and inserted %d edges, want 0 and 0", out.Judged, out.Inserted)
	}
	if out.SkippedJudged == 0 {
		t.Errorf("re-run reported no pairs skipped as already judged: %+v", out)
	}
}

// TestConcurrentJudgementsOfOnePairLeaveOneEdge: sixteen connections insert
// a judgement of one pair at once (committed, on its own database).
func TestConcurrentJudgementsOfOnePairLeaveOneEdge(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	st := store.NewStore(pool)
	ctx := context.Background()
	task := fixture.Task(t, pool, polarHypothesis)
	page := fixture.PageOf(t, pool, task, polarURLs[0], "Polar bear populations are declining as the sea ice retreats.")
	claimID := fixture.ExtractedClaim(t, pool, task, page, 0, "Polar bear populations are declining.")
	fragmentID := page.Fragments[0] // the pair (origin fragment, claim) also has an origin edge
	const writers = 16
	var wg sync.WaitGroup
	inserted := make([]int64, writers)
	errs := make([]error, writers)
	start := make(chan struct{})
	for i := range writers {
		wg.Go(func() {
			<-start
			rel := []string{"supports", "refutes", "neutral"}[i%3]
			errs[i] = st.InTx(ctx, func(_ pgx.Tx, q *store.Queries) error {
				n, err := q.InsertNLIEdges(ctx, store.InsertNLIEdgesParams{
					FragmentIds: []int64{fragmentID}, ClaimIds: []int64{claimID}, Relations: []string{rel}, Labels: []string{rel},
					Confidences: []float64{0.9}, NliModel: "test", DomainCategories: []string{""}, SourceTrustLevels: []string{""},
					TargetTrustLevels: []string{""}})
				inserted[i] = n
				return err
			})
		})
	}
	close(start)
	wg.Wait()
	total := int64(0)
	for i := range writers {
		if errs[i] != nil {
			t.Fatalf("writer %d: %v", i, errs[i])
		}
		total += inserted[i]
	}
	if total != 1 {
		t.Errorf("writers reported %d inserts, want exactly 1", total)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM edges WHERE source_id = $1 AND target_id = $2 AND relation IN `+nliRelations, fragmentID, claimID); n != 1 {
		t.Errorf("%d NLI edges for the pair, want 1", n)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM edges WHERE source_id = $1 AND target_id = $2 AND relation = 'origin'`, fragmentID, claimID); n != 1 {
		t.Errorf("%d origin edges for the pair, want 1 (the NLI index must not touch origin edges)", n)
	}
}

func TestRediscoveredURLSharesPageButNotClaims(t *testing.T) {
	t.Parallel()
	f := testfleet.InTx(t, testfleet.Options{Pages: polarPages()})
	taskA := f.CreateTask(t, polarHypothesis)
	taskB := f.CreateTask(t, "Arctic sea ice is melting earlier each year.")
	f.AddTargets(t, taskA, polarURLs...)
	f.Drain(t)
	fragmentsBefore := queryInt(t, f.Tx, `SELECT count(*) FROM fragments`)
	f.AddTargets(t, taskB, polarURLs[0])
	f.Drain(t)

	checks := []struct {
		name string
		sql  string
		want int
	}{
		{"pages for the URL", `SELECT count(*) FROM pages WHERE url = '` + polarURLs[0] + `'`, 1},
		{"versions of the page", `SELECT count(*) FROM page_versions v JOIN pages p ON p.id = v.page_id WHERE p.url = '` + polarURLs[0] + `'`, 1},
		{"fragments (none added)", `SELECT count(*) FROM fragments`, fragmentsBefore},
		{"tasks linked to the page", `SELECT count(*) FROM task_pages tp JOIN pages p ON p.id = tp.page_id WHERE p.url = '` + polarURLs[0] + `'`, 2},
	}
	for _, c := range checks {
		if got := queryInt(t, f.Tx, c.sql); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	claimsA := queryInt(t, f.Tx, `SELECT count(*) FROM claims c JOIN fragments fr ON fr.id = c.origin_fragment_id JOIN pages p ON p.id = fr.page_id WHERE c.task_id = $1 AND p.url = $2`, taskA, polarURLs[0])
	claimsB := queryInt(t, f.Tx, `SELECT count(*) FROM claims c JOIN fragments fr ON fr.id = c.origin_fragment_id JOIN pages p ON p.id = fr.page_id WHERE c.task_id = $1 AND p.url = $2`, taskB, polarURLs[0])
	if claimsA == 0 || claimsA != claimsB {
		t.Errorf("claims from the page: task A %d, task B %d; want the same non-zero number, separately stored", claimsA, claimsB)
	}
	shared := queryInt(t, f.Tx, `SELECT count(*) FROM claims a JOIN claims b ON a.id = b.id WHERE a.task_id = $1 AND b.task_id = $2`, taskA, taskB)
	if shared != 0 {
		t.Errorf("%d claims shared between tasks", shared)
	}
	originB := queryInt(t, f.Tx, `SELECT count(*) FROM edges e JOIN claims c ON c.id = e.target_id WHERE e.relation = 'origin' AND c.task_id = $1`, taskB)
	if originB != claimsB {
		t.Errorf("task B has %d origin edges for %d claims", originB, claimsB)
	}
}

// wholeTask is a verify_nli shard covering every claim of the task (from its
// first claim id to its last), for tests of what one shard job does.
func wholeTask(t *testing.T, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, task int64) jobs.VerifyNLIArgs {
	t.Helper()
	var from, to int64
	if err := q.QueryRow(context.Background(), `SELECT min(id), max(id) FROM claims WHERE task_id = $1`, task).Scan(&from, &to); err != nil {
		t.Fatalf("the task's claim ids: %v", err)
	}
	return jobs.VerifyShard(task, from, to)
}

// shardOutputs sums the outputs of the verify_nli shard jobs after job id
// after (those a dispatch enqueued) and counts them.
func shardOutputs(t *testing.T, tx pgx.Tx, after int64) (sum workers.VerifyOutput, n int) {
	t.Helper()
	rows, err := tx.Query(context.Background(), `SELECT metadata->'output' FROM river_job
		WHERE kind = 'verify_nli' AND id > $1 AND args ? 'claim_from' AND state = 'completed' ORDER BY id`, after)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range outs {
		var o workers.VerifyOutput
		if err := json.Unmarshal(raw, &o); err != nil {
			t.Fatalf("shard output %s: %v", raw, err)
		}
		sum.Claims += o.Claims
		sum.Judged += o.Judged
		sum.Inserted += o.Inserted
		sum.SkippedJudged += o.SkippedJudged
		sum.Refused += o.Refused
		n++
	}
	return sum, n
}
