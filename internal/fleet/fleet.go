// Package fleet assembles a worker process: database pool (with its
// statement, lock and idle timeouts), model backends, fetcher, River client
// with the evidencefleet queues and middleware, the lifeline that proves the
// process alive and rescues the jobs of dead ones (lifeline.go), and the
// operations HTTP server (/metrics, /healthz, /readyz).
package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/belief"
	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/academic/openalex"
	"github.com/evidencefleet/evidencefleet/internal/academic/papers"
	"github.com/evidencefleet/evidencefleet/internal/academic/s2"
	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/crawl"
	"github.com/evidencefleet/evidencefleet/internal/extract"
	"github.com/evidencefleet/evidencefleet/internal/httpx"
	"github.com/evidencefleet/evidencefleet/internal/membudget"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/modelcard"
	"github.com/evidencefleet/evidencefleet/internal/models"
	"github.com/evidencefleet/evidencefleet/internal/models/configured"
	"github.com/evidencefleet/evidencefleet/internal/pageproc"
	"github.com/evidencefleet/evidencefleet/internal/planner"
	"github.com/evidencefleet/evidencefleet/internal/search"
	"github.com/evidencefleet/evidencefleet/internal/search/offline"
	"github.com/evidencefleet/evidencefleet/internal/taskindex"
	"github.com/evidencefleet/evidencefleet/internal/verification"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/migrations"
	"github.com/evidencefleet/evidencefleet/store"
)

// Worker is one running worker process.
type Worker struct {
	cfg     config.Config
	log     *slog.Logger
	pool    *pgxpool.Pool
	client  *river.Client[pgx.Tx]
	metrics *metrics.Metrics
	fetcher *crawl.Fetcher
	jobs    *services
	ready   atomic.Bool

	id       string    // River client id, the key of the liveness lock
	lifeline *lifeline // set by Start
	stopLife context.CancelFunc
	lifeDone chan struct{} // closed when the lifeline's loop has returned
	lost     chan error    // the lifeline's failure: the process must stop
}

// Parts are what a worker process works jobs with, short of its connection
// pool, queues and River client: the job dependencies on one store, the
// fetcher among them (Close it when done), and the River configuration of a
// worker — its settings, the middleware every job goes through (jobMetrics,
// jobCost, workers.Middleware, then workers.PausedTasks and
// workers.FairShares inside it) and a
// worker for every job kind. New
// completes them into a process (queues, periodic jobs, client id); the
// harness works jobs with the same parts in a test transaction.
type Parts struct {
	Workers  workers.Set
	Fetcher  *crawl.Fetcher
	River    *river.Config
	services *services
}

// Option changes what New and Build assemble.
type Option func(*configured.Models)

// WithNLI makes the worker judge with nli instead of the configured NLI
// backend (the bench's instant model, which separates the fleet's own cost
// from a model's).
func WithNLI(nli models.NLI) Option {
	return func(m *configured.Models) { m.NLI = nli }
}

// Build assembles the Parts of a worker for cfg on st.
func Build(cfg config.Config, st *store.Store, log *slog.Logger, m *metrics.Metrics, opts ...Option) (*Parts, error) {
	svc, err := newServices(cfg, log, m)
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(&svc.models)
	}
	set := svc.workers(cfg, st, m, log)
	registry := river.NewWorkers()
	if err := set.Add(registry); err != nil {
		svc.fetcher.Close()
		return nil, err
	}
	rc := riverSettings(cfg, log)
	waits := workers.ServerWaits{Max: cfg.ServerWaitMax, Snoozes: cfg.ServerWaitSnoozes}
	observe := observerOf(m)
	rc.Middleware = append([]rivertype.Middleware{&jobMetrics{m: m}, &jobCost{st: st, m: m, log: log}}, workers.Middleware(st, waits, observe, log)...)
	rc.Middleware = append(rc.Middleware, workers.PausedTasks(st, cfg.PausedSnooze), workers.FairShares(st, cfg.OrgShare, cfg.OrgShareSnooze))
	rc.Workers = registry
	return &Parts{Workers: set, Fetcher: svc.fetcher, River: rc, services: svc}, nil
}

