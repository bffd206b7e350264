package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/jobs"
)

// verifyRun is one burn-down of the synthetic task's verify_nli jobs.
type verifyRun struct {
	jobs, claims, edges int
	span                time.Duration // the warm pass's
	coldSpan            time.Duration // the first pass's, in which each process loads the task's index
	procs               []procStats
	server              *procStats // the instant NLI server's, when one ran
	dbCPU               float64    // the Postgres server's CPU seconds during the run
	dbCPUKnown          bool       // false when the server is not on this machine
	conns               connPeak   // the database's connections during the warm pass
}

// machineCPU is the CPU seconds the run took on the machine: the workers',
// the model server's and Postgres's.
func (r verifyRun) machineCPU() float64 {
	var s float64
	for _, p := range r.procs {
		s += p.CPUSeconds
	}
	if r.server != nil {
		s += r.server.CPUSeconds
	}
	return s + r.dbCPU
}

// nliArm is one NLI model the verify section runs the fleet with.
type nliArm struct {
	name   string
	env    []string // added to the worker children's environment
	server bool     // the instant NLI over HTTP: a server child runs beside the workers
	dbURL  string   // the workers' DATABASE_URL when not the database's own (a pooler's)
	conns  bool     // count the database's connections during the warm pass (verifyRun.conns)
}

var (
	builtinArm  = nliArm{name: "built-in NLI"}
	instantArm  = nliArm{name: "instant NLI in process", env: []string{nliEnv + "=" + instantInProcess}}
	instantHTTP = nliArm{name: "instant NLI over HTTP, TEI /predict", server: true}
)

// verify measures verify_nli on a synthetic task of VerifyClaims claims ×
// VerifyFragments fragments, in jobs of ClaimsPerJob claims: with the
// built-in NLI and with the instant one (in process and over HTTP), so that
// the fleet's own cost shows apart from the model's; then with and without
// trust stamping (section "stamping", stamping.go); then the same load with
// 1, 2 and 4 processes, with both models.
func (h *harness) verify(ctx context.Context, b baseline) error {
	env, err := h.synthEnv(ctx)
	if err != nil {
		return err
	}
	defer env.done()
	pool, dbURL, sp, models := env.pool, env.url, env.sentences, env.models
	begin := time.Now()
	task, err := loadTask(ctx, pool, models.Embedder, sp, taskSpec{
		Claims: h.opts.VerifyClaims, Fragments: h.opts.VerifyFragments,
		Related: max(1, h.opts.VerifyFragments/max(1, h.opts.VerifyClaims)), Domains: 40, FragsPerPage: 20,
		DomainPrefix: "v", Seed: 1,
	})
	if err != nil {
		return err
	}
	h.logf("verify_nli: loaded %d claims, %d fragments on %d pages in %.1fs", len(task.ClaimIDs), task.Fragments, task.Pages, time.Since(begin).Seconds())
	if h.want("verify") {
		cpu := map[string]float64{}
		for _, arm := range []nliArm{builtinArm, instantArm, instantHTTP} {
			if cpu[arm.name], err = h.verifyRates(ctx, pool, dbURL, task, b, arm); err != nil {
				return fmt.Errorf("%s: %w", arm.name, err)
			}
		}
		h.verifyShares(cpu)
	}
	if h.want("verify") || h.want(StampingSection) {
		if err := h.verifyStamping(ctx, pool, dbURL, task); err != nil {
			return err
		}
	}
	if h.want("verify") || h.want(PoolerSection) {
		if err := h.verifyPooled(ctx, pool, dbURL, task); err != nil {
			return fmt.Errorf("through PgBouncer: %w", err)
		}
	}
	if h.want("verify") {
		for _, arm := range []nliArm{builtinArm, instantArm} {
			if err := h.verifyScaling(ctx, pool, dbURL, task, arm); err != nil {
				return fmt.Errorf("%s: %w", arm.name, err)
			}
		}
	}
	return nil
}

