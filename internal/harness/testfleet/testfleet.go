// Package testfleet runs the fleet's workers inside a test, two ways: Start
// is a real worker process in miniature (River client, its own database,
// replay fetching) for tests of crashes, shutdown and concurrency; InTx works
// the same workers one job at a time through rivertest inside one rolled-back
// transaction, for everything else. Both insert tasks and targets as the CLI
// does; model test servers speak the backends' wire formats.
package testfleet

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/fleet"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	taskintake "github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// Config returns a worker configuration for tests: the defaults of
// `worker config` (config.Defaults: the environment is neither read nor
// changed, so tests using it may run in parallel), the given database and
// replay archive, short waits.
func Config(t testing.TB, dbURL, replayDir string) config.Config {
	t.Helper()
	cfg := config.Defaults()
	cfg.DatabaseURL = dbURL
	cfg.ReplayDir = replayDir
	cfg.MetricsAddr = "127.0.0.1:0"
	cfg.EmbedWait = 100 * time.Millisecond
	return cfg
}

// Fleet is a running in-process worker on a fresh database.
type Fleet struct {
	intake
	URL    string
	Pool   *pgxpool.Pool
	Store  *store.Store
	Worker *fleet.Worker
	Client *river.Client[pgx.Tx] // the worker's client (inserts too)
	Config config.Config
}

// Options adjust a Fleet.
type Options struct {
	Pages       []corpus.Page            // replay archive content
	ReplayDir   string                   // replay this archive instead (Pages unused)
	Adjust      func(cfg *config.Config) // change the config before start
	NoStart     bool                     // build but do not start the worker
	DatabaseURL string                   // reuse this database instead of a fresh one
	Queues      []string                 // serve only these queues (default: all)
}

// Start creates a database, a replay archive and a started worker; all are
// torn down when the test ends.
func Start(t testing.TB, opts Options) *Fleet {
	t.Helper()
	url := opts.DatabaseURL
	if url == "" {
		url = pgtest.URL(t)
	}
	dir := opts.ReplayDir
	if dir == "" {
		dir = t.TempDir()
		if err := corpus.WriteArchive(dir, opts.Pages); err != nil {
			t.Fatalf("write replay archive: %v", err)
		}
	}
	cfg := Config(t, url, dir)
	if len(opts.Queues) > 0 {
		cfg.Queues = opts.Queues
	}
	if opts.Adjust != nil {
		opts.Adjust(&cfg)
	}
	ctx := context.Background()
	w, err := fleet.New(ctx, cfg, testLogger(t))
	if err != nil {
		t.Fatalf("worker: %v", err)
	}
	f := &Fleet{intake: intake{store: store.NewStore(w.Pool()), client: w.Client()}, URL: url, Pool: w.Pool(), Store: store.NewStore(w.Pool()), Worker: w, Client: w.Client(), Config: cfg}
	if !opts.NoStart {
		if err := w.Start(ctx); err != nil {
			t.Fatalf("start worker: %v", err)
		}
	}
	t.Cleanup(func() {
		if err := w.Stop(10 * time.Second); err != nil {
			t.Logf("stop worker: %v", err)
		}
	})
	return f
}

// testLogger logs warnings to the test's log (everything with EVF_TEST_LOG set).
func testLogger(t testing.TB) *slog.Logger {
	level := slog.LevelWarn
	if os.Getenv("EVF_TEST_LOG") != "" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: level}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(p))
	return len(p), nil
}

// HTML renders a minimal article page.
func HTML(title string, paragraphs ...string) []byte {
	b := []byte("<!doctype html><html lang=\"en\"><head><title>" + title + "</title></head><body><nav><a href=\"/\">Home</a></nav><main><article><h1>" + title + "</h1>")
	for _, p := range paragraphs {
		b = append(b, "<p>"+p+"</p>"...)
	}
	return append(b, "</article></main><footer>Footer text of the site.</footer></body></html>"...)
}

// Page is a shorthand for an HTML replay page.
func Page(url, title string, paragraphs ...string) corpus.Page {
	return corpus.Page{URL: url, ContentType: "text/html; charset=utf-8", Body: HTML(title, paragraphs...)}
}

// intake adds tasks and targets through a store and a client, as the CLI
// does; Fleet commits them, TxFleet writes them in its transaction.
type intake struct {
	store  *store.Store
	client *river.Client[pgx.Tx]
}

// CreateTask creates a task with the hypothesis and extra hypothesis claims.
func (in intake) CreateTask(t testing.TB, hypothesis string, claims ...string) int64 {
	t.Helper()
	ctx := context.Background()
	var id int64
	err := in.store.InTx(ctx, func(tx pgx.Tx, _ *store.Queries) error {
		task, err := taskintake.CreateTask(ctx, in.client, tx, "test-org", taskintake.TaskSpec{Hypothesis: hypothesis})
		if err != nil {
			return err
		}
		id = task.ID
		if len(claims) > 0 {
			_, err = taskintake.AddHypotheses(ctx, in.client, tx, id, claims)
		}
		return err
	})
	if err != nil {
		t.Fatalf("create task: %v", err)
	}
	return id
}

