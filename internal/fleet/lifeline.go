package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/store"
)

// A worker process proves it is alive by holding a session advisory lock,
// keyed by its River client id, on a connection of its own for as long as
// it runs. Postgres releases the lock the moment that connection ends: a
// process killed with SIGKILL, or whose pod is gone (TCP keepalives bound
// the wait when no FIN arrives). River records the client id of each
// attempt in attempted_by, so every process can ask, for the running jobs
// of another process, whether that process is alive — try its lock — and
// return the running jobs of a provably dead one to work within seconds,
// without waiting for River's time-based rescuer (EVF_RESCUE_STUCK_AFTER).
// A live process holds its lock however long its jobs run, so its jobs are
// never touched. (Oban's DynamicLifeline and Sidekiq's super_fetch take the
// same approach.)

// clientIDPrefix marks the River client ids of processes that hold a
// lifeline; only their jobs are judged by it (a process of an older version
// holds none and is left to River's rescuer).
const clientIDPrefix = "evf1_"

// newClientID returns a River client id for this process: the prefix, the
// host name and a random suffix, unique per process start.
func newClientID() string {
	host, _ := os.Hostname()
	host = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '-'
	}, host)
	if len(host) > 40 {
		host = host[:40]
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return clientIDPrefix + host + "_" + hex.EncodeToString(b)
}

// lifelineKey is the advisory lock key of a process.
func lifelineKey(clientID string) string { return "evidencefleet-worker:" + clientID }

// lifeline holds this process's liveness lock and rescues the running jobs
// of dead processes.
type lifeline struct {
	id       string
	conn     *pgx.Conn // holds the lock; used for nothing else
	pool     *pgxpool.Pool
	interval time.Duration
	metrics  *metrics.Metrics
	log      *slog.Logger
}

// startLifeline connects, takes this process's liveness lock and returns
// the lifeline; call it before the River client starts, so that no job is
// ever attempted by a process without its lock.
func startLifeline(ctx context.Context, cfg config.Config, pool *pgxpool.Pool, id string, interval time.Duration, m *metrics.Metrics, log *slog.Logger) (*lifeline, error) {
	// Straight to Postgres: through a transaction pooler the lock would
	// stay on a server connection that other clients get next.
	cc, err := pgx.ParseConfig(cfg.DirectURL())
	if err != nil {
		return nil, fmt.Errorf("lifeline: EVF_DATABASE_DIRECT_URL: %w", err)
	}
	setTimeouts(cc, cfg)
	// Without a FIN (a vanished node), the server learns of the dead
	// connection from TCP keepalives: about 10 + 3×5 s, not the kernel's 2 h.
	for k, v := range map[string]string{"tcp_keepalives_idle": "10", "tcp_keepalives_interval": "5", "tcp_keepalives_count": "3",
		"application_name": "evidencefleet lifeline " + id} {
		cc.RuntimeParams[k] = v
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, fmt.Errorf("lifeline: connect: %w", err)
	}
	if err := store.New(conn).TakeLifelineLock(ctx, lifelineKey(id)); err != nil {
		_ = conn.Close(ctx)
		return nil, fmt.Errorf("lifeline: take the liveness lock: %w", err)
	}
	return &lifeline{id: id, conn: conn, pool: pool, interval: interval, metrics: m, log: log}, nil
}

// run checks its own connection and rescues the jobs of dead processes
// every interval until ctx ends. It returns an error when its own
// connection fails: the lock may be gone, other processes may rescue this
// process's jobs, so it must stop working.
func (l *lifeline) run(ctx context.Context) error {
	t := time.NewTicker(l.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		pingCtx, cancel := context.WithTimeout(ctx, l.interval)
		err := l.conn.Ping(pingCtx)
		cancel()
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("lifeline: the connection holding the liveness lock failed: %w", err)
		}
		if err := l.rescue(ctx); err != nil && ctx.Err() == nil {
			l.log.Warn("lifeline: rescue failed", slog.Any("error", err))
		}
	}
}

// close ends the connection, releasing the lock.
func (l *lifeline) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = l.conn.Close(ctx)
}

// rescue returns the running jobs of every dead lifeline process to work.
func (l *lifeline) rescue(ctx context.Context) error {
	owners, err := store.New(l.pool).RunningJobOwners(ctx, store.RunningJobOwnersParams{Prefix: clientIDPrefix, Self: l.id})
	if err != nil {
		return fmt.Errorf("running jobs' processes: %w", err)
	}
	for _, owner := range owners {
		dead, err := l.dead(ctx, owner)
		if err != nil {
			return err
		}
		if dead {
			if err := l.rescueJobsOf(ctx, owner); err != nil {
				return err
			}
		}
	}
	return nil
}

// dead reports whether owner's liveness lock is free: its connection ended.
// It reads pg_locks (store.LifelineHeld), which takes no lock, so any pooled
// connection may ask, one behind a transaction pooler too.
func (l *lifeline) dead(ctx context.Context, owner string) (bool, error) {
	held, err := store.New(l.pool).LifelineHeld(ctx, lifelineKey(owner))
	if err != nil {
		return false, fmt.Errorf("lifeline: is %s alive: %w", owner, err)
	}
	return !held, nil
}

// rescueJobsOf makes the running jobs of a dead process available again,
// each with an error saying so (its attempt counts, as for any crash). A job
// whose worker died under it errs.MaxWorkerDeaths times is then ended by the
// workers (workers.Middleware; target_queue fails its target), not here.
func (l *lifeline) rescueJobsOf(ctx context.Context, owner string) error {
	msg := "worker process " + owner + " " + errs.WorkerDied + " (its liveness lock was free); rescued by " + l.id
	jobs, err := store.New(l.pool).RescueRunningJobsOf(ctx, store.RescueRunningJobsOfParams{Owner: owner, Message: msg})
	if err != nil {
		return fmt.Errorf("lifeline: rescue the jobs of %s: %w", owner, err)
	}
	for _, j := range jobs {
		l.metrics.Rescued(j.Kind)
		l.log.Warn("lifeline: rescued a job of a dead worker process", slog.Int64("job_id", j.ID), slog.String("kind", j.Kind),
			slog.Int("attempt", int(j.Attempt)), slog.String("dead_process", owner))
	}
	return nil
}
