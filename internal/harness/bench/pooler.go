package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgbouncer"
)

// PoolerSection is verify_nli through PgBouncer in transaction mode
// beside the same run straight to Postgres; "verify" runs it too.
const PoolerSection = "pgbouncer"

// poolerServerConns is the bouncer's pool: the server connections all the
// workers share.
const poolerServerConns = 4

// benchApplication is the application_name of the bench's own
// connections, which the connection counts leave out.
const benchApplication = "fleetbench"

// connPeak is the most connections to the database seen at once: the
// workers' liveness locks and all others but the bench's own (the workers'
// pools, or the bouncer's server connections).
type connPeak struct {
	lifelines, others int
}

// watchConns samples the database's connections every 20 ms until the
// returned function is called, which returns the peaks.
func watchConns(ctx context.Context, pool *pgxpool.Pool) func() connPeak {
	var peak connPeak
	var mu sync.Mutex
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			var c connPeak
			if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE application_name LIKE 'evidencefleet lifeline %'),
					count(*) FILTER (WHERE application_name NOT LIKE 'evidencefleet lifeline %' AND application_name <> $1)
				FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`,
				benchApplication).Scan(&c.lifelines, &c.others); err == nil {
				mu.Lock()
				peak.lifelines, peak.others = max(peak.lifelines, c.lifelines), max(peak.others, c.others)
				mu.Unlock()
			}
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() connPeak {
		close(stop)
		<-done
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// verifyPooled runs the task with the instant NLI on 2 processes straight
// to Postgres and through PgBouncer (transaction mode, a pool of
// poolerServerConns), in turns, and reports both rates and the database
// connections each way needs. Without pgbouncer installed it says so and
// measures nothing.
func (h *harness) verifyPooled(ctx context.Context, pool *pgxpool.Pool, dbURL string, task synthTask) error {
	if pgbouncer.Binary() == "" {
		h.logf("verify_nli through PgBouncer: not measured, pgbouncer is not installed (apt-get install pgbouncer)")
		return nil
	}
	if err := pgbouncer.BoundTimeouts(ctx, pool, dbURL); err != nil {
		return err
	}
	b, err := pgbouncer.Start(ctx, dbURL, poolerServerConns)
	if err != nil {
		return err
	}
	defer b.Close()
	const procs = 2
	pooledURL, err := b.Pooled(dbURL)
	if err != nil {
		return err
	}
	direct := instantArm
	direct.conns = true
	pooled := nliArm{name: instantArm.name + ", through PgBouncer", dbURL: pooledURL, conns: true,
		env: append([]string{"EVF_DB_POOLER=transaction", "EVF_DATABASE_DIRECT_URL=" + dbURL}, instantArm.env...)}
	sec := fmt.Sprintf("verify_nli through PgBouncer (transaction mode, %d server connections; %s, %d processes × %d workers; the two in turns)",
		poolerServerConns, instantArm.name, procs, h.opts.NLIWorkers)
	var directRate, pooledRate, directConns, pooledOwn, pooledShared []float64
	for rep := range h.opts.Reps {
		d, err := h.runVerify(ctx, pool, dbURL, task, procs, "fleet", direct)
		if err != nil {
			return err
		}
		p, err := h.runVerify(ctx, pool, dbURL, task, procs, "fleet", pooled)
		if err != nil {
			return err
		}
		directRate = append(directRate, rate(d.claims, d.span))
		pooledRate = append(pooledRate, rate(p.claims, p.span))
		directConns = append(directConns, float64(d.conns.lifelines+d.conns.others)/procs)
		pooledOwn = append(pooledOwn, float64(p.conns.lifelines)/procs)
		pooledShared = append(pooledShared, float64(p.conns.others))
		h.logf("verify_nli through PgBouncer rep %d: %.0f claims/s (straight to Postgres %.0f); connections %+v (straight %+v)",
			rep+1, pooledRate[rep], directRate[rep], p.conns, d.conns)
	}
	ratios := make([]float64, len(directRate))
	for i := range ratios {
		ratios[i] = pooledRate[i] / directRate[i]
	}
	h.add(sec, "straight to Postgres: total", directRate, "claims/s", "")
	h.add(sec, "through PgBouncer: total", pooledRate, "claims/s", "")
	h.add(sec, "through PgBouncer ÷ straight to Postgres, run by run", ratios, "ratio", "")
	h.add(sec, "straight to Postgres: connections per process, at most (its pool and liveness lock)", directConns, "connections", "")
	h.add(sec, "through PgBouncer: connections of each process's own, at most (its liveness lock)", pooledOwn, "connections", "")
	h.add(sec, "through PgBouncer: server connections all processes share, at most", pooledShared, "connections", "")
	return nil
}
