package jobs_test

import (
	"context"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/evidencefleet/evidencefleet/internal/harness/scratchdb"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/migrations"
)

// exampleDB is a migrated scratch database on the server of DATABASE_URL
// (make test starts one; without it TestMain leaves these examples out of
// the run, see dbExamples); the returned function drops it. Errors panic, as
// in River's own examples.
func exampleDB(ctx context.Context) (*pgxpool.Pool, func()) {
	url, drop, err := scratchdb.Create(ctx, os.Getenv("DATABASE_URL"), "evf_example_")
	if err != nil {
		panic(err)
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		panic(err)
	}
	if _, err := migrations.Up(ctx, pool, nil); err != nil {
		panic(err)
	}
	return pool, func() { pool.Close(); _ = drop() }
}

// A service inserts a job with River's Go client: an insert-only client (no
// queues, no workers) and the args type of the kind. The kind's InsertOpts
// put it in its queue with its priority and attempts; target_queue jobs are
// unique by args, so the same target is never queued twice.
func Example_insertFromGo() {
	ctx := context.Background()
	pool, done := exampleDB(ctx)
	defer done()
	var taskID int64
	if err := pool.QueryRow(ctx, `INSERT INTO tasks (hypothesis) VALUES ('Sea level rise is accelerating.') RETURNING id`).Scan(&taskID); err != nil {
		panic(err)
	}

	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		panic(err)
	}
	args := jobs.TargetQueueArgs{TaskID: taskID, Target: jobs.Target{Kind: jobs.TargetDOI, Value: "10.1093/mind/lix.236.433"}}
	if err := args.Validate(); err != nil { // what the worker checks first
		panic(err)
	}
	for range 2 {
		res, err := client.Insert(ctx, args, nil)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s on queue %s, priority %d, max attempts %d, duplicate: %v\n",
			res.Job.Kind, res.Job.Queue, res.Job.Priority, res.Job.MaxAttempts, res.UniqueSkippedAsDuplicate)
	}
	// Output:
	// target_queue on queue target, priority 1, max attempts 8, duplicate: false
	// target_queue on queue target, priority 1, max attempts 8, duplicate: true
}

// A service without a River client inserts by SQL: the kind, its args as
// JSON and its queue (jobs.KindQueues), then a notification so that idle
// workers look at once. ParseArgs checks args as the worker will; a worker
// cancels a job whose args it refuses, with the field named.
func Example_insertBySQL() {
	ctx := context.Background()
	pool, done := exampleDB(ctx)
	defer done()

	raw := []byte(`{"task_id": 1}`)
	if _, err := jobs.ParseArgs(jobs.KindVerifyNLI, raw); err != nil {
		panic(err)
	}
	var state string
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO river_job (kind, args, queue, priority, max_attempts)
			VALUES ($1, $2, $3, 2, 10) RETURNING state`, jobs.KindVerifyNLI, raw, jobs.KindQueues[jobs.KindVerifyNLI]).Scan(&state); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `SELECT pg_notify('river_insert', json_build_object('queue', $1::text)::text)`, jobs.QueueNLI)
		return err
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("inserted:", state)

	_, err = jobs.ParseArgs(jobs.KindVerifyNLI, []byte(`{"task_id": 1, "claim_idz": [2]}`))
	fmt.Println("refused:", err)
	// Output:
	// inserted: available
	// refused: invalid verify_nli args: field "claim_idz": unknown field
}
