package fleet

import (
	"testing"
	"time"

	"github.com/riverqueue/river"

	"github.com/evidencefleet/evidencefleet/internal/config"
	"github.com/evidencefleet/evidencefleet/jobs"
)

func TestPeriodicOrphanSweep(t *testing.T) {
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
		{"maintenance not served", time.Hour, other, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := len(periodicJobs(config.Config{OrphanSweep: tt.every}, tt.queues)); got != tt.want {
				t.Errorf("%d periodic jobs, want %d", got, tt.want)
			}
		})
	}
	// The sweep's args are valid as a worker decodes them.
	args := jobs.CleanupArgs{Mode: jobs.CleanupOrphans}
	if err := args.Validate(); err != nil {
		t.Errorf("sweep args %+v: %v", args, err)
	}
}