// riverSettings is the River client configuration of a worker without its
// middleware, workers and queues.
func riverSettings(cfg config.Config, log *slog.Logger) *river.Config {
	return &river.Config{
		Logger:               log,
		JobTimeout:           cfg.JobTimeout,
		RescueStuckJobsAfter: cfg.RescueStuckAfter,
		FetchCooldown:        50 * time.Millisecond,
		FetchPollInterval:    500 * time.Millisecond,
		PollOnly:             cfg.DBPooler == config.PoolerTransaction,
	}
}

// services are what a worker process's jobs use, built once from its
// configuration: models, fetcher, search and academic APIs, the domain
// policy, the page memory budget and verify_nli's task indexes.
type services struct {
	models    configured.Models
	fetcher   *crawl.Fetcher
	sources   workers.TargetSources
	citations workers.CitationSource // nil without academic APIs
	policy    *domainpolicy.Policy
	memory    *membudget.Budget
	taskIndex *taskindex.Cache
}

// newServices builds the jobs' services from the configuration.
func newServices(cfg config.Config, log *slog.Logger, m *metrics.Metrics) (*services, error) {
	svc, err := newModelServices(cfg, log, m)
	if err != nil {
		return nil, err
	}
	fc := crawl.DefaultConfig()
	fc.UserAgent = cfg.UserAgent
	fc.Timeout = cfg.FetchTimeout
	fc.MaxBodyBytes = cfg.FetchMaxBytes
	fc.MaxRedirects = cfg.FetchRedirects
	fc.DomainDelay = cfg.FetchDelay
	fc.RespectRobots = cfg.RespectRobots
	fc.ReplayDir = cfg.ReplayDir
	fc.AllowPrivate = cfg.AllowPrivateIPs
	if cfg.ReplayDir != "" || cfg.FetchDelay <= 0 {
		fc.DomainDelay = -1 // no floor asked for, or nothing to be polite to
	}
	if svc.fetcher, err = crawl.New(fc); err != nil {
		return nil, fmt.Errorf("fetcher: %w", err)
	}
	plan := PageMemoryPlan(cfg, membudget.MemoryLimit())
	svc.memory = plan.New()
	if log != nil {
		log.Info(plan.String(), slog.Int64("page_memory_budget_bytes", plan.Budget), slog.Int64("page_memory_max_bytes", plan.PageMax))
	}
	return svc, nil
}

// workers builds one worker of every kind on st, each with what it uses.
func (svc *services) workers(cfg config.Config, st *store.Store, m *metrics.Metrics, log *slog.Logger) workers.Set {
	observe := observerOf(m)
	mc := cfg.Models()
	embed := workers.EmbedConfig{BatchSize: mc["embed"].Batch}
	pages := workers.PageSettings{Policy: svc.policy, Embed: embed, Extract: workers.ExtractConfig{
		Fragments:        extract.FragmentOptions{MaxRunes: cfg.FragmentMax},
		MaxClaimsPerPage: cfg.ClaimsPerPage,
		MaxElements:      cfg.PageMaxElements,
		MaxFragments:     cfg.PageMaxFragments,
	}}
	md := svc.models
	verify := workers.VerifyConfigFrom(cfg, md.MinSimilarity)
	recall := workers.NewRecaller(st, md.Embedder, svc.taskIndex, verify.Recall(), observe)
	return workers.Set{
		TargetQueue:   workers.NewTargetQueueWorker(st, svc.fetcher, md.Embedder, md.LLM, svc.sources, pages, svc.memory, observe, log),
		Embed:         workers.NewEmbedWorker(st, md.Embedder, embed, log),
		VerifyNLI:     workers.NewVerifyNLIWorker(st, md.Embedder, md.NLI, recall, verify, observe, log),
		Rerank:        workers.NewRerankWorker(st, md.Embedder, md.Reranker, workers.RerankConfigFrom(cfg), log),
		CitationGraph: workers.NewCitationGraphWorker(st, svc.citations, md.Embedder, md.LLM, pages, observe, log),
		Cleanup:       workers.NewCleanupWorker(st, 0, log),
		Recheck: workers.NewRecheckWorker(st, svc.fetcher, pages, workers.RecheckSettings{Every: cfg.RecheckEvery, MaxAge: cfg.RecheckMaxAge,
			DailyFetches: cfg.RecheckDaily}, svc.memory, observe, log),
	}
}

