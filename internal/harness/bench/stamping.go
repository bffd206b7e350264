package bench

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/fleet"
	"github.com/evidencefleet/evidencefleet/internal/metrics"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/store"
)

// Trust stamping, like with like: verify_nli reads the selected pairs'
// fragments with their domain's level (store PairFragments, a LEFT JOIN of
// domains) and stamps the levels on the edges it writes. The comparison
// runs the same burn-down with that read as the product has it ("stamped")
// and with the domains join taken out of it ("unstamped": no lookup, edges
// written without levels), in turns, in one run. Both arms are the fleet's
// own worker (fleet.Build, the River settings and middleware of a worker
// process) on a store whose connection pool hands PairFragments through
// (stamped) or rewrites it (unstamped); nothing in the product changes.

// Arms of the comparison, the value of armEnv in a child.
const (
	armStamped   = "stamped"
	armUnstamped = "unstamped"
	armEnv       = "FLEETBENCH_PAIR_FRAGMENTS"
)

// armMode is the child mode of an arm.
const armMode = "verify-arm"

// pairFragmentsName opens the text of the store's PairFragments query (sqlc
// keeps the name comment).
const pairFragmentsName = "-- name: PairFragments "

var (
	levelColumn = regexp.MustCompile(`(?m)^\s*COALESCE\(.*\)::text AS (trust_level|category),?$`)
	domainsJoin = regexp.MustCompile(`(?m)^LEFT JOIN domains d ON d\.domain = p\.domain\n`)
	viewJoin    = regexp.MustCompile(`(?m)^LEFT JOIN org_domain_levels o ON .*\$1\)$`)
	domainAlias = regexp.MustCompile(`\b[do]\.`)
)

// unstampedPairFragments is PairFragments without the domains join and
// the organization's view: the same columns, the levels empty (as for a
// domain without a row). The task id it no longer reads stays a parameter.
// It fails when the query no longer has the shape it takes the joins out
// of.
func unstampedPairFragments(sql string) (string, error) {
	if !strings.HasPrefix(sql, pairFragmentsName) || len(levelColumn.FindAllString(sql, -1)) != 2 ||
		len(domainsJoin.FindAllString(sql, -1)) != 1 || len(viewJoin.FindAllString(sql, -1)) != 1 {
		return "", fmt.Errorf("bench: PairFragments no longer reads two level columns through one domains join and one view join; "+
			"the unstamped arm cannot take them out of:\n%s", sql)
	}
	out := levelColumn.ReplaceAllStringFunc(sql, func(col string) string {
		m := levelColumn.FindStringSubmatch(col)
		end := ""
		if strings.HasSuffix(col, ",") {
			end = ","
		}
		return "       ''::text AS " + m[1] + end
	})
	out = viewJoin.ReplaceAllString(domainsJoin.ReplaceAllString(out, ""), "CROSS JOIN (SELECT $$1::bigint AS task_id) AS task")
	if domainAlias.MatchString(out) {
		return "", fmt.Errorf("bench: PairFragments without its domains join still reads the domain:\n%s", out)
	}
	return out, nil
}

// armDB is the store's connection pool in an arm: it counts the
// PairFragments reads and, in the unstamped arm, rewrites them.
type armDB struct {
	*pgxpool.Pool
	unstamped bool

	once       sync.Once
	rewritten  string
	rewriteErr error
	reads      atomic.Int64
}

var _ store.DB = (*armDB)(nil)

// Query implements store.DBTX.
func (d *armDB) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if strings.HasPrefix(sql, pairFragmentsName) {
		d.reads.Add(1)
		if d.unstamped {
			d.once.Do(func() { d.rewritten, d.rewriteErr = unstampedPairFragments(sql) })
			if d.rewriteErr != nil {
				return nil, d.rewriteErr
			}
			sql = d.rewritten
		}
	}
	return d.Pool.Query(ctx, sql, args...)
}

// startArm starts the child of an arm (armEnv): the fleet's workers for the
// configured queues on a store over an armDB. It returns how to stop it and
// the pool whose PairFragments reads it counts.
func startArm(ctx context.Context, cfg config.Config, log *slog.Logger, m *metrics.Metrics) (halt func() error, db *armDB, err error) {
	arm := os.Getenv(armEnv)
	if arm != armStamped && arm != armUnstamped {
		return nil, nil, fmt.Errorf("child: %s=%q, want %s or %s", armEnv, arm, armStamped, armUnstamped)
	}
	pool, err := fleet.NewPool(ctx, cfg, m)
	if err != nil {
		return nil, nil, err
	}
	db = &armDB{Pool: pool, unstamped: arm == armUnstamped}
	parts, err := fleet.Build(cfg, store.NewStore(db), log, m)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	rc := parts.River
	if rc.Queues, err = workers.Queues(cfg.Queues, cfg.Concurrency()); err == nil {
		var client *river.Client[pgx.Tx]
		if client, err = river.NewClient(riverpgxv5.New(pool), rc); err == nil {
			if err = client.Start(context.WithoutCancel(ctx)); err == nil {
				return func() error {
					sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					err := client.Stop(sctx)
					parts.Fetcher.Close()
					pool.Close()
					return err
				}, db, nil
			}
		}
	}
	parts.Fetcher.Close()
	pool.Close()
	return nil, nil, err
}

