package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/evidencefleet/evidencefleet/internal/workers"
)

// river measures River itself: InsertManyFast of no-op jobs in batches, and
// a burn-down of them by a child process running a River client with a
// no-op worker and the fleet's River settings; then burn-downs with as many
// slots as a verify_nli process has, with the fleet's fetch settings and
// with River's defaults: the most jobs a process of that many slots fetches.
func (h *harness) river(ctx context.Context) (baseline, error) {
	var b baseline
	pool, dbURL, done, err := h.scratch(ctx)
	if err != nil {
		return b, err
	}
	defer done()
	client, err := insertOnlyClient(pool)
	if err != nil {
		return b, err
	}
	n := h.opts.RiverJobs
	var inserts, works, cpu, rss, trips []float64
	for rep := range h.opts.Reps {
		if _, err := pool.Exec(ctx, "TRUNCATE river_job"); err != nil {
			return b, err
		}
		start := time.Now()
		for i := 0; i < n; i += h.opts.InsertBatch {
			params := make([]river.InsertManyParams, 0, h.opts.InsertBatch)
			for j := i; j < min(i+h.opts.InsertBatch, n); j++ {
				params = append(params, river.InsertManyParams{Args: NoopArgs{N: j}, InsertOpts: &river.InsertOpts{Queue: noopQueue}})
			}
			if _, err := client.InsertManyFast(ctx, params); err != nil {
				return b, fmt.Errorf("InsertManyFast: %w", err)
			}
		}
		inserts = append(inserts, rate(n, time.Since(start)))
		work, st, err := h.burnDownNoop(ctx, pool, dbURL, n, h.opts.NoopWorkers, false)
		if err != nil {
			return b, err
		}
		works = append(works, work)
		cpu = append(cpu, st.CPUSeconds/float64(n)*1000)
		rss = append(rss, float64(st.MaxRSS)/(1<<20))
		trips = append(trips, st.RoundTrips/float64(n))
		h.logf("river rep %d: insert %.0f jobs/s, work %.0f jobs/s", rep+1, inserts[len(inserts)-1], works[len(works)-1])
	}
	const sec = "River baseline (no-op jobs)"
	b.insertRate = h.add(sec, fmt.Sprintf("InsertManyFast, batches of %d", h.opts.InsertBatch), inserts, "jobs/s", "itself")
	b.workRate = h.add(sec, fmt.Sprintf("burn-down of %d jobs, %d workers, 1 process", n, h.opts.NoopWorkers), works, "jobs/s", "itself")
	b.cpuPer1k = h.add(sec, "worker CPU per 1,000 jobs", cpu, "CPU s", "itself")
	b.rss = h.add(sec, "worker peak RSS", rss, "MB", "itself")
	b.tripsPer = h.add(sec, "database round trips per job", trips, "trips", "itself")
	slots := h.opts.NLIWorkers
	for _, riverDefaults := range []bool{false, true} {
		cooldown := workers.FetchCooldown(slots)
		settings := fmt.Sprintf("the fleet's fetch settings (cooldown %s, poll 500 ms)", cooldown)
		if riverDefaults {
			cooldown = river.FetchCooldownDefault
			settings = fmt.Sprintf("River's default fetch settings (cooldown %s, poll %s)", cooldown, river.FetchPollIntervalDefault)
		}
		// about ten seconds at the ceiling of slots jobs a cooldown
		n := min(h.opts.RiverJobs, int(10*time.Second/cooldown)*slots)
		var rates []float64
		for range h.opts.Reps {
			r, err := h.noopBurnDown(ctx, pool, dbURL, n, slots, riverDefaults)
			if err != nil {
				return b, err
			}
			rates = append(rates, r)
		}
		v := h.add(sec, fmt.Sprintf("burn-down of %d jobs, %d workers (a verify_nli process's slots), %s", n, slots, settings),
			rates, "jobs/s", "itself")
		if !riverDefaults {
			b.slotRate = v
		}
	}
	return b, nil
}

