// Package bench is the `make bench` harness: it measures River's own no-op
// baseline and the evidencefleet job kinds on the same Postgres server in one
// run, each in scratch databases, workers in their own processes (so that CPU
// seconds and peak RSS are theirs alone), and prints medians over several
// repetitions beside the River figures.
package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/scratchdb"
	"github.com/evidencefleet/evidencefleet/internal/models/configured"
	"github.com/evidencefleet/evidencefleet/internal/version"
	"github.com/evidencefleet/evidencefleet/migrations"
)

// Options size the run.
type Options struct {
	DatabaseURL string // the server; every section works in its own scratch database
	DataDir     string // the repository's testdata/: sentence pool and Climate-FEVER claims
	Exe         string // this executable, started as worker children
	Reps        int    // repetitions per measurement (medians are printed)

	RiverJobs   int // no-op jobs burnt down, and jobs inserted per insert measurement
	InsertBatch int // jobs per batch insert (River InsertManyFast and enqueue alike)
	NoopWorkers int // River baseline: concurrent no-op jobs

	VerifyClaims    int   // claims of the synthetic verify_nli task
	VerifyFragments int   // fragments of that task
	ClaimsPerJob    int   // claims per verify_nli job (claim_ids)
	NLIWorkers      int   // concurrent verify_nli jobs per process
	Procs           []int // worker processes for the scaling measurement
	StampingReps    int   // runs of each arm of the trust-stamping comparison (0: Reps)

	BigTaskClaims    int // claims of the one large task verified on 1 and 2 processes (0: skip)
	BigTaskFragments int // its fragments

	RetrievalSizes         []int // graph sizes (fragments) for candidate retrieval latency
	RetrievalTaskFragments int   // fragments of the measured task (the rest belong to other tasks)
	RetrievalQueries       int   // claims timed per size

	ClimateClaims int // Climate-FEVER claims for the pipeline (0: skip, < 0: all)

	QueueStatsHistory  int   // finished jobs in river_job for the queue-statistics queries (0: skip)
	QueueStatsBacklogs []int // available jobs they are timed at

	BadTokenRequests int // a good token's timed requests per arm of the bad-token flood (0: skip)

	// Only names the sections to run (Sections); empty runs all. The River
	// baseline runs whenever a section compared with it does.
	Only []string

	Hostile HostileOptions // the hostile-pages section

	Fairness FairnessOptions // the fair-shares section

	Keep     bool      // keep the scratch databases for inspection
	Progress io.Writer `json:"-"` // progress lines (nil: none)
}

// Quick are sizes for a run of a few minutes; Full for docs/performance.md's run.
var (
	Quick = Options{Reps: 3, RiverJobs: 20000, InsertBatch: 1000, NoopWorkers: 100,
		VerifyClaims: 1000, VerifyFragments: 25000, ClaimsPerJob: 50, NLIWorkers: 2, Procs: []int{1, 2, 4}, StampingReps: 6,
		BigTaskClaims: 10000, BigTaskFragments: 25000,
		RetrievalSizes: []int{10000, 100000}, RetrievalTaskFragments: 10000, RetrievalQueries: 200,
		ClimateClaims: 60, QueueStatsHistory: 100000, QueueStatsBacklogs: []int{0, 10000}, BadTokenRequests: 300,
		Fairness: FairnessOptions{ClaimsA: 1000, ClaimsB: 5, After: 2 * time.Second, PairRate: 400, Share: "0.5"}}
	Full = Options{Reps: 3, RiverJobs: 100000, InsertBatch: 1000, NoopWorkers: 100,
		VerifyClaims: 2000, VerifyFragments: 50000, ClaimsPerJob: 50, NLIWorkers: 2, Procs: []int{1, 2, 4}, StampingReps: 10,
		BigTaskClaims: 100000, BigTaskFragments: 50000,
		RetrievalSizes: []int{10000, 100000, 1000000}, RetrievalTaskFragments: 10000, RetrievalQueries: 200,
		ClimateClaims: -1, QueueStatsHistory: 1000000, QueueStatsBacklogs: []int{0, 10000, 100000}, BadTokenRequests: 1000,
		Fairness: FairnessOptions{ClaimsA: 20000, ClaimsB: 5, After: 2 * time.Second, PairRate: 1000, Share: "0.5"}}
)

