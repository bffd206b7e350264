package workers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/evidencefleet/evidencefleet/internal/config"
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

// verifyBundle is a task whose pages are fetched and embedded while nothing
// serves the nli queue (candidates_test compares its two recall paths).
type verifyBundle struct {
	pages *testfleet.Fleet
	task  int64
}

func setupVerify(t *testing.T) *verifyBundle {
	t.Helper()
	f := testfleet.Start(t, testfleet.Options{Pages: polarPages(), Queues: []string{jobs.QueueTarget, jobs.QueueEmbed}})
	task := f.CreateTask(t, polarHypothesis, "Arctic sea ice has declined in area and volume.")
	f.AddTargets(t, task, polarURLs...)
	testfleet.WaitIdleExcept(t, f.Pool, 60*time.Second, jobs.QueueNLI)
	return &verifyBundle{pages: f, task: task}
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
	f := testfleet.Start(t, testfleet.Options{Pages: polarPages(), Queues: []string{jobs.QueueTarget}})
	task := f.CreateTask(t, polarHypothesis)
	f.AddTargets(t, task, polarURLs...)
	testfleet.WaitIdleExcept(t, f.Pool, 60*time.Second, jobs.QueueNLI, jobs.QueueEmbed)

	// An nli worker with nothing embedded yet: the job must snooze, not judge or fail.
	testfleet.Start(t, testfleet.Options{DatabaseURL: f.URL, Pages: polarPages(), Queues: []string{jobs.QueueNLI},
		Adjust: func(c *config.Config) { c.EmbedWait = 200 * time.Millisecond }})
	deadline := time.Now().Add(20 * time.Second)
	for queryInt(t, f.Pool, `SELECT COALESCE(max((metadata->>'snoozes')::int), 0) FROM river_job WHERE kind = 'verify_nli'`) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("verify_nli never snoozed:\n%s", testfleet.JobDump(t, f.Pool))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := queryInt(t, f.Pool, `SELECT count(*) FROM edges WHERE relation IN `+nliRelations); n != 0 {
		t.Fatalf("%d NLI edges written before fragments were embedded", n)
	}
	if n := queryInt(t, f.Pool, `SELECT count(*) FROM river_job WHERE kind = 'verify_nli' AND state IN ('completed','cancelled','discarded')`); n != 0 {
		t.Fatalf("verify_nli finished without embeddings:\n%s", testfleet.JobDump(t, f.Pool))
	}
	// Once the embed queue is served, the same job completes with edges.
	testfleet.Start(t, testfleet.Options{DatabaseURL: f.URL, Pages: polarPages(), Queues: []string{jobs.QueueEmbed}})
	testfleet.WaitIdle(t, f.Pool, 60*time.Second)
	if n := queryInt(t, f.Pool, `SELECT count(*) FROM edges WHERE relation IN `+nliRelations); n == 0 {
		t.Fatalf("no NLI edges after embeddings arrived:\n%s", testfleet.JobDump(t, f.Pool))
	}
}

