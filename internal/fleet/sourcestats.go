package fleet

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"
	"github.com/evidencefleet/evidencefleet/store"
)

// baseChanges are the (action, source) pairs of domain_level_changes every
// process exports from the start, at 0 until the first: source
// verification's promotions, blocks and flags, and people's sets, blocks,
// unblocks and clears (restores are unblocks and clears).
var baseChanges = [][2]string{
	{"promote", "verification"}, {"block", "verification"}, {"flag", "verification"},
	{"set", "reviewer"}, {"block", "reviewer"}, {"unblock", "reviewer"}, {"clear", "policy"},
}

// sourceStats exports the fleet's judgement of sources (ARCHITECTURE.md
// §5.5) from the database: domains per level of record, flagged domains,
// and the audit rows per action and source, read at most once per ttl
// however often Prometheus scrapes (dbRefresh).
type sourceStats struct {
	q       *store.Queries
	refresh dbRefresh

	domains, flagged, changes *prometheus.Desc

	mu       sync.Mutex
	levels   map[string]int64
	nFlagged int64
	counts   map[[2]string]int64
}

func newSourceStats(q *store.Queries, ttl time.Duration, log *slog.Logger) *sourceStats {
	return &sourceStats{
		q: q, refresh: dbRefresh{ttl: ttl, timeout: 5 * time.Second, log: log, now: time.Now, what: "source statistics"},
		domains: prometheus.NewDesc("evidencefleet_domains",
			"Domains per trust level of record, read from the database at most every EVF_QUEUE_STATS_TTL.", []string{"level"}, nil),
		flagged: prometheus.NewDesc("evidencefleet_domains_flagged",
			"Domains source verification flagged for a person (vouched-for domains over a block line).", nil, nil),
		changes: prometheus.NewDesc("evidencefleet_domain_changes_total",
			"Changes of domains' standing per action (promote, block, flag, set, unblock, clear) and source (verification, reviewer, policy), from the audit table.",
			[]string{"action", "source"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (s *sourceStats) Describe(ch chan<- *prometheus.Desc) {
	ch <- s.domains
	ch <- s.flagged
	ch <- s.changes
}

// Collect implements prometheus.Collector.
func (s *sourceStats) Collect(ch chan<- prometheus.Metric) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh.ifDue(s.read)
	for _, l := range domainpolicy.Levels {
		ch <- prometheus.MustNewConstMetric(s.domains, prometheus.GaugeValue, float64(s.levels[l]), l)
	}
	ch <- prometheus.MustNewConstMetric(s.flagged, prometheus.GaugeValue, float64(s.nFlagged))
	seen := map[[2]string]bool{}
	for _, k := range baseChanges {
		seen[k] = true
		ch <- prometheus.MustNewConstMetric(s.changes, prometheus.CounterValue, float64(s.counts[k]), k[0], k[1])
	}
	for k, n := range s.counts {
		if !seen[k] {
			ch <- prometheus.MustNewConstMetric(s.changes, prometheus.CounterValue, float64(n), k[0], k[1])
		}
	}
}

// read reads both statistics; s.mu is held.
func (s *sourceStats) read(ctx context.Context) error {
	levels, err := s.q.DomainLevelCounts(ctx)
	if err != nil {
		return err
	}
	changes, err := s.q.DomainChangeCounts(ctx)
	if err != nil {
		return err
	}
	s.levels, s.nFlagged = make(map[string]int64, len(levels)), 0
	for _, r := range levels {
		s.levels[r.TrustLevel] = r.Domains
		s.nFlagged += r.Flagged
	}
	s.counts = make(map[[2]string]int64, len(changes))
	for _, r := range changes {
		s.counts[[2]string{r.Action, r.Source}] = r.Changes
	}
	return nil
}

// dbRefresh runs a read of statistics from the database at most once per
// ttl; a failed read keeps the last values, counts the failure and logs it.
type dbRefresh struct {
	ttl, timeout time.Duration
	log          *slog.Logger
	now          func() time.Time
	what         string

	at     time.Time
	failed float64
}

// ifDue runs read when the last one is older than ttl (or there was none).
func (r *dbRefresh) ifDue(read func(context.Context) error) {
	if !r.at.IsZero() && r.now().Sub(r.at) < r.ttl {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	err := read(ctx)
	r.at = r.now()
	if err != nil {
		r.failed++
		r.log.Warn(r.what+" not refreshed; serving the last values", slog.Any("error", err))
	}
}
