package service_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// opsBundle is the service on a fresh database with a River client that
// inserts but works nothing (no worker serves any queue until a test
// says one does).
type opsBundle struct {
	pool *pgxpool.Pool
	svc  *service.Service
}

func setupOps(t *testing.T) *opsBundle {
	t.Helper()
	svc, pool := newService(t)
	return &opsBundle{pool: pool, svc: svc}
}

func (b *opsBundle) createTask(t *testing.T, org, hypothesis string) int64 {
	t.Helper()
	task, err := b.svc.CreateTask(context.Background(), org, intake.TaskSpec{Hypothesis: hypothesis})
	if err != nil {
		t.Fatal(err)
	}
	return task.ID
}

func (b *opsBundle) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := b.pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func (b *opsBundle) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := b.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// serve records that a worker served queue ago ('0' now) as River's
// producers do, paused or not.
func (b *opsBundle) serve(t *testing.T, queue, ago string, paused bool) {
	t.Helper()
	b.exec(t, `INSERT INTO river_queue (name, created_at, metadata, paused_at, updated_at)
		VALUES ($1, now(), '{}', CASE WHEN $3 THEN now() END, now() - $2::interval)
		ON CONFLICT (name) DO UPDATE SET updated_at = EXCLUDED.updated_at, paused_at = EXCLUDED.paused_at`, queue, ago, paused)
}

// TestInsertJobRefusesUnservedQueue: a job for a queue no worker reported
// serving within service.ServedWithin, or a paused one, is refused naming
// the queue and why, and nothing is inserted; allowUnserved inserts it
// anyway; a served queue takes it; a missing task is refused first.
func TestInsertJobRefusesUnservedQueue(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	ctx := context.Background()
	task := b.createTask(t, "alpha", "Glaciers are retreating.")
	args := jobs.RerankArgs{TaskID: task, TopK: 5}
	refused := func(name, want string) {
		t.Helper()
		before := b.count(t, `SELECT count(*) FROM river_job`)
		_, err := b.svc.InsertJob(ctx, "alpha", args, nil, false)
		var qe *service.QueueUnservedError
		if !errors.As(err, &qe) || !errors.Is(err, service.ErrQueueUnserved) || qe.Queue != "rerank" || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want queue \"rerank\" unserved: %s", name, err, want)
		}
		if after := b.count(t, `SELECT count(*) FROM river_job`); after != before {
			t.Errorf("%s: %d jobs inserted", name, after-before)
		}
	}
	refused("never served", "no worker has served it")
	b.serve(t, "rerank", "1 hour", false)
	refused("served an hour ago", "for 1h0m0s")
	b.serve(t, "rerank", "0", true)
	refused("paused", "paused")

	res, err := b.svc.InsertJob(ctx, "alpha", args, nil, true)
	if err != nil || res.Job.Queue != "rerank" {
		t.Fatalf("allowUnserved: %+v, %v; want a job on rerank", res, err)
	}
	b.serve(t, "rerank", "5 minutes", false)
	res, err = b.svc.InsertJob(ctx, "alpha", jobs.RerankArgs{TaskID: task, TopK: 6}, nil, false)
	if err != nil || res.Job.Queue != "rerank" {
		t.Fatalf("served 5 minutes ago: %+v, %v", res, err)
	}
	// the queue as River chooses it: --queue wins over the kind's
	if _, err := b.svc.InsertJob(ctx, "alpha", jobs.RerankArgs{TaskID: task, TopK: 7}, &river.InsertOpts{Queue: "elsewhere"}, false); !errors.Is(err, service.ErrQueueUnserved) ||
		!strings.Contains(err.Error(), `"elsewhere"`) {
		t.Errorf("another queue: %v, want \"elsewhere\" unserved", err)
	}
	if _, err := b.svc.InsertJob(ctx, "alpha", jobs.RerankArgs{TaskID: task + 100}, nil, true); !errors.Is(err, errs.ErrTaskNotFound) {
		t.Errorf("missing task: %v, want not found", err)
	}
}