// observerOf is what the workers report to: m, or none when m is nil (a
// nil *metrics.Metrics would be a non-nil Observer).
func observerOf(m *metrics.Metrics) workers.Observer {
	if m == nil {
		return nil
	}
	return m
}

// PageMemoryPlan is the byte budget of a worker's page work
// (membudget.Derive) for cfg under the memory limit lim: `worker config`
// prints it, and the worker admits its pages by it.
func PageMemoryPlan(cfg config.Config, lim membudget.Limit) membudget.Plan {
	return membudget.Derive(membudget.Settings{BudgetMB: cfg.PageMemoryMB, TargetJobs: targetJobs(cfg),
		MaxBodyBytes: cfg.FetchMaxBytes, PageMax: pageproc.MaxEstimate(pageproc.Config{MaxElements: cfg.PageMaxElements}, cfg.FetchMaxBytes)}, lim)
}

// targetJobs is how many target_queue jobs the process runs at once (0
// when it does not serve the target queue).
func targetJobs(cfg config.Config) int {
	if slices.Contains(cfg.Queues, "target") {
		return cfg.TargetWorkers
	}
	return 0
}

// newSearcher is the search backend of query targets: SearxNG at
// EVF_SEARCH_URL; else, with a replay archive, the archive's offline BM25
// index (built on the first search); else none.
func newSearcher(cfg config.Config, log *slog.Logger) (search.Searcher, error) {
	switch {
	case cfg.SearchURL != "":
		s, err := search.NewSearXNG(cfg.SearchURL, cfg.FetchTimeout)
		if err != nil {
			return nil, fmt.Errorf("EVF_SEARCH_URL: %w", err)
		}
		return s, nil
	case cfg.ReplayDir != "":
		if log != nil {
			log.Info("search: offline BM25 over the replay archive (EVF_REPLAY_DIR, no EVF_SEARCH_URL)", slog.String("dir", cfg.ReplayDir))
		}
		return offline.New(cfg.ReplayDir, offline.Options{MaxBytes: cfg.FetchMaxBytes, MaxElements: cfg.PageMaxElements}), nil
	}
	if log != nil {
		log.Info("no search backend (EVF_SEARCH_URL): query targets will fail with a clear error")
	}
	return nil, nil
}

// newModelServices builds the services other than the fetcher and the
// page memory: models, search, academic APIs, the domain policy and the
// task indexes.
func newModelServices(cfg config.Config, log *slog.Logger, m *metrics.Metrics) (*services, error) {
	models, err := configured.New(cfg, m)
	if err != nil {
		return nil, err
	}
	searcher, err := newSearcher(cfg, log)
	if err != nil {
		return nil, err
	}
	svc := &services{models: models, sources: workers.TargetSources{Search: searcher, SearchResults: cfg.SearchResults},
		taskIndex: taskindex.NewCache(int64(cfg.TaskIndexMB) << 20)}
	if r, err := newPaperResolver(cfg, m, log); err != nil {
		return nil, err
	} else if r != nil { // stay nil interfaces without APIs
		svc.sources.Papers, svc.sources.Scholar, svc.citations = r, r, r
	}
	if svc.policy, err = domainpolicy.Load(cfg.DomainPolicy); err != nil {
		return nil, err
	}
	return svc, nil
}

// PoolSize is the connection pool size for the configured concurrency: one
// connection per concurrent job, plus River's own (producers, leader,
// notifier) and the health checks.
func PoolSize(cfg config.Config) int32 {
	total := 0
	conc := cfg.Concurrency()
	for _, q := range cfg.Queues {
		total += conc[q]
	}
	return int32(total + 6)
}