// noopBurnDown inserts n no-op jobs and times one child with slots workers
// burning them down.
func (h *harness) noopBurnDown(ctx context.Context, pool *pgxpool.Pool, dbURL string, n, slots int, riverDefaults bool) (float64, error) {
	if _, err := pool.Exec(ctx, "TRUNCATE river_job"); err != nil {
		return 0, err
	}
	client, err := insertOnlyClient(pool)
	if err != nil {
		return 0, err
	}
	params := make([]river.InsertManyParams, n)
	for i := range params {
		params[i] = river.InsertManyParams{Args: NoopArgs{N: i}, InsertOpts: &river.InsertOpts{Queue: noopQueue}}
	}
	if _, err := client.InsertManyFast(ctx, params); err != nil {
		return 0, fmt.Errorf("InsertManyFast: %w", err)
	}
	work, _, err := h.burnDownNoop(ctx, pool, dbURL, n, slots, riverDefaults)
	if err == nil {
		h.logf("river: %d no-op jobs, %d slots (River's defaults: %v): %.0f jobs/s", n, slots, riverDefaults, work)
	}
	return work, err
}

// burnDownNoop times one child with slots workers working the n no-op jobs
// waiting, and returns the rate and what the child used.
func (h *harness) burnDownNoop(ctx context.Context, pool *pgxpool.Pool, dbURL string, n, slots int, riverDefaults bool) (float64, procStats, error) {
	args := []string{"-workers", fmt.Sprint(slots)}
	if riverDefaults {
		args = append(args, "-river-defaults")
	}
	p, err := startProc(h.opts.Exe, []string{"DATABASE_URL=" + dbURL}, "noop", args...)
	if err != nil {
		return 0, procStats{}, err
	}
	waitErr := waitDrained(ctx, pool, []string{NoopArgs{}.Kind()}, 10*time.Minute)
	st, err := p.stop()
	if waitErr != nil {
		return 0, st, waitErr
	}
	if err != nil {
		return 0, st, err
	}
	w, err := jobWindow(ctx, pool, []string{NoopArgs{}.Kind()})
	if err != nil {
		return 0, st, err
	}
	if w.completed != n {
		return 0, st, fmt.Errorf("%d of %d no-op jobs completed", w.completed, n)
	}
	return rate(n, w.span), st, nil
}

func insertOnlyClient(pool *pgxpool.Pool) (*river.Client[pgx.Tx], error) {
	c, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		return nil, fmt.Errorf("river insert client: %w", err)
	}
	return c, nil
}

// waitDrained polls until no job of kinds is waiting, scheduled or running.
// It asks whether one is left, not how many: the poll runs on the machine
// it measures, inside the measured window (which the server's clock bounds,
// so the interval only delays noticing the end). Counting a burn-down's
// unfinished jobs every 20 ms took 1.5 ms of Postgres each time.
func waitDrained(ctx context.Context, pool *pgxpool.Pool, kinds []string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var left bool
		if err := pool.QueryRow(ctx, `
			SELECT EXISTS (SELECT 1 FROM river_job
			WHERE kind = ANY($1) AND state IN ('available','pending','running','retryable','scheduled'))`, kinds).Scan(&left); err != nil {
			return fmt.Errorf("wait for jobs: %w", err)
		}
		if !left {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("wait for jobs: jobs of kinds %v still unfinished after %s", kinds, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// window is when a set of jobs was worked, by the server's clock: from the
// first attempt to the last completion.
type window struct {
	completed, failed int
	span              time.Duration
}

func jobWindow(ctx context.Context, pool *pgxpool.Pool, kinds []string) (window, error) {
	var w window
	var secs float64
	err := pool.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE state = 'completed'),
		       count(*) FILTER (WHERE state IN ('discarded','cancelled')),
		       COALESCE(EXTRACT(epoch FROM max(finalized_at) - min(attempted_at)), 0)::float8
		FROM river_job WHERE kind = ANY($1)`, kinds).Scan(&w.completed, &w.failed, &secs)
	w.span = time.Duration(secs * float64(time.Second))
	if err != nil {
		return w, fmt.Errorf("job window: %w", err)
	}
	return w, nil
}
