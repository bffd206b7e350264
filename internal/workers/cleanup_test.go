package workers_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// Two tasks sharing two of their pages: A reads polar bear pages 1–3, B pages
// 2–4. Page 1 is A's alone, page 4 B's alone.
var (
	onlyA   = "https://en.wikipedia.org/wiki/Polar_bear"
	shared  = []string{"https://www.example-science.org/arctic/sea-ice", "https://news.example-daily.com/polar-bears-thriving"}
	onlyB   = "https://www.example-ice.net/glaciers"
	aTarget = append([]string{onlyA}, shared...)
	bTarget = append(slices.Clone(shared), onlyB)
)

func cleanupPages() []corpus.Page {
	return append(polarPages(), testfleet.Page(onlyB, "Glaciers and sea ice",
		"Sea ice in the Arctic is melting earlier each year, and polar bear populations are declining as a result.",
		"Mountain glaciers have also lost mass in most regions since 1980."))
}

// taskAdder is a Fleet or a TxFleet.
type taskAdder interface {
	CreateTask(t testing.TB, hypothesis string, claims ...string) int64
	AddTargets(t testing.TB, taskID int64, urls ...string)
}

// addCleanupTasks creates tasks A and B with their targets.
func addCleanupTasks(t *testing.T, f taskAdder) (a, b int64) {
	t.Helper()
	a = f.CreateTask(t, "Polar bear populations are declining because the Arctic sea ice is melting.")
	b = f.CreateTask(t, "Arctic sea ice is melting earlier each year.")
	f.AddTargets(t, a, aTarget...)
	f.AddTargets(t, b, bTarget...)
	return a, b
}

type cleanupBundle struct {
	f    *testfleet.TxFleet
	a, b int64
}

// setupCleanup runs both tasks through every job in a TxFleet.
func setupCleanup(t *testing.T) *cleanupBundle {
	t.Helper()
	f := testfleet.InTx(t, testfleet.Options{Pages: cleanupPages()})
	a, b := addCleanupTasks(t, f)
	f.Drain(t)
	return &cleanupBundle{f: f, a: a, b: b}
}

// startCleanupFleet is a worker serving target_queue and embed only, with
// tasks A and B fetched and embedded and nothing verified yet.
func startCleanupFleet(t *testing.T) (f *testfleet.Fleet, a, b int64) {
	t.Helper()
	f = testfleet.Start(t, testfleet.Options{Pages: cleanupPages(), Queues: []string{jobs.QueueTarget, jobs.QueueEmbed}})
	a, b = addCleanupTasks(t, f)
	testfleet.WaitIdleExcept(t, f.Pool, 60*time.Second, jobs.QueueNLI, jobs.QueueRerank, jobs.QueueMaintenance)
	return f, a, b
}

// taskGraph is everything task reaches, by value (no ids, no E-numbers:
// those follow the order pages happened to finish in), sorted.
func taskGraph(t *testing.T, pool store.DBTX, task int64) string {
	t.Helper()
	parts := []string{
		`SELECT 'claim', c.kind, c.text, COALESCE(c.quote_start::text, ''), c.alpha::text, c.beta::text, c.verdict FROM claims c WHERE c.task_id = $1`,
		`SELECT 'edge', c.text, p.url, f.start_char::text, e.relation, COALESCE(e.nli_label, ''), COALESCE(e.nli_edge_confidence::text, '')
		   FROM edges e JOIN claims c ON c.id = e.target_id AND e.target_type = 'claim'
		   JOIN fragments f ON f.id = e.source_id AND e.source_type = 'fragment' JOIN pages p ON p.id = f.page_id WHERE c.task_id = $1`,
		`SELECT 'task_page', p.url, pv.sha256, tp.reason, '', '', '' FROM task_pages tp JOIN pages p ON p.id = tp.page_id
		   JOIN page_versions pv ON pv.id = tp.page_version_id WHERE tp.task_id = $1`,
		`SELECT 'fragment', p.url, f.start_char::text, f.end_char::text, f.text, (f.embedding IS NOT NULL)::text, '' FROM task_pages tp
		   JOIN fragments f ON f.page_version_id = tp.page_version_id JOIN pages p ON p.id = f.page_id WHERE tp.task_id = $1`,
		`SELECT 'target', t.kind, t.value, t.status, '', '', '' FROM targets t WHERE t.task_id = $1`,
	}
	var rows []string
	for _, q := range parts {
		r, err := pool.Query(context.Background(), q, task)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for r.Next() {
			var a, b, c, d, e, f, g string
			if err := r.Scan(&a, &b, &c, &d, &e, &f, &g); err != nil {
				t.Fatal(err)
			}
			rows = append(rows, strings.Join([]string{a, b, c, d, e, f, g}, " | "))
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(rows)
	return strings.Join(rows, "\n")
}

func counts(t *testing.T, pool store.DBTX) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"pages", "page_versions", "fragments", "edges", "claims", "task_pages", "targets", "resource_index"} {
		out[table] = queryInt(t, pool, "SELECT count(*) FROM "+table)
	}
	return out
}

