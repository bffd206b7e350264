// Package chaos runs the fleet under failure (`make chaos`): worker processes
// on a Climate-FEVER replay workload, one SIGKILLed and started again every
// few seconds, Postgres restarted in immediate mode once, and then compares
// the graph with a clean run by natural keys (graphsnap) and counts
// duplicate rows, lost work and discarded jobs.
package chaos

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/eval"
	"github.com/evidencefleet/evidencefleet/internal/harness/graphsnap"
	"github.com/evidencefleet/evidencefleet/internal/harness/scratchdb"
	"github.com/evidencefleet/evidencefleet/migrations"
	"github.com/evidencefleet/evidencefleet/store"
)

// Options configure a chaos run.
type Options struct {
	DatabaseURL string        // the server; both runs get a scratch database on it
	WorkerBin   string        // the worker binary (bin/worker)
	ClaimsFile  string        // Climate-FEVER JSONL
	Limit       int           // records used (0: all)
	Workers     int           // processes of the chaos run
	Kills       int           // SIGKILLs at least
	KillEvery   time.Duration // mean spacing of kills (jittered ±50 %); 0: the clean run's time over Kills, so that the kills span the work
	// RestartPostgres is a shell command that restarts the server in
	// immediate mode (scripts/with-postgres.sh exports one); run once, half
	// way through the kills. Empty: no restart.
	RestartPostgres string
	Timeout         time.Duration // for each run to finish its work
	Progress        io.Writer
}

// Result is what a chaos run measured.
type Result struct {
	Claims, Articles    int
	Workers, Kills      int
	KillsMidWork        int // kills while the task had jobs pending
	KillEvery           string
	PostgresRestarts    int
	Exits               int // worker processes that ended on their own (a lost connection) and were started again
	CleanSeconds        float64
	ChaosSeconds        float64
	Identical           bool
	Diff                string `json:",omitempty"`
	Duplicates          int    // rows beyond their natural key, all tables
	Lost                int    // jobs not finished, targets neither extracted nor failed
	Discarded           int    // jobs River gave up on
	Cancelled           int    // jobs cancelled for work not done (their output's failure: worker deaths, refused data, …)
	Rescued             int    // jobs whose errors record a rescue
	GraphRows           string
	CleanDigest, Digest string
}

// DeterministicEnv is the worker configuration under which the graph does
// not depend on timing: no cut-off of candidates by arrival order. The
// crash, concurrency and backend tests run with it too.
var DeterministicEnv = map[string]string{
	"EVF_TOP_K":               "100000",
	"EVF_MAX_PAIRS_PER_CLAIM": "100000",
	"EVF_RECALL_LIMIT":        "100000",
	"EVF_MAX_DOMAINS":         "100000",
}

// Run runs the clean run, then the chaos run, and compares them.
func Run(ctx context.Context, o Options) (*Result, error) {
	records, err := corpus.ReadClimateFever(o.ClaimsFile)
	if err != nil {
		return nil, err
	}
	if o.Limit > 0 && len(records) > o.Limit {
		records = records[:o.Limit]
	}
	archive, err := os.MkdirTemp("", "evf-chaos-replay-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(archive)
	pages := corpus.RenderArticles(records)
	if err := corpus.WriteArchive(archive, pages); err != nil {
		return nil, err
	}
	res := &Result{Claims: len(records), Articles: len(pages), Workers: o.Workers}
	logs, err := os.MkdirTemp("", "evf-chaos-logs-")
	if err != nil {
		return nil, err
	}
	h := &harness{o: o, archive: archive, logs: logs}

	clean, dropClean, err := h.database(ctx, records, pages)
	if err != nil {
		return nil, err
	}
	defer dropClean()
	start := time.Now()
	if err := h.cleanRun(ctx, clean); err != nil {
		return nil, fmt.Errorf("clean run: %w", err)
	}
	res.CleanSeconds = time.Since(start).Seconds()
	if h.o.KillEvery <= 0 {
		h.o.KillEvery = min(max(time.Duration(res.CleanSeconds*float64(time.Second))/time.Duration(max(h.o.Kills, 1)), 200*time.Millisecond), 5*time.Second)
	}
	res.KillEvery = h.o.KillEvery.Round(time.Millisecond).String()
	h.progress("clean run done in %.1f s; a kill about every %s", res.CleanSeconds, res.KillEvery)

	run, dropRun, err := h.database(ctx, records, pages)
	if err != nil {
		return nil, err
	}
	defer dropRun()
	start = time.Now()
	if err := h.chaosRun(ctx, run, res); err != nil {
		return nil, fmt.Errorf("chaos run (worker logs in %s): %w", logs, err)
	}
	res.ChaosSeconds = time.Since(start).Seconds()
	if err := compare(ctx, clean.pool, run.pool, res); err != nil {
		return nil, err
	}
	if res.Identical && res.Duplicates+res.Lost+res.Discarded+res.Cancelled == 0 {
		os.RemoveAll(logs)
	} else {
		h.progress("worker logs kept in %s", logs)
	}
	return res, nil
}

type harness struct {
	o             Options
	archive, logs string
	started       int
}

func (h *harness) progress(format string, args ...any) {
	if h.o.Progress != nil {
		fmt.Fprintf(h.o.Progress, "chaos: "+format+"\n", args...)
	}
}

// db is a migrated scratch database holding the task.
type db struct {
	url  string
	pool *pgxpool.Pool
	task int64
}

// database creates a scratch database with the workload's task and targets.
func (h *harness) database(ctx context.Context, records []corpus.Record, pages []corpus.Page) (*db, func(), error) {
	u, drop, err := scratchdb.Create(ctx, h.o.DatabaseURL, "evf_chaos_")
	if err != nil {
		return nil, nil, err
	}
	pool, err := pgxpool.New(ctx, u)
	if err != nil {
		_ = drop()
		return nil, nil, err
	}
	cleanup := func() {
		pool.Close()
		if err := drop(); err != nil {
			h.progress("%v", err)
		}
	}
	if _, err := migrations.Up(ctx, pool, nil); err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("migrate: %w", err)
	}
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	tc, err := eval.EnqueueTask(ctx, store.NewStore(pool), client, records, pages)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return &db{url: u, pool: pool, task: tc.Task}, cleanup, nil
}