// verifyRates measures one process burning the task down with arm's model,
// Reps times, and returns the median worker CPU seconds per claim.
func (h *harness) verifyRates(ctx context.Context, pool *pgxpool.Pool, dbURL string, task synthTask, b baseline, arm nliArm) (float64, error) {
	sec := fmt.Sprintf("verify_nli (%s; %d claims × %d fragments, %d claims per job, %d workers)",
		arm.name, len(task.ClaimIDs), task.Fragments, h.opts.ClaimsPerJob, h.opts.NLIWorkers)
	var claimRates, coldRates, edgeRates, jobRates, trips, cpu, dbCPU, serverCPU, perClaim, perEdge, rss, pairs, cpuPerClaim []float64
	dbKnown := true
	for rep := range h.opts.Reps {
		r, err := h.runVerify(ctx, pool, dbURL, task, 1, "fleet", arm)
		if err != nil {
			return 0, err
		}
		claimRates = append(claimRates, rate(r.claims, r.span))
		coldRates = append(coldRates, rate(r.claims, r.coldSpan))
		edgeRates = append(edgeRates, rate(r.edges, r.span))
		jobRates = append(jobRates, rate(r.jobs, r.span))
		trips = append(trips, r.procs[0].RoundTrips/float64(r.jobs))
		cpu = append(cpu, r.procs[0].CPUSeconds/float64(r.jobs)*1000)
		cpuPerClaim = append(cpuPerClaim, r.procs[0].CPUSeconds/float64(r.claims))
		dbCPU = append(dbCPU, r.dbCPU/float64(r.jobs)*1000)
		dbKnown = dbKnown && r.dbCPUKnown
		if r.server != nil {
			serverCPU = append(serverCPU, r.server.CPUSeconds/float64(r.jobs)*1000)
		}
		perClaim = append(perClaim, r.machineCPU()/float64(r.claims)*1e3)
		perEdge = append(perEdge, r.machineCPU()/float64(max(1, r.edges))*1e6)
		rss = append(rss, float64(r.procs[0].MaxRSS)/(1<<20))
		pairs = append(pairs, float64(r.edges)/float64(r.claims))
		h.logf("verify_nli (%s) rep %d: %.0f claims/s, %.0f edges/s", arm.name, rep+1, claimRates[rep], edgeRates[rep])
	}
	h.add(sec, "claims verified", claimRates, "claims/s", "")
	h.add(sec, "claims verified, first pass (the process loads the task's index)", coldRates, "claims/s", "")
	h.add(sec, "NLI edges written", edgeRates, "edges/s", "")
	h.add(sec, "edges per claim", pairs, "edges", "")
	h.add(sec, "jobs worked", jobRates, "jobs/s", "")
	h.compare(fmt.Sprintf("no-op, %d slots", h.opts.NLIWorkers), b.slotRate, "jobs/s")
	h.add(sec, "database round trips per job (River's included)", trips, "trips", "")
	h.compare("no-op", b.tripsPer, "trips")
	h.add(sec, "worker CPU per 1,000 jobs", cpu, "CPU s", "")
	h.compare("no-op", b.cpuPer1k, "CPU s")
	if dbKnown {
		h.add(sec, "Postgres CPU per 1,000 jobs", dbCPU, "CPU s", "")
	}
	if len(serverCPU) > 0 {
		h.add(sec, "model server CPU per 1,000 jobs", serverCPU, "CPU s", "")
	}
	if dbKnown {
		h.add(sec, "machine CPU per claim (worker, model server and Postgres)", perClaim, "ms", "")
		h.add(sec, "machine CPU per edge (worker, model server and Postgres)", perEdge, "µs", "")
	}
	h.add(sec, "worker peak RSS", rss, "MB", "")
	h.compare("no-op", b.rss, "MB")
	return median(cpuPerClaim), nil
}

// verifyShares reports how much of the built-in run's worker CPU the model
// took: what the instant run does not spend.
func (h *harness) verifyShares(cpuPerClaim map[string]float64) {
	built, inst := cpuPerClaim[builtinArm.name], cpuPerClaim[instantArm.name]
	if built <= 0 {
		return
	}
	const sec = "verify_nli: the fleet's cost and the model's (1 process, medians of the runs above)"
	h.add(sec, "worker CPU per claim, built-in NLI", []float64{built * 1e3}, "ms", "")
	h.add(sec, "worker CPU per claim, instant NLI (the fleet's own)", []float64{inst * 1e3}, "ms", "")
	h.add(sec, "the built-in model's share of the worker CPU", []float64{(built - inst) / built}, "fraction", "")
}