// AddTargets inserts target_queue jobs for URLs, as another service would
// (no target rows registered beforehand).
func (in intake) AddTargets(t testing.TB, taskID int64, urls ...string) {
	t.Helper()
	params := make([]river.InsertManyParams, len(urls))
	for i, u := range urls {
		params[i] = river.InsertManyParams{Args: jobs.TargetQueueArgs{TaskID: taskID, Target: jobs.Target{Kind: jobs.TargetURL, Value: u}}}
	}
	ctx := context.Background()
	err := in.store.InTx(ctx, func(tx pgx.Tx, _ *store.Queries) error {
		_, err := in.client.InsertManyTx(ctx, tx, params)
		return err
	})
	if err != nil {
		t.Fatalf("insert targets: %v", err)
	}
}

// AddTargetsOf normalises targets of any kind and adds them as the CLI does
// (intake.AddTargets: registered once per task, one unique job each).
func (in intake) AddTargetsOf(t testing.TB, taskID int64, targets ...jobs.Target) {
	t.Helper()
	norm := make([]jobs.Target, len(targets))
	for i, tg := range targets {
		n, err := tg.Normalized()
		if err != nil {
			t.Fatalf("target %+v: %v", tg, err)
		}
		norm[i] = n
	}
	ctx := context.Background()
	err := in.store.InTx(ctx, func(tx pgx.Tx, _ *store.Queries) error {
		_, err := taskintake.AddTargets(ctx, in.client, tx, taskID, norm)
		return err
	})
	if err != nil {
		t.Fatalf("add targets: %v", err)
	}
}

// WaitIdle waits until no job is available, running, retryable, scheduled
// or pending, twice in a row.
func WaitIdle(t testing.TB, pool *pgxpool.Pool, timeout time.Duration) {
	t.Helper()
	WaitIdleExcept(t, pool, timeout)
}

// WaitIdleExcept is WaitIdle ignoring the jobs of some queues.
func WaitIdleExcept(t testing.TB, pool *pgxpool.Pool, timeout time.Duration, ignoreQueues ...string) {
	t.Helper()
	if ignoreQueues == nil {
		ignoreQueues = []string{}
	}
	deadline := time.Now().Add(timeout)
	quiet := 0
	for {
		var n int
		err := pool.QueryRow(context.Background(),
			`SELECT count(*) FROM river_job WHERE state IN ('available','running','retryable','scheduled','pending')
			 AND NOT queue = ANY($1::text[])`, ignoreQueues).Scan(&n)
		if err != nil {
			t.Fatalf("wait idle: %v", err)
		}
		if n == 0 {
			quiet++
			if quiet >= 2 {
				return
			}
		} else {
			quiet = 0
		}
		if time.Now().After(deadline) {
			t.Fatalf("wait idle: %d jobs still pending after %s:\n%s", n, timeout, JobDump(t, pool))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// JobDump lists every job with its state and last error, for failure messages.
func JobDump(t testing.TB, pool store.DBTX) string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT id, kind, state, attempt, args::text,
		COALESCE(errors[array_length(errors,1)]->>'error','') FROM river_job ORDER BY id`)
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	var out string
	for rows.Next() {
		var id int64
		var kind, state, args, lastErr string
		var attempt int
		if err := rows.Scan(&id, &kind, &state, &attempt, &args, &lastErr); err != nil {
			return err.Error()
		}
		out += fmt.Sprintf("  %d %s %s attempt=%d args=%s err=%s\n", id, kind, state, attempt, args, lastErr)
	}
	return out
}

// InsertRawJob inserts a job the way another service would with plain SQL.
func InsertRawJob(t testing.TB, pool store.DBTX, kind, queue, argsJSON string) int64 {
	t.Helper()
	var id int64
	err := pool.QueryRow(context.Background(), `
		INSERT INTO river_job (kind, args, queue, priority, max_attempts, state)
		VALUES ($1, $2::jsonb, $3, 1, 5, 'available') RETURNING id`, kind, argsJSON, queue).Scan(&id)
	if err != nil {
		t.Fatalf("raw insert: %v", err)
	}
	if _, err := pool.Exec(context.Background(), `SELECT pg_notify('river_insert', json_build_object('queue', $1::text)::text)`, queue); err != nil {
		t.Fatalf("notify: %v", err)
	}
	return id
}

// JobRow reads one job's state, last error and recorded output.
func JobRow(t testing.TB, pool store.DBTX, id int64) (state, lastErr string, output []byte) {
	t.Helper()
	err := pool.QueryRow(context.Background(), `SELECT state, COALESCE(errors[array_length(errors,1)]->>'error',''),
		COALESCE(metadata->'output', 'null'::jsonb)::text FROM river_job WHERE id = $1`, id).Scan(&state, &lastErr, &output)
	if err != nil {
		t.Fatalf("read job %d: %v", id, err)
	}
	return state, lastErr, output
}