func TestVerifyRerunCreatesNothingAndReportsSkipped(t *testing.T) {
	f := testfleet.Start(t, testfleet.Options{Pages: polarPages()})
	task := f.CreateTask(t, polarHypothesis)
	f.AddTargets(t, task, polarURLs...)
	testfleet.WaitIdle(t, f.Pool, 60*time.Second)
	before := queryInt(t, f.Pool, `SELECT count(*) FROM edges`)

	res, err := f.Client.Insert(context.Background(), jobs.VerifyNLIArgs{TaskID: task}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.UniqueSkippedAsDuplicate {
		t.Fatal("a re-run was deduplicated against a completed job")
	}
	testfleet.WaitIdle(t, f.Pool, 30*time.Second)
	state, lastErr, output := testfleet.JobRow(t, f.Pool, res.Job.ID)
	if state != "completed" {
		t.Fatalf("re-run ended %s: %s", state, lastErr)
	}
	var out workers.VerifyOutput
	if err := json.Unmarshal(output, &out); err != nil {
		t.Fatalf("output %s: %v", output, err)
	}
	if after := queryInt(t, f.Pool, `SELECT count(*) FROM edges`); after != before {
		t.Errorf("re-run changed the edge count %d → %d", before, after)
	}
	if out.Inserted != 0 || out.Judged != 0 {
		t.Errorf("re-run judged %d pairs and inserted %d edges, want 0 and 0", out.Judged, out.Inserted)
	}
	if out.SkippedJudged == 0 {
		t.Errorf("re-run reported no pairs skipped as already judged: %+v", out)
	}
}

func TestConcurrentJudgementsOfOnePairLeaveOneEdge(t *testing.T) {
	f := testfleet.Start(t, testfleet.Options{Pages: polarPages()})
	task := f.CreateTask(t, polarHypothesis)
	f.AddTargets(t, task, polarURLs[0])
	testfleet.WaitIdle(t, f.Pool, 60*time.Second)
	ctx := context.Background()

	var claimID, fragmentID, originFragment int64
	if err := f.Pool.QueryRow(ctx, `SELECT c.id, c.origin_fragment_id FROM claims c WHERE c.kind = 'extracted' ORDER BY id LIMIT 1`).
		Scan(&claimID, &originFragment); err != nil {
		t.Fatal(err)
	}
	fragmentID = originFragment // the pair (origin fragment, claim) also has an origin edge
	if _, err := f.Pool.Exec(ctx, `DELETE FROM edges WHERE target_id = $1 AND relation IN `+nliRelations, claimID); err != nil {
		t.Fatal(err)
	}
	const writers = 16
	var wg sync.WaitGroup
	inserted := make([]int64, writers)
	errs := make([]error, writers)
	start := make(chan struct{})
	for i := range writers {
		wg.Go(func() {
			<-start
			rel := []string{"supports", "refutes", "neutral"}[i%3]
			errs[i] = f.Store.InTx(ctx, func(_ pgx.Tx, q *store.Queries) error {
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
	if n := queryInt(t, f.Pool, `SELECT count(*) FROM edges WHERE source_id = $1 AND target_id = $2 AND relation IN `+nliRelations, fragmentID, claimID); n != 1 {
		t.Errorf("%d NLI edges for the pair, want 1", n)
	}
	if n := queryInt(t, f.Pool, `SELECT count(*) FROM edges WHERE source_id = $1 AND target_id = $2 AND relation = 'origin'`, fragmentID, claimID); n != 1 {
		t.Errorf("%d origin edges for the pair, want 1 (the NLI index must not touch origin edges)", n)
	}
}

func TestRediscoveredURLSharesPageButNotClaims(t *testing.T) {
	f := testfleet.Start(t, testfleet.Options{Pages: polarPages()})
	taskA := f.CreateTask(t, polarHypothesis)
	taskB := f.CreateTask(t, "Arctic sea ice is melting earlier each year.")
	f.AddTargets(t, taskA, polarURLs...)
	testfleet.WaitIdle(t, f.Pool, 60*time.Second)
	fragmentsBefore := queryInt(t, f.Pool, `SELECT count(*) FROM fragments`)
	f.AddTargets(t, taskB, polarURLs[0])
	testfleet.WaitIdle(t, f.Pool, 60*time.Second)

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
		if got := queryInt(t, f.Pool, c.sql); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	claimsA := queryInt(t, f.Pool, `SELECT count(*) FROM claims c JOIN fragments fr ON fr.id = c.origin_fragment_id JOIN pages p ON p.id = fr.page_id WHERE c.task_id = $1 AND p.url = $2`, taskA, polarURLs[0])
	claimsB := queryInt(t, f.Pool, `SELECT count(*) FROM claims c JOIN fragments fr ON fr.id = c.origin_fragment_id JOIN pages p ON p.id = fr.page_id WHERE c.task_id = $1 AND p.url = $2`, taskB, polarURLs[0])
	if claimsA == 0 || claimsA != claimsB {
		t.Errorf("claims from the page: task A %d, task B %d; want the same non-zero number, separately stored", claimsA, claimsB)
	}
	shared := queryInt(t, f.Pool, `SELECT count(*) FROM claims a JOIN claims b ON a.id = b.id WHERE a.task_id = $1 AND b.task_id = $2`, taskA, taskB)
	if shared != 0 {
		t.Errorf("%d claims shared between tasks", shared)
	}
	originB := queryInt(t, f.Pool, `SELECT count(*) FROM edges e JOIN claims c ON c.id = e.target_id WHERE e.relation = 'origin' AND c.task_id = $1`, taskB)
	if originB != claimsB {
		t.Errorf("task B has %d origin edges for %d claims", originB, claimsB)
	}
	_ = fmt.Sprint
}