// verifyScaling measures the same load with each of Procs processes, warm
// (each has its index of the task) and in the first pass.
func (h *harness) verifyScaling(ctx context.Context, pool *pgxpool.Pool, dbURL string, task synthTask, arm nliArm) error {
	scale := fmt.Sprintf("verify_nli scaling (%s; same load, %d workers per process)", arm.name, h.opts.NLIWorkers)
	for _, n := range h.opts.Procs {
		var total, per, cold []float64
		for range h.opts.Reps {
			r, err := h.runVerify(ctx, pool, dbURL, task, n, "fleet", arm)
			if err != nil {
				return err
			}
			total = append(total, rate(r.claims, r.span))
			per = append(per, rate(r.claims, r.span)/float64(n))
			cold = append(cold, rate(r.claims, r.coldSpan))
		}
		h.add(scale, fmt.Sprintf("%d process(es): total", n), total, "claims/s", "")
		h.add(scale, fmt.Sprintf("%d process(es): per process", n), per, "claims/s", "")
		h.add(scale, fmt.Sprintf("%d process(es): total, first pass (each process loads the task's index)", n), cold, "claims/s", "")
		h.logf("verify_nli (%s) with %d processes: %.0f claims/s", arm.name, n, median(total))
	}
	return nil
}

// compare fills the River column of the last row with River's figure of the
// same measure and the ratio. Only like compares with like: a row whose unit
// is not the River figure's is a bug of the harness.
func (h *harness) compare(name string, river float64, unit string) {
	r := &h.rep.Rows[len(h.rep.Rows)-1]
	r.Baseline = comparison(r.Metric, r.Value, r.Unit, name, river, unit)
}

// comparison formats "name river unit: ×value/river", panicking when the
// units differ (claims/s against jobs/s, say).
func comparison(metric string, value float64, unit, name string, river float64, riverUnit string) string {
	if unit != riverUnit {
		panic(fmt.Sprintf("bench: %q in %s compared with %s in %s", metric, unit, name, riverUnit))
	}
	format := "%s %.0f %s: %s"
	if river < 100 {
		format = "%s %.2f %s: %s"
	}
	return fmt.Sprintf(format, name, river, unit, ratio(value, river))
}

// runVerify burns the task's verify_nli jobs down with procs worker
// processes of mode, judging with arm's model, twice in the same processes:
// a cold pass, in which every process loads the task's index (its time is
// coldSpan), then, the edges and jobs cleared, the measured warm pass. The
// processes' and the servers' CPU are read from /proc at the warm pass's
// ends; peak RSS is the processes' whole life, round trips half of it.
func (h *harness) runVerify(ctx context.Context, pool *pgxpool.Pool, dbURL string, task synthTask, procs int,
	mode string, arm nliArm) (verifyRun, error) {
	var r verifyRun
	if err := resetVerify(ctx, pool); err != nil {
		return r, err
	}
	workerURL := dbURL
	if arm.dbURL != "" {
		workerURL = arm.dbURL
	}
	env := append([]string{"DATABASE_URL=" + workerURL, "EVF_QUEUES=nli", fmt.Sprintf("EVF_NLI_WORKERS=%d", h.opts.NLIWorkers)}, arm.env...)
	var server *proc
	var ps []*proc
	stopAll := func() error {
		var first error
		for _, p := range ps {
			st, err := p.stop()
			if err != nil && first == nil {
				first = err
			}
			r.procs = append(r.procs, st)
		}
		if server != nil {
			st, err := server.stop()
			if err != nil && first == nil {
				first = fmt.Errorf("instant NLI server: %w", err)
			}
			r.server, server = &st, nil
		}
		return first
	}
	if arm.server {
		addr, err := freeAddr()
		if err != nil {
			return r, err
		}
		if server, err = startProc(h.opts.Exe, nil, instantServerMode, "-listen", addr); err != nil {
			return r, err
		}
		env = append(env, "EVF_NLI_BACKEND=tei", "EVF_NLI_URL=http://"+addr, "EVF_NLI_MODEL="+instantModel)
	}
	for range procs {
		p, err := startProc(h.opts.Exe, env, mode)
		if err != nil {
			_ = stopAll()
			return r, err
		}
		ps = append(ps, p)
	}
	cold, err := h.verifyPass(ctx, pool, task)
	if err == nil {
		r.coldSpan = cold.span
		err = resetVerify(ctx, pool)
	}
	var warm window
	var workerCPU, serverCPU []float64
	if err == nil {
		db := findServerCPU(ctx, pool)
		dbBefore, dbKnown := db.seconds()
		before, serverBefore := childCPU(ps), childCPU([]*proc{server})
		conns := func() connPeak { return connPeak{} }
		if arm.conns {
			conns = watchConns(ctx, pool)
		}
		warm, err = h.verifyPass(ctx, pool, task)
		r.conns = conns()
		after, serverAfter := childCPU(ps), childCPU([]*proc{server})
		if dbAfter, ok := db.seconds(); ok && dbKnown {
			r.dbCPU, r.dbCPUKnown = dbAfter-dbBefore, true
		}
		for i := range after {
			workerCPU = append(workerCPU, after[i]-before[i])
		}
		if server != nil {
			serverCPU = []float64{serverAfter[0] - serverBefore[0]}
		}
	}
	if stopErr := stopAll(); err == nil {
		err = stopErr
	}
	if err != nil {
		return r, err
	}
	for i := range r.procs {
		r.procs[i].CPUSeconds = workerCPU[i]
		r.procs[i].RoundTrips /= 2
	}
	if r.server != nil {
		r.server.CPUSeconds = serverCPU[0]
	}
	r.jobs, r.claims, r.span = warm.completed, len(task.ClaimIDs), warm.span
	if err := pool.QueryRow(ctx, `
		SELECT count(*) FROM edges e JOIN claims c ON c.id = e.target_id
		WHERE e.target_type = 'claim' AND e.source_type = 'fragment' AND c.task_id = $1`, task.ID).Scan(&r.edges); err != nil {
		return r, fmt.Errorf("count edges: %w", err)
	}
	return r, nil
}