// TestTargetAndClaimAddRefuseMissingTask: adding targets or claims to a task
// that does not exist fails as not found and inserts nothing.
func TestTargetAndClaimAddRefuseMissingTask(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	ctx := context.Background()
	task := b.createTask(t, "alpha", "Glaciers are retreating.")
	jobsBefore, claimsBefore := b.count(t, `SELECT count(*) FROM river_job`), b.count(t, `SELECT count(*) FROM claims`)
	if _, err := b.svc.AddTargets(ctx, "alpha", task+1, []jobs.Target{{Kind: jobs.TargetURL, Value: "https://a.example.org/"}}); !errors.Is(err, errs.ErrTaskNotFound) {
		t.Errorf("targets of a missing task: %v, want not found", err)
	}
	if _, err := b.svc.AddClaims(ctx, "alpha", task+1, []string{"Ice is thinning."}); !errors.Is(err, errs.ErrTaskNotFound) {
		t.Errorf("claims of a missing task: %v, want not found", err)
	}
	if n := b.count(t, `SELECT count(*) FROM targets`); n != 0 {
		t.Errorf("%d targets registered", n)
	}
	if b.count(t, `SELECT count(*) FROM river_job`) != jobsBefore || b.count(t, `SELECT count(*) FROM claims`) != claimsBefore {
		t.Error("jobs or claims inserted for a missing task")
	}
}

