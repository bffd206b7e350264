package fleet

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/evidencefleet/evidencefleet/internal/metrics"
)

func TestJobOutcome(t *testing.T) {
	t.Parallel()
	row := func(attempt, max int) *rivertype.JobRow { return &rivertype.JobRow{Attempt: attempt, MaxAttempts: max} }
	tests := []struct {
		name string
		job  *rivertype.JobRow
		err  error
		want string
	}{
		{"nil error", row(1, 5), nil, metrics.OutcomeCompleted},
		{"snooze", row(1, 5), river.JobSnooze(time.Second), metrics.OutcomeSnoozed},
		{"cancel", row(1, 5), river.JobCancel(errors.New("bad args")), metrics.OutcomeCancelled},
		{"wrapped cancel", row(1, 5), errors.Join(errors.New("ctx"), river.JobCancel(errors.New("x"))), metrics.OutcomeCancelled},
		{"error with attempts left", row(2, 5), errors.New("503"), metrics.OutcomeRetried},
		{"error on the last attempt", row(5, 5), errors.New("503"), metrics.OutcomeDiscarded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := JobOutcome(tt.job, tt.err); got != tt.want {
				t.Errorf("JobOutcome = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestJobMetricsMiddleware(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	mw := &jobMetrics{m: m}
	scheduled := time.Now().Add(-3 * time.Second)
	attempted := scheduled.Add(2 * time.Second)
	job := &rivertype.JobRow{Kind: "embed", Queue: "embed", Attempt: 1, MaxAttempts: 3, ScheduledAt: scheduled, AttemptedAt: &attempted}
	ctx := context.Background()

	if err := mw.Work(ctx, job, func(context.Context) error { return nil }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := mw.Work(ctx, job, func(context.Context) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("the middleware changed the job's error: %v", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not reach River")
			}
		}()
		_ = mw.Work(ctx, job, func(context.Context) error { panic("worker bug") })
	}()

	for outcome, want := range map[string]float64{"completed": 1, "retried": 1, "panicked": 1, "discarded": 0} {
		if got, _ := m.Sum("evidencefleet_jobs_total", map[string]string{"kind": "embed", "queue": "embed", "outcome": outcome}); got != want {
			t.Errorf("jobs_total{outcome=%s} = %v, want %v", outcome, got, want)
		}
	}
	if got, _ := m.Sum("evidencefleet_job_run_seconds", map[string]string{"kind": "embed"}); got != 3 {
		t.Errorf("run time observed %v times, want 3", got)
	}
	if got, _ := m.Sum("evidencefleet_job_queue_wait_seconds", map[string]string{"kind": "embed"}); got != 3 {
		t.Errorf("queue wait observed %v times, want 3", got)
	}
}
