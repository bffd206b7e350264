package fleet

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/evidencefleet/evidencefleet/store"
)

// liveStates are the job states queueStats counts; finished states are
// history, counted as they happen by jobs_total.
var liveStates = []string{"available", "scheduled", "retryable", "running", "pending"}

// queueStats exports River's queue depth per queue and state and the age of
// the oldest available job per queue. The two queries behind it read River's
// fetch index only (store.RiverLiveJobCounts, store.RiverOldestAvailableAge)
// and run at most once per ttl however often Prometheus scrapes; a failed
// refresh keeps the last values and counts the error.
type queueStats struct {
	q       *store.Queries
	queues  []string
	refresh dbRefresh

	depth, oldest, failures *prometheus.Desc

	mu     sync.Mutex
	counts map[[2]string]int64 // (queue, state)
	ages   map[string]float64
}

func newQueueStats(q *store.Queries, queues []string, ttl time.Duration, log *slog.Logger) *queueStats {
	return &queueStats{
		q: q, queues: queues, refresh: dbRefresh{ttl: ttl, timeout: 5 * time.Second, log: log, now: time.Now, what: "river queue statistics"},
		depth: prometheus.NewDesc("evidencefleet_river_jobs",
			"River jobs per queue in a live state (available, scheduled, retryable, running, pending), read from the database at most every EVF_QUEUE_STATS_TTL.",
			[]string{"queue", "state"}, nil),
		oldest: prometheus.NewDesc("evidencefleet_river_oldest_available_seconds",
			"Per queue, how long the oldest available job has been due (0 with none).",
			[]string{"queue"}, nil),
		failures: prometheus.NewDesc("evidencefleet_river_stats_errors_total",
			"Failed refreshes of the River queue statistics (the last values are kept).", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (s *queueStats) Describe(ch chan<- *prometheus.Desc) {
	ch <- s.depth
	ch <- s.oldest
	ch <- s.failures
}

// Collect implements prometheus.Collector.
func (s *queueStats) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh.ifDue(s.read)
	for _, queue := range s.queues {
		for _, state := range liveStates {
			ch <- prometheus.MustNewConstMetric(s.depth, prometheus.GaugeValue, float64(s.counts[[2]string{queue, state}]), queue, state)
		}
		ch <- prometheus.MustNewConstMetric(s.oldest, prometheus.GaugeValue, s.ages[queue], queue)
	}
	ch <- prometheus.MustNewConstMetric(s.failures, prometheus.CounterValue, s.refresh.failed)
}

// read reads both statistics; s.mu is held.
func (s *queueStats) read(ctx context.Context) error {
	rows, err := s.q.RiverLiveJobCounts(ctx)
	if err != nil {
		return err
	}
	ages, err := s.q.RiverOldestAvailableAge(ctx, s.queues)
	if err != nil {
		return err
	}
	s.counts = make(map[[2]string]int64, len(rows))
	for _, r := range rows {
		s.counts[[2]string{r.Queue, r.State}] = r.Jobs
	}
	s.ages = make(map[string]float64, len(ages))
	for _, a := range ages {
		s.ages[a.Queue] = a.AgeSeconds
	}
	return nil
}
