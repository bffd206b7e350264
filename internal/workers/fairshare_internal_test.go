package workers

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/harness/fixture"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestFairSharesLetTheOtherOrganizationIn runs two River clients on one
// database, as two worker processes of the fleet, one nli worker each.
// Organization A's first verify_nli job holds the first process's worker.
// Then A's second job and organization B's job are inserted, A's first in
// River's order. The second process, with the fleet's middleware and
// FairShares at a share of 0.5, is offered A's job first: A already runs
// one of the kind's jobs fleet-wide, its share of two, while B waits, so
// the job is snoozed (not failed, no attempt used) and B's job runs in the
// slot. With B's work done A is alone: its job comes back and runs though
// A then holds both workers.
func TestFairSharesLetTheOtherOrganizationIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	taskOf := func(org string) int64 {
		id := fixture.Task(t, pool, "Shares are fair.")
		if _, err := pool.Exec(ctx, `UPDATE tasks SET organization_id = $2 WHERE id = $1`, id, org); err != nil {
			t.Fatal(err)
		}
		return id
	}
	taskA, taskB := taskOf("org-a"), taskOf("org-b")

	// The first process: its one worker holds A's first job until the end.
	hold, held := make(chan struct{}), make(chan int64, 1)
	first := river.NewWorkers()
	river.AddWorker(first, river.WorkFunc(func(ctx context.Context, j *river.Job[jobs.VerifyNLIArgs]) error {
		held <- j.ID
		select {
		case <-hold:
		case <-ctx.Done():
		}
		return nil
	}))
	firstClient := startNLIClient(t, pool, first, nil)
	a0, err := firstClient.Insert(ctx, jobs.VerifyShard(taskA, 1, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if id := <-held; id != a0.Job.ID {
		t.Fatalf("the first process took job %d, want A's first %d", id, a0.Job.ID)
	}
	defer close(hold) // before the clients stop (cleanups run after)

	res, err := firstClient.InsertMany(ctx, []river.InsertManyParams{
		{Args: jobs.VerifyShard(taskA, 2, 2)}, {Args: jobs.VerifyShard(taskB, 1, 1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	a1, b1 := res[0].Job.ID, res[1].Job.ID

	// The second process, with the fleet's middleware.
	ran := make(chan int64, 2)
	second := river.NewWorkers()
	river.AddWorker(second, river.WorkFunc(func(ctx context.Context, j *river.Job[jobs.VerifyNLIArgs]) error {
		ran <- j.ID
		return nil
	}))
	startNLIClient(t, pool, second, []rivertype.Middleware{newOutcomes(nil, ServerWaits{}, nil, nil), FairShares(store.NewStore(pool), 0.5, 50*time.Millisecond)})
	order := []int64{<-ran, <-ran}
	if !slices.Equal(order, []int64{b1, a1}) {
		t.Fatalf("the second process ran jobs %v, want B's %d before A's %d", order, b1, a1)
	}

	type row struct {
		State    string
		Attempt  int
		Errors   int
		Metadata jobCounts
	}
	read := func(id int64) row {
		var r row
		var meta []byte
		if err := pool.QueryRow(ctx, `SELECT state, attempt, COALESCE(cardinality(errors), 0), metadata FROM river_job WHERE id = $1`, id).
			Scan(&r.State, &r.Attempt, &r.Errors, &meta); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(meta, &r.Metadata); err != nil {
			t.Fatal(err)
		}
		return r
	}
	// River marks a job completed just after its worker returns.
	waitFor := func(id int64) row {
		for range 500 {
			if r := read(id); r.State == "completed" {
				return r
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("job %d not completed: %+v", id, read(id))
		return row{}
	}
	if r := waitFor(a1); r.Attempt != 1 || r.Errors != 0 || r.Metadata.ShareWaits < 1 || r.Metadata.Snoozes != r.Metadata.ShareWaits {
		t.Errorf("A's held-back job: %+v; want completed on attempt 1, no error, its snoozes all share waits", r)
	}
	if r := waitFor(b1); r.Attempt != 1 || r.Metadata.ShareWaits != 0 || r.Metadata.Snoozes != 0 {
		t.Errorf("B's job: %+v; want completed on attempt 1 without a wait", r)
	}
	if r := read(a0.Job.ID); r.State != "running" {
		t.Errorf("A's first job is %s, want still running: A's second ran beside it", r.State)
	}
}

// startNLIClient starts a River client working the nli queue with one
// worker and stops it when the test ends.
func startNLIClient(t *testing.T, pool *pgxpool.Pool, ws *river.Workers, mw []rivertype.Middleware) *river.Client[pgx.Tx] {
	t.Helper()
	c, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:            map[string]river.QueueConfig{jobs.QueueNLI: {MaxWorkers: 1}},
		Workers:           ws,
		Middleware:        mw,
		FetchCooldown:     5 * time.Millisecond,
		FetchPollInterval: 20 * time.Millisecond,
		TestOnly:          true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.StopAndCancel(ctx)
	})
	return c
}