// verifyStamping runs the stamped and the unstamped arm StampingReps times
// each on the task, one process each, in turns (ABBA…), and reports both
// arms' throughput and worker CPU and their ratios: of the medians, and the
// median of each pair of runs' ratio.
func (h *harness) verifyStamping(ctx context.Context, pool *pgxpool.Pool, dbURL string, task synthTask) error {
	reps := h.opts.StampingReps
	if reps <= 0 {
		reps = h.opts.Reps
	}
	sec := fmt.Sprintf("verify_nli trust stamping (same load, 1 process, %d workers; the two arms in turns, %d runs each)",
		h.opts.NLIWorkers, reps)
	rates, cpu := map[string][]float64{}, map[string][]float64{}
	var rateRatios, cpuRatios []float64
	for rep := range reps {
		arms := []string{armStamped, armUnstamped}
		if rep%2 == 1 {
			arms = []string{armUnstamped, armStamped}
		}
		gotRate, gotCPU := map[string]float64{}, map[string]float64{}
		for _, arm := range arms {
			r, err := h.runVerifyArm(ctx, pool, dbURL, task, arm)
			if err != nil {
				return fmt.Errorf("%s arm: %w", arm, err)
			}
			gotRate[arm], gotCPU[arm] = rate(r.claims, r.span), r.procs[0].CPUSeconds/float64(r.claims)*1000
			rates[arm], cpu[arm] = append(rates[arm], gotRate[arm]), append(cpu[arm], gotCPU[arm])
		}
		rateRatios = append(rateRatios, gotRate[armStamped]/gotRate[armUnstamped])
		cpuRatios = append(cpuRatios, gotCPU[armStamped]/gotCPU[armUnstamped])
		h.logf("verify_nli stamping run %d: stamped %.0f, unstamped %.0f claims/s (×%.3f)", rep+1,
			gotRate[armStamped], gotRate[armUnstamped], rateRatios[rep])
	}
	unstamped := h.add(sec, "claims verified, PairFragments without the domains join (no levels on the edges)", rates[armUnstamped], "claims/s", "")
	h.add(sec, "claims verified, levels looked up and stamped on the edges (as the product)", rates[armStamped], "claims/s", "")
	h.compare("unstamped", unstamped, "claims/s")
	h.add(sec, "throughput stamped / unstamped, median of the pairs of runs", rateRatios, "ratio", "")
	unstampedCPU := h.add(sec, "worker CPU per 1,000 claims, unstamped", cpu[armUnstamped], "CPU s", "")
	h.add(sec, "worker CPU per 1,000 claims, stamped", cpu[armStamped], "CPU s", "")
	h.compare("unstamped", unstampedCPU, "CPU s")
	h.add(sec, "worker CPU stamped / unstamped, median of the pairs of runs", cpuRatios, "ratio", "")
	return nil
}

// runVerifyArm is one burn-down of an arm, checked: every PairFragments read
// went through the arm's pool, rewritten in the unstamped arm only, and the
// edges carry levels in the stamped arm only (every synthetic domain has a
// level).
func (h *harness) runVerifyArm(ctx context.Context, pool *pgxpool.Pool, dbURL string, task synthTask, arm string) (verifyRun, error) {
	r, err := h.runVerify(ctx, pool, dbURL, task, 1, armMode, nliArm{env: []string{armEnv + "=" + arm}})
	if err != nil {
		return r, err
	}
	if r.procs[0].PairReads == 0 {
		return r, fmt.Errorf("the child read no pair fragments through the arm's pool")
	}
	var stamped, unstamped int
	if err := pool.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE e.source_trust_level IS NOT NULL), count(*) FILTER (WHERE e.source_trust_level IS NULL)
		FROM edges e JOIN claims c ON c.id = e.target_id
		WHERE e.target_type = 'claim' AND e.source_type = 'fragment' AND c.task_id = $1`, task.ID).Scan(&stamped, &unstamped); err != nil {
		return r, fmt.Errorf("count stamped edges: %w", err)
	}
	if (arm == armStamped) != (unstamped == 0) || (arm == armStamped) != (stamped > 0) {
		return r, fmt.Errorf("%d edges with a source level and %d without", stamped, unstamped)
	}
	return r, nil
}