// Row is one line of the result table.
type Row struct {
	Section  string  `json:"section"`
	Metric   string  `json:"metric"`
	Value    float64 `json:"value"` // median over the repetitions
	Unit     string  `json:"unit"`
	Baseline string  `json:"river_baseline"` // the River figure it compares with, and the ratio
}

// Report is the whole run.
type Report struct {
	// Measured names the commit and time of the run: docs/performance.md quotes it
	// with every figure.
	Measured version.Provenance `json:"measured"`
	Started  time.Time          `json:"started"`
	Seconds  float64            `json:"seconds"`
	CPUs     int                `json:"cpus"`
	Go       string             `json:"go"`
	Postgres string             `json:"postgres"`
	Options  Options            `json:"options"`
	Rows     []Row              `json:"rows"`
	// Hostile is the hostile-pages section's page-by-page outcome, when it ran.
	Hostile *HostileReport `json:"hostile,omitempty"`
}

// Run measures every section and returns the table.
func Run(ctx context.Context, opts Options) (*Report, error) {
	rep := &Report{Measured: version.Measured(ctx), Started: time.Now(), CPUs: runtime.NumCPU(), Go: runtime.Version(), Options: opts}
	if opts.Reps < 1 {
		opts.Reps = 1
	}
	h := &harness{opts: opts, rep: rep}
	for _, name := range opts.Only {
		if !slices.Contains(Sections, name) {
			return nil, fmt.Errorf("unknown section %q (want one of %s)", name, strings.Join(Sections, ", "))
		}
	}
	var base baseline
	if h.want("river") || h.want("enqueue") || h.want("verify") || h.want("pipeline") {
		var err error
		if base, err = h.river(ctx); err != nil {
			return nil, fmt.Errorf("river baseline: %w", err)
		}
	}
	if h.want("enqueue") {
		if err := h.enqueue(ctx, base); err != nil {
			return nil, fmt.Errorf("enqueue: %w", err)
		}
	}
	if h.want("verify") || h.want(StampingSection) || h.want(PoolerSection) {
		if err := h.verify(ctx, base); err != nil {
			return nil, fmt.Errorf("verify_nli: %w", err)
		}
	}
	if h.want(PartitionSection) {
		if err := h.partitionedVerify(ctx); err != nil {
			return nil, fmt.Errorf("partitioned edges: %w", err)
		}
	}
	if opts.BigTaskClaims > 0 && h.want(BigTaskSection) {
		if err := h.bigTask(ctx); err != nil {
			return nil, fmt.Errorf("big task: %w", err)
		}
	}
	if h.want("retrieval") {
		if err := h.retrieval(ctx); err != nil {
			return nil, fmt.Errorf("candidate retrieval: %w", err)
		}
	}
	if h.want("queuestats") {
		if err := h.queueStats(ctx); err != nil {
			return nil, fmt.Errorf("queue statistics: %w", err)
		}
	}
	if opts.ClimateClaims != 0 && h.want("pipeline") {
		if err := h.pipeline(ctx, base); err != nil {
			return nil, fmt.Errorf("climate-fever pipeline: %w", err)
		}
	}
	if h.opts.BadTokenRequests > 0 && h.want(BadTokensSection) {
		if err := h.badTokens(ctx); err != nil {
			return nil, fmt.Errorf("bad-token flood: %w", err)
		}
	}
	if h.want(FairnessSection) {
		if err := h.fairness(ctx); err != nil {
			return nil, fmt.Errorf("fair shares: %w", err)
		}
	}
	if h.want(HostileSection) {
		hr, err := h.hostile(ctx, opts.Hostile)
		if err != nil {
			return nil, fmt.Errorf("hostile pages: %w", err)
		}
		rep.Hostile = hr
	}
	rep.Seconds = time.Since(rep.Started).Seconds()
	return rep, nil
}