func runCleanup(t *testing.T, b *cleanupBundle, args jobs.CleanupArgs) workers.CleanupOutput {
	t.Helper()
	res, err := b.f.Client.InsertTx(context.Background(), b.f.Tx, args, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.f.Drain(t)
	state, lastErr, output := testfleet.JobRow(t, b.f.Tx, res.Job.ID)
	if state != "completed" {
		t.Fatalf("cleanup job %s: %s", state, lastErr)
	}
	var out workers.CleanupOutput
	if err := json.Unmarshal(output, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSoftCleanupLeavesTheOtherTaskIdentical(t *testing.T) {
	t.Parallel()
	b := setupCleanup(t)
	pool := b.f.Tx
	beforeB := taskGraph(t, pool, b.b)
	if !strings.Contains(beforeB, "| supports |") && !strings.Contains(beforeB, "| refutes |") && !strings.Contains(beforeB, "| neutral |") {
		t.Fatalf("task B has no NLI edge: the comparison proves little\n%s", beforeB)
	}
	before := counts(t, pool)
	aClaims := queryInt(t, pool, `SELECT count(*) FROM claims WHERE task_id = $1`, b.a)

	out := runCleanup(t, b, jobs.CleanupArgs{TaskID: b.a, Mode: jobs.CleanupSoft})

	if got := taskGraph(t, pool, b.b); got != beforeB {
		t.Errorf("soft cleanup of A changed B's graph:\nbefore:\n%s\nafter:\n%s", beforeB, got)
	}
	if got := taskGraph(t, pool, b.a); got != "" {
		t.Errorf("A still reaches:\n%s", got)
	}
	after := counts(t, pool)
	for _, shared := range []string{"pages", "page_versions", "fragments", "resource_index"} {
		if after[shared] != before[shared] {
			t.Errorf("soft cleanup deleted shared %s: %d → %d", shared, before[shared], after[shared])
		}
	}
	if int(out.Claims) != aClaims || after["claims"] != before["claims"]-aClaims {
		t.Errorf("claims deleted %d (output %d), A had %d", before["claims"]-after["claims"], out.Claims, aClaims)
	}
	if status := queryString(t, pool, `SELECT status FROM tasks WHERE id = $1`, b.a); status != "stopped" {
		t.Errorf("task A is %s after cleanup, want stopped", status)
	}
	// A stopped task takes nothing new: its jobs cancel.
	res, err := b.f.Client.InsertTx(context.Background(), b.f.Tx, jobs.VerifyNLIArgs{TaskID: b.a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.f.Drain(t)
	if state, lastErr, _ := testfleet.JobRow(t, pool, res.Job.ID); state != "cancelled" || !strings.Contains(lastErr, "stopped") {
		t.Errorf("verify_nli of a stopped task: %s (%s), want cancelled: task stopped", state, lastErr)
	}
}

func TestHardCleanupRemovesExactlyTheOrphans(t *testing.T) {
	t.Parallel()
	b := setupCleanup(t)
	pool := b.f.Tx
	beforeB := taskGraph(t, pool, b.b)
	before := counts(t, pool)
	// What only A reaches, counted independently of the cleanup's queries.
	orphanPages := queryInt(t, pool, `SELECT count(*) FROM pages p WHERE p.id IN (SELECT page_id FROM task_pages WHERE task_id = $1)
		AND p.id NOT IN (SELECT page_id FROM task_pages WHERE task_id <> $1)`, b.a)
	orphanVersions := queryInt(t, pool, `SELECT count(*) FROM page_versions pv WHERE pv.page_id IN (SELECT page_id FROM task_pages WHERE task_id = $1)
		AND pv.page_id NOT IN (SELECT page_id FROM task_pages WHERE task_id <> $1)`, b.a)
	orphanFragments := queryInt(t, pool, `SELECT count(*) FROM fragments f WHERE f.page_id IN (SELECT page_id FROM task_pages WHERE task_id = $1)
		AND f.page_id NOT IN (SELECT page_id FROM task_pages WHERE task_id <> $1)`, b.a)
	if orphanPages != 1 || orphanFragments == 0 {
		t.Fatalf("setup: %d pages and %d fragments only A reaches, want 1 page and some fragments", orphanPages, orphanFragments)
	}

	out := runCleanup(t, b, jobs.CleanupArgs{TaskID: b.a, Mode: jobs.CleanupHard})

	after := counts(t, pool)
	for table, want := range map[string]int{"pages": orphanPages, "page_versions": orphanVersions, "fragments": orphanFragments} {
		if got := before[table] - after[table]; got != want {
			t.Errorf("%s: %d deleted, want exactly the %d orphans", table, got, want)
		}
	}
	if int(out.Pages) != orphanPages || int(out.Fragments) != orphanFragments {
		t.Errorf("output %+v disagrees with the counts", out)
	}
	if n := queryInt(t, pool, `SELECT count(*) FROM pages WHERE url = $1`, onlyA); n != 0 {
		t.Error("A's own page survived the hard cleanup")
	}
	for _, u := range append(slices.Clone(shared), onlyB) {
		if n := queryInt(t, pool, `SELECT count(*) FROM pages WHERE url = $1`, u); n != 1 {
			t.Errorf("page %s, which B reaches, was deleted", u)
		}
	}
	if got := taskGraph(t, pool, b.b); got != beforeB {
		t.Errorf("hard cleanup of A changed B's graph:\nbefore:\n%s\nafter:\n%s", beforeB, got)
	}
	// A second sweep finds nothing.
	again := runCleanup(t, b, jobs.CleanupArgs{Mode: jobs.CleanupOrphans})
	if again.Pages+again.PageVersions+again.Fragments+again.OrphanEdges != 0 {
		t.Errorf("a second sweep deleted %+v", again)
	}
}

// TestCleanupConcurrentWithVerifyLosesNothing: while B's verification runs,
// A is cleaned, a new task C takes A's own page (an orphan once A is gone)
// and orphan sweeps run again and again. B's and C's graphs end equal to a
// run where nothing was cleaned: a sweep either leaves a version C links or
// deletes it first, and then C's fetch fails its foreign key, retries and
// stores the page again.
func TestCleanupConcurrentWithVerifyLosesNothing(t *testing.T) {
	t.Parallel()
	const hypothesisC = "Polar bears are related to brown bears."
	all := []string{jobs.QueueNLI, jobs.QueueMaintenance, jobs.QueueTarget, jobs.QueueEmbed}

	ref, _, refB := startCleanupFleet(t)
	refC := ref.CreateTask(t, hypothesisC)
	ref.AddTargets(t, refC, onlyA)
	testfleet.Start(t, testfleet.Options{DatabaseURL: ref.URL, Pages: cleanupPages(), Queues: all})
	testfleet.WaitIdle(t, ref.Pool, 60*time.Second)
	wantB, wantC := taskGraph(t, ref.Pool, refB), taskGraph(t, ref.Pool, refC)

	run, runA, runB := startCleanupFleet(t)
	ctx := context.Background()
	if _, err := run.Client.Insert(ctx, jobs.CleanupArgs{TaskID: runA, Mode: jobs.CleanupSoft}, nil); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	sweeps := make(chan int)
	go func() {
		n := 0
		for !stop.Load() {
			if res, err := run.Client.Insert(ctx, jobs.CleanupArgs{Mode: jobs.CleanupOrphans}, nil); err == nil && !res.UniqueSkippedAsDuplicate {
				n++
			}
			time.Sleep(5 * time.Millisecond)
		}
		sweeps <- n
	}()
	runC := run.CreateTask(t, hypothesisC)
	run.AddTargets(t, runC, onlyA)
	testfleet.Start(t, testfleet.Options{DatabaseURL: run.URL, Pages: cleanupPages(), Queues: all})
	testfleet.WaitIdle(t, run.Pool, 60*time.Second)
	stop.Store(true)
	n := <-sweeps
	testfleet.WaitIdle(t, run.Pool, 60*time.Second)
	if n < 2 {
		t.Fatalf("only %d orphan sweeps ran: nothing ran concurrently", n)
	}
	if got := taskGraph(t, run.Pool, runB); got != wantB {
		t.Errorf("B's graph differs from the run without cleanup:\nwant:\n%s\ngot:\n%s", wantB, got)
	}
	if got := taskGraph(t, run.Pool, runC); got != wantC {
		t.Errorf("C's graph differs from the run without cleanup:\nwant:\n%s\ngot:\n%s", wantC, got)
	}
	if got := taskGraph(t, run.Pool, runA); got != "" {
		t.Errorf("A still reaches:\n%s", got)
	}
	if failed := queryInt(t, run.Pool, `SELECT count(*) FROM river_job WHERE state IN ('discarded', 'retryable')
		OR (state = 'cancelled' AND NOT (kind = 'verify_nli' AND args->>'task_id' = $1::bigint::text))`, runA); failed != 0 {
		t.Errorf("%d jobs failed:\n%s", failed, testfleet.JobDump(t, run.Pool))
	}
	t.Logf("%d orphan sweeps ran alongside; C's page fetched %d time(s)", n,
		queryInt(t, run.Pool, `SELECT count(*) FROM river_job WHERE kind = 'target_queue' AND args->>'task_id' = $1::bigint::text AND cardinality(errors) > 0`, runC)+1)
}

func queryString(t *testing.T, pool store.DBTX, sql string, args ...any) string {
	t.Helper()
	var s string
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}
