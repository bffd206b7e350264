package eval

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/fleet"
	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/graphsnap"
	"github.com/evidencefleet/evidencefleet/internal/harness/scratchdb"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/search"
	"github.com/evidencefleet/evidencefleet/internal/search/offline"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/migrations"
	"github.com/evidencefleet/evidencefleet/store"
)

// RunFleetMode is RunFleet with the claims' evidence given as targets
// (ModeGiven) or left to the fleet's search of the replay archive
// (ModeOpen: only the search backend is the archive's offline search,
// whatever EVF_SEARCH_URL says).
func RunFleetMode(ctx context.Context, opts Options, mode Mode) (*FleetResult, error) {
	records, err := readClaims(opts.ClaimsFile, opts.Limit)
	if err != nil {
		return nil, err
	}
	if mode == ModeSelfDirected && opts.SelfDirectedClaims > 0 && len(records) > opts.SelfDirectedClaims {
		records = records[:opts.SelfDirectedClaims]
	}
	res := &FleetResult{Mode: mode, ClaimsFile: opts.ClaimsFile, Claims: len(records)}
	dir, err := os.MkdirTemp("", "evf-eval-replay-")
	if err != nil {
		return nil, fmt.Errorf("replay archive: %w", err)
	}
	defer os.RemoveAll(dir)
	pages := corpus.RenderArticles(records)
	if err := corpus.WriteArchive(dir, pages); err != nil {
		return nil, fmt.Errorf("replay archive: %w", err)
	}
	res.Articles = len(pages)
	queries, targets, err := modeTargets(mode, records, pages)
	if err != nil {
		return nil, err
	}

	cfg := opts.Config
	if opts.FreshDB {
		u, drop, err := scratchdb.Create(ctx, cfg.DatabaseURL, "evf_eval_")
		if err != nil {
			return nil, err
		}
		defer func() {
			if err := drop(); err != nil && opts.Progress != nil {
				fmt.Fprintf(opts.Progress, "eval: %v\n", err)
			}
		}()
		cfg.DatabaseURL = u
	}
	cfg.ReplayDir = dir
	cfg.Queues = FleetQueues
	if mode != ModeGiven {
		cfg.SearchURL = "" // the archive's offline search (fleet.newSearcher)
	}
	if mode == ModeSelfDirected {
		cfg.TaskSettle = 200 * time.Millisecond // the planner steps on the settle loop
	}

	pool, err := pgxpool.New(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer pool.Close()
	if _, err := migrations.Up(ctx, pool, opts.Log); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w, err := fleet.New(ctx, cfg, log)
	if err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = w.Stop(10 * time.Second)
		}
	}()
	st := store.NewStore(pool)
	claimIDs, err := enqueueMode(ctx, st, w.Client(), mode, records, targets, res)
	if err != nil {
		return nil, err
	}
	res.TaskID = claimIDs.Task

	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Minute
	}
	conc := cfg.Concurrency()
	res.Workers = map[string]int{}
	for _, q := range cfg.Queues {
		res.Workers[q] = conc[q]
	}
	res.CPUs = runtime.NumCPU()
	var dbStart time.Time // the server's clock, for river_job timestamps
	if err := pool.QueryRow(ctx, "SELECT clock_timestamp()").Scan(&dbStart); err != nil {
		return nil, fmt.Errorf("read the server clock: %w", err)
	}
	start := time.Now()
	// River cancels running jobs when the start context ends: Stop ends them.
	if err := w.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	waitErr := waitIdle(ctx, pool, res.tasks(), mode == ModeSelfDirected, timeout, opts.Progress)
	res.WallSeconds = time.Since(start).Seconds()
	stopped = true
	if err := w.Stop(30 * time.Second); err != nil && waitErr == nil {
		waitErr = fmt.Errorf("stop fleet: %w", err)
	}
	if waitErr != nil {
		return nil, waitErr
	}
	if err := scoreRun(ctx, pool, st, records, claimIDs.Claims, dbStart, res); err != nil {
		return nil, err
	}
	var searcher search.Searcher
	if mode != ModeGiven {
		searcher = offline.New(dir, offline.Options{MaxBytes: cfg.FetchMaxBytes, MaxElements: cfg.PageMaxElements})
	}
	if mode == ModeSelfDirected {
		if queries, err = plannerQueries(ctx, pool, claimIDs.Claims); err != nil {
			return nil, err
		}
	}
	if err := scoreRetrievalOfArticles(ctx, pool, records, claimIDs.Claims, searcher, queries, cfg.SearchResults, res); err != nil {
		return nil, err
	}
	return res, nil
}