// worker is one worker process.
type worker struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

func (h *harness) start(d *db, name string) (*worker, error) {
	h.started++
	log, err := os.Create(filepath.Join(h.logs, fmt.Sprintf("%03d-%s.log", h.started, name)))
	if err != nil {
		return nil, err
	}
	defer log.Close()
	cmd := exec.Command(h.o.WorkerBin)
	cmd.Env = append(workerBaseEnv(), "DATABASE_URL="+d.url, "EVF_REPLAY_DIR="+h.archive, "EVF_QUEUES="+strings.Join(eval.FleetQueues, ","),
		"EVF_METRICS_ADDR=127.0.0.1:0", "EVF_LOG_FORMAT=text", "EVF_SHUTDOWN_TIMEOUT=5s")
	for k, v := range DeterministicEnv {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", h.o.WorkerBin, err)
	}
	w := &worker{cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(w.exited) }()
	return w, nil
}

// workerBaseEnv is this process's environment without DATABASE_URL and EVF_*.
func workerBaseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "DATABASE_URL" && !strings.HasPrefix(k, "EVF_") {
			env = append(env, kv)
		}
	}
	return env
}

func (w *worker) alive() bool {
	select {
	case <-w.exited:
		return false
	default:
		return true
	}
}

func (w *worker) kill() {
	_ = w.cmd.Process.Kill()
	<-w.exited
}

func (w *worker) stop() {
	_ = w.cmd.Process.Signal(os.Interrupt)
	select {
	case <-w.exited:
	case <-time.After(20 * time.Second):
		w.kill()
	}
}

// cleanRun works the task with one undisturbed process.
func (h *harness) cleanRun(ctx context.Context, d *db) error {
	w, err := h.start(d, "clean")
	if err != nil {
		return err
	}
	defer w.stop()
	return waitDone(ctx, d, h.o.Timeout, func() error {
		if !w.alive() {
			return fmt.Errorf("the clean worker exited")
		}
		return nil
	})
}

