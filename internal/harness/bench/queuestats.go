package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// queueStats times the two queries behind the /metrics queue collector
// (live jobs per queue and state, the oldest available job's age) on a
// river_job table holding QueueStatsHistory finished jobs, with growing
// backlogs of available jobs: their cost should follow the backlog, not the
// history.
func (h *harness) queueStats(ctx context.Context) error {
	if h.opts.QueueStatsHistory <= 0 {
		return nil
	}
	pool, _, done, err := h.scratch(ctx)
	if err != nil {
		return err
	}
	defer done()
	const fill = `
INSERT INTO river_job (kind, args, queue, priority, max_attempts, state, scheduled_at, attempted_at, finalized_at)
SELECT 'noop', '{}', (ARRAY['target', 'embed', 'nli', 'rerank'])[1 + i % 4], 1 + i % 4, 5, $2::river_job_state,
       now() - make_interval(secs => i % 3600), now(),
       CASE WHEN $2 = 'completed' THEN now() END
FROM generate_series(1, $1::int) AS i`
	begin := time.Now()
	if _, err := pool.Exec(ctx, fill, h.opts.QueueStatsHistory, "completed"); err != nil {
		return fmt.Errorf("fill history: %w", err)
	}
	if err := vacuum(ctx, pool, "river_job"); err != nil {
		return err
	}
	h.logf("queue stats: %d finished jobs in %.0fs", h.opts.QueueStatsHistory, time.Since(begin).Seconds())
	q := store.New(pool)
	sec := fmt.Sprintf("queue statistics for /metrics (river_job with %d finished jobs)", h.opts.QueueStatsHistory)
	backlog := 0
	for _, want := range h.opts.QueueStatsBacklogs {
		if want > backlog {
			if _, err := pool.Exec(ctx, fill, want-backlog, "available"); err != nil {
				return fmt.Errorf("fill backlog: %w", err)
			}
			backlog = want
			if _, err := pool.Exec(ctx, "ANALYZE river_job"); err != nil {
				return err
			}
		}
		var counts, ages []float64
		for range 20 {
			start := time.Now()
			if _, err := q.RiverLiveJobCounts(ctx); err != nil {
				return err
			}
			counts = append(counts, ms(time.Since(start)))
			start = time.Now()
			if _, err := q.RiverOldestAvailableAge(ctx, jobs.AllQueues); err != nil {
				return err
			}
			ages = append(ages, ms(time.Since(start)))
		}
		label := fmt.Sprintf("backlog of %d available jobs", backlog)
		h.add(sec, label+": live jobs per queue and state, p50", counts, "ms", "")
		h.add(sec, label+": oldest available age per queue, p50", ages, "ms", "")
		h.logf("queue stats at backlog %d: counts %.2f ms, oldest %.2f ms", backlog, median(counts), median(ages))
	}
	return nil
}