// TestListJobs: a task's jobs newest first, filtered by state, walked with
// a cursor; another task's jobs are not listed; a bad state, limit or
// cursor is a bad request.
func TestListJobs(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	ctx := context.Background()
	task := b.createTask(t, "alpha", "Glaciers are retreating.")
	other := b.createTask(t, "alpha", "Another task.")
	for i := range 6 {
		if _, err := b.svc.InsertJob(ctx, "alpha", jobs.RerankArgs{TaskID: task, TopK: i + 1}, nil, true); err != nil {
			t.Fatal(err)
		}
	}
	b.exec(t, `UPDATE river_job SET state = 'discarded', finalized_at = now(),
		errors = ARRAY['{"at": "2026-01-01T00:00:00Z", "attempt": 1, "error": "first"}'::jsonb, '{"at": "2026-01-01T00:00:01Z", "attempt": 2, "error": "the last error"}'::jsonb]
		WHERE id = (SELECT max(id) FROM river_job WHERE kind = 'rerank')`)
	want := b.count(t, `SELECT count(*) FROM river_job WHERE args ->> 'task_id' = $1::bigint::text`, task) // 6 reranks and E1's verify_nli

	var ids []int64
	cursor := ""
	for range 10 {
		page, err := b.svc.ListJobs(ctx, "alpha", task, "", 3, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range page.Jobs {
			ids = append(ids, j.ID)
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if len(ids) != want || want != 7 {
		t.Fatalf("listed %d jobs %v, want %d (7)", len(ids), ids, want)
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] >= ids[i-1] {
			t.Errorf("jobs not newest first: %v", ids)
		}
	}
	page, err := b.svc.ListJobs(ctx, "alpha", task, "discarded", 0, "")
	if err != nil || len(page.Jobs) != 1 {
		t.Fatalf("discarded: %+v, %v; want one job", page, err)
	}
	if j := page.Jobs[0]; j.Kind != "rerank" || j.LastError != "the last error" || j.FinalizedAt == nil {
		t.Errorf("discarded job %+v, want the rerank with its last error", j)
	}
	if page, err := b.svc.ListJobs(ctx, "alpha", other, "discarded", 0, ""); err != nil || len(page.Jobs) != 0 {
		t.Errorf("the other task: %+v, %v; want none discarded", page, err)
	}
	for _, bad := range []struct {
		state  string
		limit  int
		cursor string
	}{{"finished", 0, ""}, {"", 501, ""}, {"", -1, ""}, {"", 0, "x"}, {"", 0, "-4"}} {
		if _, err := b.svc.ListJobs(ctx, "alpha", task, bad.state, bad.limit, bad.cursor); !errors.Is(err, service.ErrBadRequest) {
			t.Errorf("ListJobs(state %q, limit %d, cursor %q): %v, want a bad request", bad.state, bad.limit, bad.cursor, err)
		}
	}
}

// TestRetryAndCancelJob: River's JobCancel and JobRetry on a job of the
// organization's task, saying what state it was in; a job of no task, a
// missing job and another organization's job are not found; a retry
// reopens a completed task; a job of a stopped task is not retried.
func TestRetryAndCancelJob(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	ctx := context.Background()
	task := b.createTask(t, "alpha", "Glaciers are retreating.")
	res, err := b.svc.InsertJob(ctx, "alpha", jobs.RerankArgs{TaskID: task}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	job := res.Job.ID
	// a reason past the text bound is refused naming it, the job untouched
	if _, err := b.svc.CancelJob(ctx, "alpha", service.JobCancel{JobID: job, Reason: strings.Repeat("é", jobs.MaxTextRunes+1)}); !errors.Is(err, errs.ErrBadInput) || !strings.Contains(err.Error(), "reason") {
		t.Errorf("an over-long reason: %v, want refused naming reason", err)
	}
	got, err := b.svc.CancelJob(ctx, "alpha", service.JobCancel{JobID: job})
	if err != nil || got.Was != "available" || got.Job.State != "cancelled" || got.TaskID != task || got.Job.FinalizedAt == nil {
		t.Fatalf("cancel: %+v, %v; want available → cancelled", got, err)
	}
	got, err = b.svc.RetryJob(ctx, "alpha", job)
	if err != nil || got.Was != "cancelled" || got.Job.State != "available" {
		t.Fatalf("retry: %+v, %v; want cancelled → available", got, err)
	}
	if got, err = b.svc.CancelJob(ctx, "alpha", service.JobCancel{JobID: job}); err != nil || got.Job.State != "cancelled" {
		t.Fatalf("cancel again: %+v, %v", got, err)
	}
	if got, err = b.svc.CancelJob(ctx, "alpha", service.JobCancel{JobID: job}); err != nil || got.Was != "cancelled" || got.Job.State != "cancelled" {
		t.Errorf("cancel a cancelled job: %+v, %v; want it left as it is", got, err)
	}

	sweep, err := b.svc.InsertJob(ctx, "alpha", jobs.CleanupArgs{Mode: jobs.CleanupOrphans}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{sweep.Job.ID, job + 1000} {
		cancel := func(ctx context.Context, org string, id int64) (service.JobAction, error) {
			return b.svc.CancelJob(ctx, org, service.JobCancel{JobID: id})
		}
		for name, act := range map[string]func(context.Context, string, int64) (service.JobAction, error){"retry": b.svc.RetryJob, "cancel": cancel} {
			if _, err := act(ctx, "alpha", id); !errors.Is(err, service.ErrJobNotFound) || err.Error() != fmt.Sprintf("job %d: job does not exist", id) {
				t.Errorf("%s job %d: %v, want not found", name, id, err)
			}
		}
	}
	if _, err := b.svc.RetryJob(ctx, "beta", job); !errors.Is(err, service.ErrJobNotFound) {
		t.Errorf("another organization's retry: %v, want not found", err)
	}
	b.exec(t, `UPDATE tasks SET status = 'completed', completed_at = now() WHERE id = $1`, task)
	if _, err := b.svc.RetryJob(ctx, "alpha", job); err != nil {
		t.Fatal(err)
	}
	if n := b.count(t, `SELECT count(*) FROM tasks WHERE id = $1 AND status = 'active' AND completed_at IS NULL`, task); n != 1 {
		t.Error("a retry left its completed task completed")
	}
	if _, err := b.svc.StopTask(ctx, "alpha", task, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.RetryJob(ctx, "alpha", job); !errors.Is(err, errs.ErrTaskStopped) {
		t.Errorf("retry a job of a stopped task: %v, want stopped", err)
	}
}