// chaosRun works the task with o.Workers processes, killing one at random
// every KillEvery (and starting it again) until o.Kills kills, restarting
// Postgres half way, then lets them finish.
func (h *harness) chaosRun(ctx context.Context, d *db, res *Result) error {
	procs := make([]*worker, h.o.Workers)
	for i := range procs {
		w, err := h.start(d, fmt.Sprintf("w%d", i))
		if err != nil {
			return err
		}
		procs[i] = w
	}
	defer func() {
		for _, w := range procs {
			w.stop()
		}
	}()
	// Processes that end on their own (their lifeline or pool lost Postgres)
	// are started again, as Kubernetes would.
	revive := func() error {
		for i, w := range procs {
			if !w.alive() {
				res.Exits++
				nw, err := h.start(d, fmt.Sprintf("w%d", i))
				if err != nil {
					return err
				}
				procs[i] = nw
			}
		}
		return nil
	}
	rnd := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	deadline := time.Now().Add(h.o.Timeout)
	for res.Kills < h.o.Kills {
		wait := h.o.KillEvery/2 + time.Duration(rnd.Int64N(int64(h.o.KillEvery)))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d kills of %d before the timeout", res.Kills, h.o.Kills)
		}
		if err := revive(); err != nil {
			return err
		}
		if pending, err := pendingJobs(ctx, d); err == nil && pending > 0 {
			res.KillsMidWork++
		}
		i := rnd.IntN(len(procs))
		procs[i].kill()
		res.Kills++
		nw, err := h.start(d, fmt.Sprintf("w%d", i))
		if err != nil {
			return err
		}
		procs[i] = nw
		if h.o.RestartPostgres != "" && res.PostgresRestarts == 0 && res.Kills >= h.o.Kills/2 {
			h.progress("restarting Postgres (immediate mode) after %d kills", res.Kills)
			if out, err := exec.CommandContext(ctx, "sh", "-c", h.o.RestartPostgres).CombinedOutput(); err != nil {
				return fmt.Errorf("restart Postgres: %v: %s", err, out)
			}
			res.PostgresRestarts++
		}
		if res.Kills%10 == 0 {
			pending, _ := pendingJobs(ctx, d)
			h.progress("%d kills, %d jobs pending", res.Kills, pending)
		}
	}
	return waitDone(ctx, d, time.Until(deadline), revive)
}

// pendingJobs counts the task's jobs not finished.
func pendingJobs(ctx context.Context, d *db) (int, error) {
	var n int
	err := d.pool.QueryRow(ctx, `SELECT count(*) FROM river_job
		WHERE state IN ('available','pending','running','retryable','scheduled') AND kind = ANY($1::text[])`, eval.FleetKinds).Scan(&n)
	return n, err
}

// waitDone waits until no job is pending twice in a row, calling check on
// every poll.
func waitDone(ctx context.Context, d *db, timeout time.Duration, check func() error) error {
	deadline := time.Now().Add(timeout)
	quiet := 0
	for quiet < 2 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
		if err := check(); err != nil {
			return err
		}
		n, err := pendingJobs(ctx, d)
		if err != nil {
			quiet = 0 // Postgres restarting
			continue
		}
		if n == 0 {
			quiet++
		} else {
			quiet = 0
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d jobs still pending after %s", n, timeout)
		}
	}
	return nil
}

// compare fills res from the two databases.
func compare(ctx context.Context, clean, run *pgxpool.Pool, res *Result) error {
	want, err := graphsnap.Read(ctx, clean)
	if err != nil {
		return err
	}
	got, err := graphsnap.Read(ctx, run)
	if err != nil {
		return err
	}
	res.CleanDigest, res.Digest, res.GraphRows = want.Digest(), got.Digest(), got.Summary()
	res.Diff = graphsnap.Diff(want, got, 10)
	res.Identical = res.Diff == "" && want.NLIEdges() > 0
	for _, c := range graphsnap.DuplicateChecks {
		var n int
		if err := run.QueryRow(ctx, c.SQL).Scan(&n); err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		res.Duplicates += n
	}
	counts := []struct {
		n   *int
		sql string
	}{
		{&res.Lost, `SELECT (SELECT count(*) FROM river_job WHERE state NOT IN ('completed', 'cancelled', 'discarded'))
			+ (SELECT count(*) FROM targets WHERE status NOT IN ('extracted', 'failed'))`},
		{&res.Discarded, `SELECT count(*) FROM river_job WHERE state = 'discarded'`},
		{&res.Rescued, `SELECT count(*) FROM river_job j WHERE metadata ? 'worker_deaths'
			OR EXISTS (SELECT 1 FROM unnest(j.errors) e WHERE e->>'error' = 'Stuck job rescued by JobRescuer')`},
	}
	for _, c := range counts {
		if err := run.QueryRow(ctx, c.sql).Scan(c.n); err != nil {
			return err
		}
	}
	// Cancelled jobs that did not do their work, by the rule status uses.
	rows, err := run.Query(ctx, `SELECT COALESCE(metadata->'output'->>'failure', '') FROM river_job WHERE state = 'cancelled'`)
	if err != nil {
		return err
	}
	failures, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, f := range failures {
		if errs.EndedUndone("cancelled", errs.Failure(f)) {
			res.Cancelled++
		}
	}
	return nil
}
