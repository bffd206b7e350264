package chartcheck_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// TestKEDAQueryCountsWork runs the query of every rendered ScaledObject on a
// real database with River's schema, holding jobs of every queue in every
// state. A group's count is its work: available and running jobs, and
// scheduled (snoozed) or retryable jobs due by the next poll — in the past,
// or within pollingInterval seconds, so that a group scaled to zero wakes
// before they are due and no such job is stranded. Jobs due later, pending
// and finished jobs, and other groups' queues do not count.
func TestKEDAQueryCountsWork(t *testing.T) {
	t.Parallel()
	r := render(t, chartDir, []string{filepath.Join(chartDir, "ci/keda-values.yaml")})
	pool := pgtest.Pool(t)
	ctx := context.Background()

	type group struct {
		queues  []string
		poll    time.Duration
		query   string
		minimum int32
	}
	groups := map[string]group{}
	pollOf := map[string]time.Duration{} // queue → its group's polling interval
	for name, so := range r.scaled {
		if len(so.Spec.Triggers) != 1 || so.Spec.Triggers[0].Type != "postgresql" {
			t.Fatalf("ScaledObject %s: want one postgresql trigger, got %+v", name, so.Spec.Triggers)
		}
		queues := strings.Split(env(r.deployments[name].Spec.Template.Spec.Containers[0])["EVF_QUEUES"].Value, ",")
		poll := time.Duration(*so.Spec.PollingInterval) * time.Second
		groups[name] = group{queues: queues, poll: poll, query: so.Spec.Triggers[0].Metadata["query"], minimum: *so.Spec.MinReplicaCount}
		for _, q := range queues {
			pollOf[q] = poll
		}
	}
	if len(groups) != 4 {
		t.Fatalf("%d ScaledObjects, want 4", len(groups))
	}
	zero := 0
	for _, g := range groups {
		if g.minimum == 0 {
			zero++
		}
	}
	if zero == 0 {
		t.Fatal("no group may scale to zero: the test proves nothing about waking one")
	}

	// Every queue gets `copies` of each row (its index + 1, so that a query
	// reading the wrong queues counts wrong).
	type row struct {
		state   string
		dueIn   func(poll time.Duration) time.Duration // scheduled_at - now()
		counted bool
	}
	rows := []row{
		{"available", func(time.Duration) time.Duration { return -time.Minute }, true},
		{"available", func(time.Duration) time.Duration { return 0 }, true},
		{"running", func(time.Duration) time.Duration { return -2 * time.Minute }, true},
		// Snoozed (River keeps a snoozed job as scheduled until it is due).
		{"scheduled", func(time.Duration) time.Duration { return -time.Minute }, true},       // due, no leader promoted it yet
		{"scheduled", func(p time.Duration) time.Duration { return p / 2 }, true},            // due before the next poll
		{"scheduled", func(p time.Duration) time.Duration { return p + time.Minute }, false}, // later: a later poll counts it
		{"scheduled", func(time.Duration) time.Duration { return time.Hour }, false},
		// Failed once, waiting out its retry backoff.
		{"retryable", func(time.Duration) time.Duration { return -time.Second }, true},
		{"retryable", func(p time.Duration) time.Duration { return p / 2 }, true},
		{"retryable", func(time.Duration) time.Duration { return time.Hour }, false},
		{"pending", func(time.Duration) time.Duration { return -time.Minute }, false},
		{"completed", func(time.Duration) time.Duration { return -time.Minute }, false},
		{"cancelled", func(time.Duration) time.Duration { return -time.Minute }, false},
		{"discarded", func(time.Duration) time.Duration { return -time.Minute }, false},
	}
	perQueue := map[string]int{}
	for i, q := range append(append([]string{}, jobs.AllQueues...), "someone-elses-queue") {
		copies := i + 1
		poll, ok := pollOf[q]
		if !ok {
			poll = 15 * time.Second
		}
		for _, rw := range rows {
			attempt := 0
			if rw.state == "running" || rw.state == "retryable" {
				attempt = 1
			}
			for range copies {
				if _, err := pool.Exec(ctx, `
					INSERT INTO river_job (kind, args, queue, priority, max_attempts, attempt, state, scheduled_at, attempted_at, finalized_at)
					VALUES ('noop', '{}', $1, 1, 5, $2, $3::river_job_state, now() + make_interval(secs => $4),
					        CASE WHEN $3 IN ('running', 'retryable', 'completed', 'discarded') THEN now() - interval '5 minutes' END,
					        CASE WHEN $3 IN ('completed', 'cancelled', 'discarded') THEN now() END)`,
					q, attempt, rw.state, rw.dueIn(poll).Seconds()); err != nil {
					t.Fatalf("insert %s job in %s: %v", rw.state, q, err)
				}
			}
			if rw.counted {
				perQueue[q] += copies
			}
		}
	}

	for name, g := range groups {
		want := 0
		for _, q := range g.queues {
			want += perQueue[q]
		}
		var got int64
		if err := pool.QueryRow(ctx, g.query).Scan(&got); err != nil {
			t.Fatalf("group %s: %v\n%s", name, err, g.query)
		}
		if got != int64(want) {
			t.Errorf("group %s (queues %v, polling %s) counts %d jobs, want %d:\n%s", name, g.queues, g.poll, got, want, g.query)
		}
		if !strings.Contains(g.query, "interval '"+strconv.Itoa(int(g.poll.Seconds()))+" seconds'") {
			t.Errorf("group %s: the look-ahead is not the polling interval (%s): %s", name, g.poll, g.query)
		}
	}

	// A group with nothing but a retry due in an hour counts nothing: it may
	// scale to zero and is woken when the retry comes due.
	if _, err := pool.Exec(ctx, `DELETE FROM river_job`); err != nil {
		t.Fatal(err)
	}
	g := groups["background"]
	count := func() int64 {
		t.Helper()
		var n int64
		if err := pool.QueryRow(ctx, g.query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := pool.Exec(ctx, `INSERT INTO river_job (kind, args, queue, priority, max_attempts, attempt, state, scheduled_at, attempted_at)
		VALUES ('cleanup', '{}', $1, 3, 5, 1, 'retryable', now() + interval '1 hour', now())`, jobs.QueueMaintenance); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Errorf("a retry due in an hour counts %d", n)
	}
	// The hour passes (scheduled_at moves into the next poll, then the past).
	for _, due := range []string{fmt.Sprintf("%d seconds", int(g.poll.Seconds())-1), "-1 second", "-1 hour"} {
		if _, err := pool.Exec(ctx, `UPDATE river_job SET scheduled_at = now() + $1::interval`, due); err != nil {
			t.Fatal(err)
		}
		if n := count(); n != 1 {
			t.Errorf("a retry due in %s counts %d, want 1", due, n)
		}
	}
}