// scoreRun reads a finished run's graph, digest and timings and scores its
// claims and gold pairs into res.
func scoreRun(ctx context.Context, pool *pgxpool.Pool, st *store.Store, records []corpus.Record, claims []int64, dbStart time.Time, res *FleetResult) error {
	if err := readGraph(ctx, st, res); err != nil {
		return err
	}
	snap, err := graphsnap.Read(ctx, pool)
	if err != nil {
		return err
	}
	res.GraphDigest, res.GraphRows = snap.Digest(), snap.Summary()
	if res.Timings, err = readTimings(ctx, pool, res.tasks(), dbStart); err != nil {
		return err
	}
	if err := scoreClaims(ctx, pool, records, claims, res); err != nil {
		return err
	}
	return scorePairs(ctx, pool, records, claims, res)
}

// modeTargets are what a mode gives the fleet: in given mode every page of
// the archive as a url target, in open mode the claims' queries
// (openModeTargets), each target once.
func modeTargets(mode Mode, records []corpus.Record, pages []corpus.Page) (queries [][]jobs.Target, targets []jobs.Target, err error) {
	targets = make([]jobs.Target, 0)
	switch mode {
	case ModeGiven:
		for _, p := range pages {
			t, err := jobs.Target{Kind: jobs.TargetURL, Value: p.URL}.Normalized()
			if err != nil {
				return nil, nil, fmt.Errorf("target %s: %w", p.URL, err)
			}
			targets = append(targets, t)
		}
	case ModeOpen:
		if queries, err = openModeTargets(records); err != nil {
			return nil, nil, err
		}
		targets = distinctTargets(queries)
	case ModeSelfDirected: // the planner decides
	default:
		return nil, nil, fmt.Errorf("unknown mode %q", mode)
	}
	return queries, targets, nil
}

// EnqueueSelfDirected creates one self-directed task per record (its claim
// is the task's hypothesis, E1; budget SelfDirectedBudget), in one
// transaction: the claims' ids in record order, and the tasks.
func EnqueueSelfDirected(ctx context.Context, st *store.Store, client *river.Client[pgx.Tx], records []corpus.Record) (TaskClaims, []int64, error) {
	var out TaskClaims
	var tasks []int64
	err := st.InTx(ctx, func(tx pgx.Tx, q *store.Queries) error {
		for _, r := range records {
			task, err := intake.CreateTask(ctx, client, tx, "evaluation", intake.TaskSpec{Hypothesis: r.Claim, Budget: SelfDirectedBudget, Retrieval: "self_directed"})
			if err != nil {
				return fmt.Errorf("claim %s: %w", r.ClaimID, err)
			}
			claims, err := q.PlannerClaims(ctx, task.ID)
			if err != nil || len(claims) != 1 {
				return fmt.Errorf("claim %s: its task's claim: %v (%d claims)", r.ClaimID, err, len(claims))
			}
			tasks = append(tasks, task.ID)
			out.Claims = append(out.Claims, claims[0].ID)
		}
		return nil
	})
	if err != nil {
		return out, nil, fmt.Errorf("create self-directed tasks: %w", err)
	}
	if len(tasks) > 0 {
		out.Task = tasks[0]
	}
	return out, tasks, nil
}

// plannerQueries are the queries the planner asked for each claim, in
// claim order.
func plannerQueries(ctx context.Context, pool *pgxpool.Pool, claims []int64) ([][]jobs.Target, error) {
	rows, err := pool.Query(ctx, `SELECT claim_id, value FROM targets WHERE via = 'planner' AND claim_id = ANY($1::bigint[]) ORDER BY id`, claims)
	if err != nil {
		return nil, fmt.Errorf("read the planner's queries: %w", err)
	}
	defer rows.Close()
	index := map[int64]int{}
	for i, c := range claims {
		index[c] = i
	}
	out := make([][]jobs.Target, len(claims))
	for rows.Next() {
		var claim int64
		var value string
		if err := rows.Scan(&claim, &value); err != nil {
			return nil, fmt.Errorf("read the planner's queries: %w", err)
		}
		i := index[claim]
		out[i] = append(out[i], jobs.Target{Kind: jobs.TargetQuery, Value: value})
	}
	return out, rows.Err()
}

// enqueueMode creates the run's work: one self-directed task per claim, or
// one task with the claims and targets.
func enqueueMode(ctx context.Context, st *store.Store, client *river.Client[pgx.Tx], mode Mode, records []corpus.Record, targets []jobs.Target, res *FleetResult) (TaskClaims, error) {
	if mode == ModeSelfDirected {
		claims, tasks, err := EnqueueSelfDirected(ctx, st, client, records)
		res.TaskIDs = tasks
		return claims, err
	}
	return EnqueueTargets(ctx, st, client, records, targets)
}