// resetVerify clears the verify_nli jobs and the claims' NLI edges.
func resetVerify(ctx context.Context, pool *pgxpool.Pool) error {
	for _, q := range []string{
		"DELETE FROM river_job",
		"DELETE FROM edges WHERE target_type = 'claim'",
		"VACUUM (FULL, ANALYZE) edges, river_job",
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			return fmt.Errorf("reset: %s: %w", q, err)
		}
	}
	return nil
}

// verifyPass enqueues the task's verify_nli jobs, one shard of
// ClaimsPerJob claims each (the task's claim ids are consecutive), as a
// dispatch would with EVF_VERIFY_SHARD_CLAIMS = ClaimsPerJob, and waits
// until the running processes have worked them all.
func (h *harness) verifyPass(ctx context.Context, pool *pgxpool.Pool, task synthTask) (window, error) {
	client, err := insertOnlyClient(pool)
	if err != nil {
		return window{}, err
	}
	var params []river.InsertManyParams
	for i := 0; i < len(task.ClaimIDs); i += h.opts.ClaimsPerJob {
		ids := task.ClaimIDs[i:min(i+h.opts.ClaimsPerJob, len(task.ClaimIDs))]
		params = append(params, river.InsertManyParams{Args: jobs.VerifyShard(task.ID, ids[0], ids[len(ids)-1])})
	}
	if _, err := client.InsertMany(ctx, params); err != nil {
		return window{}, fmt.Errorf("insert verify_nli jobs: %w", err)
	}
	if err := waitDrained(ctx, pool, []string{jobs.KindVerifyNLI}, 30*time.Minute); err != nil {
		return window{}, err
	}
	w, err := jobWindow(ctx, pool, []string{jobs.KindVerifyNLI})
	if err != nil {
		return w, err
	}
	if w.completed != len(params) {
		return w, fmt.Errorf("%d of %d verify_nli jobs completed (%d failed)", w.completed, len(params), w.failed)
	}
	return w, nil
}

// childCPU reads the CPU seconds each running child has used so far (0 for
// a nil one, or one whose /proc entry cannot be read).
func childCPU(ps []*proc) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		if p == nil {
			continue
		}
		if st, err := readStat(p.cmd.Process.Pid); err == nil {
			out[i] = float64(st.utime+st.stime) / clockTicks
		}
	}
	return out
}
