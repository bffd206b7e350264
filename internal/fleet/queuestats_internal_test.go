package fleet

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/store"
)

func TestQueueStats(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	insert := func(queue, state string, priority int, dueAgo time.Duration) {
		t.Helper()
		if _, err := pool.Exec(ctx, `
			INSERT INTO river_job (kind, args, queue, priority, max_attempts, state, scheduled_at, attempted_at, finalized_at)
			VALUES ('noop', '{}', $1, $2, 5, $3::river_job_state, now() - $4::interval,
			        CASE WHEN $3 IN ('running', 'completed', 'retryable') THEN now() END,
			        CASE WHEN $3 = 'completed' THEN now() END)`,
			queue, priority, state, dueAgo.String()); err != nil {
			t.Fatal(err)
		}
	}
	insert("target", "available", 1, 10*time.Second)
	insert("target", "available", 3, 90*time.Second) // the oldest, at a lower priority
	insert("target", "running", 1, 0)
	insert("nli", "scheduled", 1, -time.Hour)
	insert("nli", "retryable", 2, 0)
	for range 5 {
		insert("target", "completed", 1, time.Minute) // history: not counted
	}
	insert("someone-elses-queue", "available", 1, time.Hour) // not ours: no series

	now := time.Now()
	s := newQueueStats(store.New(pool), []string{"target", "nli"}, 15*time.Second, slog.New(slog.DiscardHandler))
	s.refresh.now = func() time.Time { return now }
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(s)

	want := `
# HELP evidencefleet_river_jobs River jobs per queue in a live state (available, scheduled, retryable, running, pending), read from the database at most every EVF_QUEUE_STATS_TTL.
# TYPE evidencefleet_river_jobs gauge
evidencefleet_river_jobs{queue="nli",state="available"} 0
evidencefleet_river_jobs{queue="nli",state="pending"} 0
evidencefleet_river_jobs{queue="nli",state="retryable"} 1
evidencefleet_river_jobs{queue="nli",state="running"} 0
evidencefleet_river_jobs{queue="nli",state="scheduled"} 1
evidencefleet_river_jobs{queue="target",state="available"} 2
evidencefleet_river_jobs{queue="target",state="pending"} 0
evidencefleet_river_jobs{queue="target",state="retryable"} 0
evidencefleet_river_jobs{queue="target",state="running"} 1
evidencefleet_river_jobs{queue="target",state="scheduled"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "evidencefleet_river_jobs"); err != nil {
		t.Error(err)
	}
	age := func(queue string) float64 {
		t.Helper()
		fams, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fams {
			if f.GetName() != "evidencefleet_river_oldest_available_seconds" {
				continue
			}
			for _, m := range f.GetMetric() {
				if m.GetLabel()[0].GetValue() == queue {
					return m.GetGauge().GetValue()
				}
			}
		}
		t.Fatalf("no oldest-available series for %s", queue)
		return 0
	}
	if a := age("target"); a < 90 || a > 120 {
		t.Errorf("oldest available target job is %v s old, want about 90 (the priority-3 job)", a)
	}
	if a := age("nli"); a != 0 {
		t.Errorf("nli has no available job but an age of %v", a)
	}

	// Within the TTL the cached values are served; after it, read again.
	insert("nli", "available", 1, 0)
	if got := testutil.ToFloat64(gaugeOf(t, reg, "nli", "available")); got != 0 {
		t.Errorf("within the TTL: %v available nli jobs, want the cached 0", got)
	}
	now = now.Add(16 * time.Second)
	if got := testutil.ToFloat64(gaugeOf(t, reg, "nli", "available")); got != 1 {
		t.Errorf("after the TTL: %v available nli jobs, want 1", got)
	}
}

// gaugeOf returns a collector holding the current value of river_jobs for
// queue and state, as gathered from reg.
func gaugeOf(t *testing.T, reg *prometheus.Registry, queue, state string) prometheus.Gauge {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "x"})
	for _, f := range fams {
		if f.GetName() != "evidencefleet_river_jobs" {
			continue
		}
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			if l["queue"] == queue && l["state"] == state {
				g.Set(m.GetGauge().GetValue())
			}
		}
	}
	return g
}
