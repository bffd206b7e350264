package testfleet

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/fleet"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/store"
)

// maxWorks bounds Drain: a chain of jobs longer than this is a loop.
const maxWorks = 2000

// TxFleet is the fleet's own workers, dependencies and middleware working
// jobs one at a time through rivertest inside one transaction on the shared
// test database (pgtest.Tx), rolled back when the test ends. Tests on it may
// run in parallel. A statement that fails outside a store transaction
// aborts the whole test transaction; a test that needs several processes, a
// crash or real concurrency uses Start instead.
type TxFleet struct {
	intake
	Tx      pgx.Tx
	Store   *store.Store
	Client  *river.Client[pgx.Tx] // inserts only, in Tx
	Metrics *metrics.Metrics
	Config  config.Config
	work    map[string]func(ctx context.Context, job *rivertype.JobRow) (*rivertest.WorkResult, error)
}

// InTx builds a TxFleet on the test configuration (Config) with opts' pages
// and adjustments; opts.Queues, NoStart and DatabaseURL do not apply.
func InTx(t testing.TB, opts Options) *TxFleet {
	t.Helper()
	dir := t.TempDir()
	if err := corpus.WriteArchive(dir, opts.Pages); err != nil {
		t.Fatalf("write replay archive: %v", err)
	}
	cfg := Config(t, "", dir)
	if opts.Adjust != nil {
		opts.Adjust(&cfg)
	}
	log := testLogger(t)
	m := metrics.New()
	tx := pgtest.Tx(t)
	st := store.NewStore(tx)
	parts, err := fleet.Build(cfg, st, log, m)
	if err != nil {
		t.Fatalf("worker parts: %v", err)
	}
	t.Cleanup(parts.Fetcher.Close)
	set := parts.Workers
	client, err := river.NewClient(riverpgxv5.New(nil), &river.Config{})
	if err != nil {
		t.Fatalf("insert client: %v", err)
	}
	f := &TxFleet{intake: intake{store: st, client: client}, Tx: tx, Store: st, Client: client,
		Metrics: m, Config: cfg, work: map[string]func(context.Context, *rivertype.JobRow) (*rivertest.WorkResult, error){}}
	rc := parts.River
	rc.Middleware = append(rc.Middleware, &uniqueInserts{client: client})
	addWorker(t, f, rc, set.TargetQueue)
	addWorker(t, f, rc, set.Embed)
	addWorker(t, f, rc, set.VerifyNLI)
	addWorker(t, f, rc, set.Rerank)
	addWorker(t, f, rc, set.CitationGraph)
	addWorker(t, f, rc, set.Cleanup)
	addWorker(t, f, rc, set.Recheck)
	return f
}

func addWorker[T river.JobArgs](t testing.TB, f *TxFleet, rc *river.Config, w river.Worker[T]) {
	var args T
	tw := rivertest.NewWorker(t, riverpgxv5.New(nil), rc, w)
	f.work[args.Kind()] = func(ctx context.Context, job *rivertype.JobRow) (*rivertest.WorkResult, error) {
		return tw.WorkJob(ctx, t, f.Tx, job)
	}
}

// Drain works every job left to work — available, snoozed or retryable, as
// if its time had come — in the order River fetches them (priority, scheduled
// time, id), until none is left; only jobs of the given kinds when any are
// given. It returns the results in order and fails the test on a worker's
// panic or after maxWorks works.
func (f *TxFleet) Drain(t testing.TB, kinds ...string) []*rivertest.WorkResult {
	t.Helper()
	var results []*rivertest.WorkResult
	for range maxWorks {
		res := f.WorkNext(t, kinds...)
		if res == nil {
			return results
		}
		results = append(results, res)
	}
	t.Fatalf("drain: still jobs to work after %d works:\n%s", maxWorks, JobDump(t, f.Tx))
	return nil
}

// WorkNext works the job Drain would work next and returns its result, or
// nil when there is none.
func (f *TxFleet) WorkNext(t testing.TB, kinds ...string) *rivertest.WorkResult {
	t.Helper()
	if kinds == nil {
		kinds = []string{} // not NULL: cardinality 0 means every kind
	}
	ctx := context.Background()
	var id int64
	err := f.Tx.QueryRow(ctx, `SELECT id FROM river_job
		WHERE state IN ('available', 'scheduled', 'retryable') AND (cardinality($1::text[]) = 0 OR kind = ANY($1))
		ORDER BY priority, scheduled_at, id LIMIT 1`, kinds).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		t.Fatalf("next job: %v", err)
	}
	job, err := f.Client.JobGetTx(ctx, f.Tx, id)
	if err != nil {
		t.Fatalf("job %d: %v", id, err)
	}
	work, ok := f.work[job.Kind]
	if !ok {
		t.Fatalf("no worker for job %d of kind %q", id, job.Kind)
	}
	res, err := work(ctx, job)
	var panicked *rivertest.PanicError
	if errors.As(err, &panicked) {
		t.Fatalf("job %d (%s) panicked: %v\n%s", id, job.Kind, panicked.Cause, panicked.Trace)
	}
	return res
}

// uniqueInserts gives workers a client that enforces unique jobs, as the
// fleet's does, in place of rivertest's (which leaves uniqueness off so that
// its users may insert conflicting jobs).
type uniqueInserts struct {
	river.MiddlewareDefaults
	client *river.Client[pgx.Tx]
}

func (u *uniqueInserts) Work(ctx context.Context, _ *rivertype.JobRow, doInner func(context.Context) error) error {
	return doInner(rivertest.WorkContext(ctx, u.client))
}
