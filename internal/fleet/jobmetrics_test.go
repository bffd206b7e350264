package fleet_test

import (
	"context"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// TestJobCountersMatchTheJobTable runs real jobs (pages fetched, embedded,
// verified, and bad jobs another service inserted) and checks the job
// counters of the worker's /metrics against River's own record of the jobs:
// per kind, completed and cancelled against the jobs' final states, snoozed
// against the snoozes River counted in each job's metadata.
func TestJobCountersMatchTheJobTable(t *testing.T) {
	t.Parallel()
	pages := []corpus.Page{
		testfleet.Page("https://a.example.org/ice", "Sea ice", "Arctic sea ice extent declined sharply over the last four decades.", "Satellite records show the summer minimum falling."),
		testfleet.Page("https://b.example.net/bears", "Polar bears", "Polar bear populations depend on sea ice for hunting seals.", "Some subpopulations are declining."),
		testfleet.Page("https://c.example.com/glaciers", "Glaciers", "Mountain glaciers have lost mass in most regions since 1980."),
	}
	f := testfleet.Start(t, testfleet.Options{Pages: pages})
	task := f.CreateTask(t, "Arctic sea ice is declining.")
	f.AddTargets(t, task, "https://a.example.org/ice", "https://b.example.net/bears", "https://c.example.com/glaciers")
	testfleet.InsertRawJob(t, f.Pool, jobs.KindVerifyNLI, jobs.QueueNLI, `{"task_id": 987654}`)
	testfleet.InsertRawJob(t, f.Pool, jobs.KindEmbed, jobs.QueueEmbed, `{"fragment_ids": "not a list"}`)
	testfleet.WaitIdle(t, f.Pool, 60*time.Second)

	ctx := context.Background()
	rows, err := f.Pool.Query(ctx, `
		SELECT kind,
		       count(*) FILTER (WHERE state = 'completed'),
		       count(*) FILTER (WHERE state = 'cancelled'),
		       COALESCE(sum((metadata->>'snoozes')::int), 0)
		FROM river_job GROUP BY kind`)
	if err != nil {
		t.Fatal(err)
	}
	type want struct{ completed, cancelled, snoozed float64 }
	table := map[string]want{}
	for rows.Next() {
		var kind string
		var w want
		if err := rows.Scan(&kind, &w.completed, &w.cancelled, &w.snoozed); err != nil {
			t.Fatal(err)
		}
		table[kind] = w
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{jobs.KindTargetQueue, jobs.KindEmbed, jobs.KindVerifyNLI} {
		if table[kind].completed == 0 {
			t.Errorf("no %s job completed: the comparison proves little", kind)
		}
	}
	if table[jobs.KindVerifyNLI].cancelled != 1 || table[jobs.KindEmbed].cancelled != 1 {
		t.Errorf("cancelled jobs: %+v, want one verify_nli and one embed", table)
	}
	m := f.Worker.Metrics()
	for kind, w := range table {
		for outcome, n := range map[string]float64{"completed": w.completed, "cancelled": w.cancelled, "snoozed": w.snoozed} {
			got, err := m.Sum("evidencefleet_jobs_total", map[string]string{"kind": kind, "outcome": outcome})
			if err != nil {
				t.Fatal(err)
			}
			if got != n {
				t.Errorf("jobs_total{kind=%s,outcome=%s} = %v, the job table says %v", kind, outcome, got, n)
			}
		}
		for _, outcome := range []string{"retried", "discarded", "panicked"} {
			if got, _ := m.Sum("evidencefleet_jobs_total", map[string]string{"kind": kind, "outcome": outcome}); got != 0 {
				t.Errorf("jobs_total{kind=%s,outcome=%s} = %v, want 0", kind, outcome, got)
			}
		}
	}
	// Every attempt is timed once.
	for kind, w := range table {
		got, _ := m.Sum("evidencefleet_job_run_seconds", map[string]string{"kind": kind})
		if wantN := w.completed + w.cancelled + w.snoozed; got != wantN {
			t.Errorf("job_run_seconds{kind=%s} has %v samples, want %v", kind, got, wantN)
		}
	}
	if got, _ := m.Sum("evidencefleet_river_jobs", map[string]string{"state": "available"}); got != 0 {
		t.Errorf("river_jobs{state=available} = %v after the queues drained", got)
	}
}
