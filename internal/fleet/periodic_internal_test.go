package fleet

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/workers"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// TestPeriodicOrphanSweep: every process registers the sweep, whatever it
// serves, since River enqueues periodic jobs only from the elected leader and
// the leader may be a process that does not serve maintenance.
func TestPeriodicOrphanSweep(t *testing.T) {
	t.Parallel()
	maintenance := map[string]river.QueueConfig{jobs.QueueMaintenance: {MaxWorkers: 1}}
	other := map[string]river.QueueConfig{jobs.QueueNLI: {MaxWorkers: 2}}
	tests := []struct {
		name   string
		every  time.Duration
		queues map[string]river.QueueConfig
		want   int
	}{
		{"maintenance served", time.Hour, maintenance, 1},
		{"sweep off", 0, maintenance, 0},
		{"maintenance not served", time.Hour, other, 1},
		{"maintenance not served, sweep off", 0, other, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := len(periodicJobs(config.Config{OrphanSweep: tt.every}, tt.queues)); got != tt.want {
				t.Errorf("%d periodic jobs, want %d", got, tt.want)
			}
		})
	}
	// The sweep's args are valid as a worker decodes them, and their job
	// goes to the maintenance queue whoever inserts it.
	args := jobs.CleanupArgs{Mode: jobs.CleanupOrphans}
	if err := args.Validate(); err != nil {
		t.Errorf("sweep args %+v: %v", args, err)
	}
	if q := args.InsertOpts().Queue; q != jobs.QueueMaintenance {
		t.Errorf("sweep job goes to queue %q, want %q", q, jobs.QueueMaintenance)
	}
}

// TestOrphanSweepFromALeaderWithoutMaintenance runs a River client that
// serves only nli, with the periodic jobs a worker of that process registers:
// as the elected leader it enqueues the sweep into the maintenance queue.
func TestOrphanSweepFromALeaderWithoutMaintenance(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	queues, err := workers.Queues([]string{jobs.QueueNLI}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := queues[jobs.QueueMaintenance]; ok {
		t.Fatal("the process serves maintenance: the test proves nothing")
	}
	registry := river.NewWorkers()
	set := workers.Set{TargetQueue: &workers.TargetQueueWorker{}, Embed: &workers.EmbedWorker{}, VerifyNLI: &workers.VerifyNLIWorker{},
		Rerank: &workers.RerankWorker{}, CitationGraph: &workers.CitationGraphWorker{}, Cleanup: &workers.CleanupWorker{}}
	if err := set.Add(registry); err != nil {
		t.Fatal(err)
	}
	rc := riverSettings(config.Config{JobTimeout: time.Minute, RescueStuckAfter: time.Hour}, nil)
	rc.Queues, rc.Workers = queues, registry
	// A short interval stands in for EVF_ORPHAN_SWEEP_INTERVAL (at least 1m
	// in a real configuration).
	rc.PeriodicJobs = periodicJobs(config.Config{OrphanSweep: 200 * time.Millisecond}, queues)
	client, err := river.NewClient(riverpgxv5.New(pool), rc)
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = client.Stop(stopCtx)
	})

	deadline := time.Now().Add(30 * time.Second)
	for {
		var queue, state string
		var raw []byte
		err := pool.QueryRow(ctx, `SELECT queue, state::text, args FROM river_job WHERE kind = $1 ORDER BY id LIMIT 1`,
			jobs.KindCleanup).Scan(&queue, &state, &raw)
		if err == nil {
			var args jobs.CleanupArgs
			if err := json.Unmarshal(raw, &args); err != nil {
				t.Fatal(err)
			}
			if queue != jobs.QueueMaintenance || args.Mode != jobs.CleanupOrphans || state != "available" {
				t.Errorf("the leader enqueued a %s job in queue %q, mode %q; want an available orphans sweep in %q",
					state, queue, args.Mode, jobs.QueueMaintenance)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no sweep enqueued by a leader serving only nli after 30s (last: %v)", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