// NewPool connects to cfg.DatabaseURL with a pool sized for the configured
// queue concurrency (PoolSize) that counts its round trips in m. Its
// connections run with the configured statement, lock and
// idle-in-transaction timeouts, and plan every statement when it runs
// (pgx's QueryExecModeCacheDescribe: unnamed statements, their result types
// cached), unless the URL sets these itself (default_query_exec_mode).
//
// Why plan each time: with named prepared statements (pgx's default),
// Postgres may settle on a generic plan after five runs and keep it for
// the connection's life. One made while edges was small — a fresh fleet,
// or the bench's reset — scanned it whole for every claim of JudgedPairs
// (0.3 ms became up to 120 ms), and a run's verify_nli rate depended on
// which connections had settled when (make bench: 850 to 1,850 claims/s
// between runs of one load; planned each time, 1,470 to 1,560).
// Unnamed statements also pass through a transaction-mode pooler.
func NewPool(ctx context.Context, cfg config.Config, m *metrics.Metrics) (*pgxpool.Pool, error) {
	pcfg, err := store.PoolConfig(cfg.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	pcfg.MaxConns = max(pcfg.MaxConns, PoolSize(cfg))
	pcfg.ConnConfig.Tracer = roundTripTracer{m}
	if cfg.DBPooler != config.PoolerTransaction {
		setTimeouts(pcfg.ConnConfig, cfg)
	}
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if cfg.DBPooler == config.PoolerTransaction {
		if err := checkPooledTimeouts(ctx, pool, cfg); err != nil {
			pool.Close()
			return nil, err
		}
	}
	return pool, nil
}

// sessionTimeout is one per-session protection of the worker's
// connections and its configured value.
type sessionTimeout struct {
	name string
	d    time.Duration
}

// sessionTimeouts are the per-session protections, in a fixed order.
func sessionTimeouts(cfg config.Config) []sessionTimeout {
	return []sessionTimeout{{"statement_timeout", cfg.DBStatementTimeout},
		{"lock_timeout", cfg.DBLockTimeout}, {"idle_in_transaction_session_timeout", cfg.DBIdleInTxTimeout}}
}

// setTimeouts sends the configured timeouts as startup parameters, those
// the connection string does not set itself.
func setTimeouts(cc *pgx.ConnConfig, cfg config.Config) {
	for _, t := range sessionTimeouts(cfg) {
		if _, set := cc.RuntimeParams[t.name]; !set {
			cc.RuntimeParams[t.name] = strconv.FormatInt(t.d.Milliseconds(), 10)
		}
	}
}

// checkPooledTimeouts fails when a timeout the configuration bounds is
// unbounded on the server connections behind a transaction-mode pooler.
// Such a pooler passes no startup parameters (PgBouncer refuses them) and
// a SET would stay on a server connection other clients then get, so the
// timeouts must come from the role or the database.
func checkPooledTimeouts(ctx context.Context, pool *pgxpool.Pool, cfg config.Config) error {
	got, err := store.New(pool).SessionTimeouts(ctx)
	if err != nil {
		return fmt.Errorf("EVF_DB_POOLER=transaction: read the pooled sessions' timeouts: %w", err)
	}
	have := map[string]int64{"statement_timeout": got.StatementTimeout, "lock_timeout": got.LockTimeout,
		"idle_in_transaction_session_timeout": got.IdleInTransactionSessionTimeout}
	var unbounded, fixes []string
	role := pgx.Identifier{pool.Config().ConnConfig.User}.Sanitize()
	for _, t := range sessionTimeouts(cfg) {
		if t.d > 0 && have[t.name] == 0 {
			unbounded = append(unbounded, t.name)
			fixes = append(fixes, fmt.Sprintf("ALTER ROLE %s SET %s = '%dms';", role, t.name, t.d.Milliseconds()))
		}
	}
	if len(unbounded) > 0 {
		return fmt.Errorf("EVF_DB_POOLER=transaction: %s unbounded on the connections the pooler gives (startup parameters do not pass a transaction pooler); set them on the role: %s",
			strings.Join(unbounded, ", "), strings.Join(fixes, " "))
	}
	return nil
}

// New connects and builds a worker; Start runs it.
func New(ctx context.Context, cfg config.Config, log *slog.Logger, opts ...Option) (*Worker, error) {
	m := metrics.New()
	pool, err := NewPool(ctx, cfg, m)
	if err != nil {
		return nil, err
	}
	if err := migrations.Check(ctx, pool); err != nil {
		pool.Close()
		return nil, store.ExplainDB(err)
	}
	w := &Worker{cfg: cfg, log: log, pool: pool, metrics: m}
	parts, err := Build(cfg, store.NewStore(pool), log, m, opts...)
	if err != nil {
		pool.Close()
		return nil, err
	}
	w.fetcher, w.jobs = parts.Fetcher, parts.services
	queues, err := workers.Queues(cfg.Queues, cfg.Concurrency())
	if err != nil {
		parts.Fetcher.Close()
		pool.Close()
		return nil, err
	}
	rc := parts.River
	w.id = newClientID()
	rc.ID = w.id
	rc.Queues = queues
	rc.PeriodicJobs = periodicJobs(cfg, queues)
	served := map[string]string{}
	for kind, queue := range jobs.KindQueues {
		if _, ok := queues[queue]; ok {
			served[kind] = queue
		}
	}
	m.PrepareJobs(served)
	slots := map[string]int{}
	for _, q := range jobs.AllQueues {
		slots[q] = queues[q].MaxWorkers
	}
	m.Worker(version(), slots)
	statsLog := log
	if statsLog == nil {
		statsLog = slog.New(slog.DiscardHandler)
	}
	m.Registry.MustRegister(newQueueStats(store.New(pool), jobs.AllQueues, cfg.QueueStatsTTL, statsLog),
		newSourceStats(store.New(pool), cfg.QueueStatsTTL, statsLog))
	w.client, err = river.NewClient(riverpgxv5.New(pool), rc)
	if err != nil {
		parts.Fetcher.Close()
		pool.Close()
		return nil, fmt.Errorf("river client: %w", err)
	}
	return w, nil
}

// Client is the River client (for inserting jobs in tests and tools).
func (w *Worker) Client() *river.Client[pgx.Tx] { return w.client }

// Pool is the worker's connection pool.
func (w *Worker) Pool() *pgxpool.Pool { return w.pool }

// Metrics are the worker's collectors.
func (w *Worker) Metrics() *metrics.Metrics { return w.metrics }

// Handler serves /metrics, /healthz and /readyz.
func (w *Worker) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(w.metrics.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(rw http.ResponseWriter, _ *http.Request) {
		rw.WriteHeader(http.StatusOK)
		_, _ = rw.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(rw http.ResponseWriter, r *http.Request) {
		if !w.ready.Load() {
			http.Error(rw, "not ready: job client not running", http.StatusServiceUnavailable)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := w.pool.Ping(ctx); err != nil {
			http.Error(rw, "not ready: database: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		_, _ = rw.Write([]byte("ok\n"))
	})
	return mux
}

// Start starts working jobs.
func (w *Worker) Start(ctx context.Context) error {
	// Jobs carry the belief numbers (EVF_BELIEF_*) and the trust quorum
	// (EVF_TRUST_QUORUM_ORGS) the store's
	// recomputations read: River's job contexts derive from this one.
	ctx = verification.WithQuorum(belief.WithParams(ctx, w.cfg.Belief.Params()), w.cfg.TrustQuorumOrgs)
	// The policy this process starts with is the policy of record: domains
	// whose level a former policy gave them take this one's (a reload).
	if err := w.applyPolicy(ctx); err != nil {
		return err
	}
	// The liveness lock first: no job is attempted by a process without it.
	ll, err := startLifeline(ctx, w.cfg, w.pool, w.id, w.cfg.LifelineInterval, w.metrics, w.logger())
	if err != nil {
		return err
	}
	if err := w.client.Start(ctx); err != nil {
		ll.close()
		return fmt.Errorf("start river client: %w", err)
	}
	lifeCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	w.lifeline, w.stopLife, w.lost, w.lifeDone = ll, stop, make(chan error, 1), make(chan struct{})
	go func() {
		defer close(w.lifeDone)
		if err := ll.run(lifeCtx); err != nil {
			w.lost <- err
		}
	}()
	go w.settleTasks(lifeCtx)
	w.ready.Store(true)
	return nil
}

// settleTasks runs, every EVF_TASK_SETTLE_INTERVAL until ctx ends, the
// retrieval planner (internal/planner: the next step of self-directed
// tasks whose work is done) and then the settle sweep (store.SettleTasks):
// tasks with no job left are completed, completed ones given work
// reopened. A failed sweep is logged and the next one tries again.
func (w *Worker) settleTasks(ctx context.Context) {
	st := store.NewStore(w.pool)
	plan := planner.New(st, w.client, w.logger())
	plan.NoSearch = w.jobs.sources.Search == nil // its queries are web searches
	if w.cfg.LLM.Backend != "builtin" {
		plan.LLM = w.jobs.models.LLM // the built-in is no language model: it splits nothing
	}
	t := time.NewTicker(w.cfg.TaskSettle)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		stepped, err := plan.Sweep(ctx, 100)
		switch {
		case err != nil && ctx.Err() == nil:
			w.logger().Warn("retrieval planner failed", slog.Any("error", err))
		case len(stepped) > 0:
			w.logger().Info("retrieval planned", slog.Any("tasks", stepped))
		}
		res, err := st.SettleTasks(ctx, 500)
		switch {
		case err != nil && ctx.Err() == nil:
			w.logger().Warn("task settle sweep failed", slog.Any("error", err))
		case len(res.Completed) > 0 || len(res.Reopened) > 0:
			w.logger().Info("tasks settled", slog.Any("completed", res.Completed), slog.Any("reopened", res.Reopened))
		}
	}
}

// applyPolicy reloads the domain policy into the levels of record
// (store.ApplyPolicy) before any job runs.
func (w *Worker) applyPolicy(ctx context.Context) error {
	policy := w.jobs.policy
	n, err := store.NewStore(w.pool).ApplyPolicy(ctx, func(domain string) store.PolicyLevel {
		d := policy.Decide(domain)
		return store.PolicyLevel{Level: d.Level, Rule: d.Rule}
	}, 1000)
	if err != nil {
		return err
	}
	if n > 0 {
		w.logger().Info("domain policy applied to the levels of record", slog.Int("domains_changed", n))
	}
	return nil
}

// Lost is closed over the lifeline's failure: its connection ended, other
// processes may take this one's jobs, so it must stop. Nil before Start.
func (w *Worker) Lost() <-chan error { return w.lost }

// ID is the process's River client id (attempted_by of its jobs).
func (w *Worker) ID() string { return w.id }

func (w *Worker) logger() *slog.Logger {
	if w.log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.log
}

// Stop stops fetching new jobs and waits up to timeout for running ones,
// then cancels what is left and waits for it to return.
func (w *Worker) Stop(timeout time.Duration) error {
	w.ready.Store(false)
	soft, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := w.client.Stop(soft)
	if errors.Is(err, context.DeadlineExceeded) {
		w.log.Warn("soft stop timed out; cancelling running jobs", slog.Duration("timeout", timeout))
		hard, cancelHard := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancelHard()
		err = w.client.StopAndCancel(hard)
	}
	if w.lifeline != nil {
		w.stopLife()
		// The loop's Ping uses the lifeline's connection, which is not
		// safe for concurrent use: close it only once the loop returned.
		<-w.lifeDone
		w.lifeline.close()
	}
	w.fetcher.Close()
	w.pool.Close()
	return err
}

// Run starts the worker and its HTTP server and blocks until ctx ends, then
// shuts down gracefully.
func Run(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	w, err := New(ctx, cfg, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.MetricsAddr)
	if err != nil {
		_ = w.Stop(0)
		return fmt.Errorf("listen %s: %w", cfg.MetricsAddr, err)
	}
	srv := &http.Server{Handler: w.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("operations server stopped", slog.Any("error", err))
		}
	}()
	// River cancels running jobs when the start context ends: give it one
	// that does not, so SIGTERM goes through Stop's soft phase first.
	if err := w.Start(context.WithoutCancel(ctx)); err != nil {
		_ = srv.Close()
		_ = w.Stop(0)
		return err
	}
	log.Info("worker started", slog.String("client_id", w.ID()), slog.Any("queues", cfg.Queues), slog.String("ops_addr", ln.Addr().String()),
		slog.String("embedder", w.jobs.models.Embedder.Model()), slog.String("nli", w.jobs.models.NLI.Model()),
		slog.String("reranker", w.jobs.models.Reranker.Model()), slog.String("llm", w.jobs.models.LLM.Model()),
		slog.Bool("replay", cfg.ReplayDir != ""))
	if banner := modelcard.Banner([]string{w.jobs.models.Embedder.Model(), w.jobs.models.NLI.Model(), w.jobs.models.Reranker.Model(), w.jobs.models.LLM.Model()}); banner != "" {
		log.Warn(banner)
	}
	var lost error
	timeout := cfg.ShutdownTimeout
	select {
	case <-ctx.Done():
		log.Info("shutting down", slog.Duration("timeout", timeout))
	case lost = <-w.Lost():
		// Others may already be rescuing this process's jobs: cancel them
		// now rather than finish them twice.
		log.Error("stopping at once: this process can no longer prove it is alive", slog.Any("error", lost))
		timeout = 0
	}
	stopErr := w.Stop(timeout)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx)
	if stopErr != nil {
		return fmt.Errorf("stop: %w", stopErr)
	}
	if lost != nil {
		return lost
	}
	log.Info("worker stopped")
	return nil
}

// periodicJobs are the jobs the elected leader enqueues on a schedule: the
// orphan sweep (cleanup mode orphans) every EVF_ORPHAN_SWEEP_INTERVAL and
// the recheck sweep every EVF_RECHECK_SWEEP_INTERVAL. Every process
// registers them, whatever queues it serves: River enqueues periodic jobs
// only from the elected leader, which may be any process, and each sweep's
// job goes to its kind's queue whoever inserts it.
func periodicJobs(cfg config.Config, _ map[string]river.QueueConfig) []*river.PeriodicJob {
	var out []*river.PeriodicJob
	if cfg.OrphanSweep > 0 {
		out = append(out, river.NewPeriodicJob(river.PeriodicInterval(cfg.OrphanSweep),
			func() (river.JobArgs, *river.InsertOpts) { return jobs.CleanupArgs{Mode: jobs.CleanupOrphans}, nil }, nil))
	}
	if cfg.RecheckSweep > 0 {
		out = append(out, river.NewPeriodicJob(river.PeriodicInterval(cfg.RecheckSweep),
			func() (river.JobArgs, *river.InsertOpts) { return jobs.RecheckArgs{}, nil }, nil))
	}
	return out
}

// newPaperResolver builds the academic clients the configuration names. In
// replay mode (no network) the public default URLs are not used; an
// explicitly configured URL is. nil when none is configured: academic steps
// are then skipped with a log line and a metric.
func newPaperResolver(cfg config.Config, m *metrics.Metrics, log *slog.Logger) (*papers.Resolver, error) {
	var err error
	r := &papers.Resolver{}
	s2URL, oaURL := cfg.S2URL, cfg.OpenAlexURL
	if cfg.ReplayDir != "" {
		if s2URL == s2.DefaultBaseURL {
			s2URL = ""
		}
		if oaURL == openalex.DefaultBaseURL {
			oaURL = ""
		}
	}
	httpOpts := httpx.Options{Timeout: cfg.FetchTimeout, MaxRetries: 3, Observer: m}
	if s2URL != "" {
		if r.S2, err = s2.New(s2.Options{BaseURL: s2URL, APIKey: cfg.S2APIKey, UserAgent: cfg.UserAgent, HTTP: httpOpts}); err != nil {
			return nil, fmt.Errorf("EVF_S2_URL: %w", err)
		}
	}
	if oaURL != "" {
		if r.OpenAlex, err = openalex.New(openalex.Options{BaseURL: oaURL, APIKey: cfg.OpenAlexAPIKey, Mailto: cfg.OpenAlexMailto,
			UserAgent: cfg.UserAgent, HTTP: httpOpts}); err != nil {
			return nil, fmt.Errorf("EVF_OPENALEX_URL: %w", err)
		}
	}
	if r.S2 == nil && r.OpenAlex == nil {
		if log != nil {
			log.Info("no academic API configured (EVF_S2_URL, EVF_OPENALEX_URL, or replay mode): DOI resolution and citation graphs are skipped")
		}
		return nil, nil
	}
	return r, nil
}