// Sections are the names Options.Only accepts, in the order they run.
var Sections = []string{"river", "enqueue", "verify", StampingSection, PoolerSection, PartitionSection, BigTaskSection, "retrieval", "pipeline", "queuestats", BadTokensSection, FairnessSection, HostileSection}

// StampingSection is verify_nli with and without trust stamping
// (stamping.go); "verify" runs it too.
const StampingSection = "stamping"

type harness struct {
	opts Options
	rep  *Report
}

func (h *harness) want(section string) bool {
	return len(h.opts.Only) == 0 || slices.Contains(h.opts.Only, section)
}

// baseline holds the River figures everything is compared with.
type baseline struct {
	insertRate float64 // jobs/s, InsertManyFast
	workRate   float64 // jobs/s, no-op burn-down
	slotRate   float64 // jobs/s, no-op burn-down with a verify_nli process's slots and the fleet's fetch settings
	cpuPer1k   float64 // CPU seconds per 1,000 no-op jobs
	rss        float64 // MB
	tripsPer   float64 // round trips per no-op job
}

func (h *harness) add(section, metric string, values []float64, unit, baseline string) float64 {
	v := median(values)
	h.rep.Rows = append(h.rep.Rows, Row{Section: section, Metric: metric, Value: v, Unit: unit, Baseline: baseline})
	return v
}

func (h *harness) logf(format string, args ...any) {
	if h.opts.Progress != nil {
		fmt.Fprintf(h.opts.Progress, "fleetbench: "+format+"\n", args...)
	}
}

// scratch creates a migrated scratch database and returns a pool on it and
// its URL; the returned function drops it.
func (h *harness) scratch(ctx context.Context) (*pgxpool.Pool, string, func(), error) {
	u, drop, err := scratchdb.Create(ctx, h.opts.DatabaseURL, "evf_bench_")
	if err != nil {
		return nil, "", nil, err
	}
	own, err := scratchdb.WithParam(u, "application_name", benchApplication)
	if err != nil {
		_ = drop()
		return nil, "", nil, err
	}
	pool, err := pgxpool.New(ctx, own)
	if err != nil {
		_ = drop()
		return nil, "", nil, err
	}
	if _, err := migrations.Up(ctx, pool, slog.New(slog.DiscardHandler)); err != nil {
		pool.Close()
		_ = drop()
		return nil, "", nil, err
	}
	if h.rep.Postgres == "" {
		_ = pool.QueryRow(ctx, "SHOW server_version").Scan(&h.rep.Postgres)
	}
	h.logf("scratch database %s", u)
	return pool, u, func() {
		pool.Close()
		if !h.opts.Keep {
			_ = drop()
		}
	}, nil
}

// synthEnv is a scratch database with what the synthetic sections load
// into it: the sentence pool and the configured models.
type synthEnv struct {
	pool      *pgxpool.Pool
	url       string
	done      func()
	sentences *sentencePool
	models    configured.Models
}

func (h *harness) synthEnv(ctx context.Context) (*synthEnv, error) {
	cfg, err := config.Load()
	if err != nil {
		return nil, err
	}
	models, err := configured.New(cfg, nil)
	if err != nil {
		return nil, err
	}
	sp, err := loadPool(h.opts.DataDir)
	if err != nil {
		return nil, err
	}
	pool, u, done, err := h.scratch(ctx)
	if err != nil {
		return nil, err
	}
	return &synthEnv{pool: pool, url: u, done: done, sentences: sp, models: models}, nil
}

// ratio formats a/b as "×0.42".
func ratio(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("×%.2f", a/b)
}
