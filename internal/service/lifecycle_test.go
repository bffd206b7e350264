package service_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/errs"
	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/jobs"
	"github.com/evidencefleet/evidencefleet/store"
)

// TestPauseResumeAndBudget walks a task through its lifecycle: its budget
// is refused while active, pausing is recorded once, new work leaves it
// paused, the settle sweep neither completes it with jobs waiting nor
// without, its budget changes while paused, and once resumed the sweep
// completes it; each change is a task event, and a stopped task takes none.
func TestPauseResumeAndBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, pool := newService(t)
	st := store.NewStore(pool)
	const org = "alpha"
	task, err := svc.CreateTask(ctx, org, intake.TaskSpec{Hypothesis: "Glaciers are retreating.", Budget: "minimal"})
	if err != nil {
		t.Fatal(err)
	}
	settle := func() {
		t.Helper()
		if _, err := st.SettleTasks(ctx, 100); err != nil {
			t.Fatal(err)
		}
	}
	status := func() *service.Status {
		t.Helper()
		s, err := svc.Status(ctx, org, task.ID)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	if _, err := svc.SetBudget(ctx, org, task.ID, "deep"); !errors.Is(err, service.ErrTaskNotPaused) || !strings.Contains(err.Error(), "only while it is paused") {
		t.Errorf("budget of an active task: %v, want ErrTaskNotPaused saying why", err)
	}
	p, err := svc.PauseTask(ctx, org, task.ID)
	if err != nil || p.Status != store.TaskPaused || p.PausedAt == nil || !p.Changed || p.Budget != "minimal" {
		t.Fatalf("pause: %+v, %v", p, err)
	}
	again, err := svc.PauseTask(ctx, org, task.ID)
	if err != nil || again.Changed || again.PausedAt == nil || !again.PausedAt.Equal(*p.PausedAt) {
		t.Errorf("pause of a paused task: %+v, %v; want unchanged, paused since %s", again, err, p.PausedAt)
	}

	// New work is recorded and waits: the task stays paused.
	added, err := svc.AddTargets(ctx, org, task.ID, []jobs.Target{{Kind: jobs.TargetURL, Value: "https://a.example.org/ice"}})
	if err != nil || added.Inserted != 1 {
		t.Fatalf("add a target to a paused task: %+v, %v", added, err)
	}
	if _, err := svc.AddClaims(ctx, org, task.ID, []string{"Sea ice is thinning."}); err != nil {
		t.Fatalf("add a claim to a paused task: %v", err)
	}
	settle()
	if s := status(); s.TaskStatus != store.TaskPaused || s.PausedAt == nil || s.Pending == 0 {
		t.Errorf("paused task with work waiting after a sweep: %s (paused_at %v), %d pending; want paused with work pending", s.TaskStatus, s.PausedAt, s.Pending)
	}
	// With no work left it stays paused too: only a resume makes it completable.
	if _, err := pool.Exec(ctx, `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE args ->> 'task_id' = $1::bigint::text`, task.ID); err != nil {
		t.Fatal(err)
	}
	settle()
	if s := status(); s.TaskStatus != store.TaskPaused || s.Pending != 0 {
		t.Errorf("paused task with no work after a sweep: %s, %d pending; want paused", s.TaskStatus, s.Pending)
	}
	detail, err := svc.ShowTask(ctx, org, task.ID)
	if err != nil || detail.Status != store.TaskPaused || detail.PausedAt == nil || detail.Budget != "minimal" {
		t.Errorf("show a paused task: %+v, %v", detail, err)
	}

	if _, err := svc.SetBudget(ctx, org, task.ID, "lavish"); !errors.Is(err, errs.ErrBadInput) {
		t.Errorf("budget lavish: %v, want ErrBadInput", err)
	}
	b, err := svc.SetBudget(ctx, org, task.ID, "deep")
	if err != nil || b.Budget != "deep" || !b.Changed || b.Status != store.TaskPaused {
		t.Errorf("budget of a paused task: %+v, %v", b, err)
	}
	r, err := svc.ResumeTask(ctx, org, task.ID)
	if err != nil || r.Status != "active" || r.PausedAt != nil || !r.Changed || r.Budget != "deep" {
		t.Fatalf("resume: %+v, %v", r, err)
	}
	if r, err := svc.ResumeTask(ctx, org, task.ID); err != nil || r.Changed {
		t.Errorf("resume of an active task: %+v, %v; want unchanged", r, err)
	}
	settle()
	if s := status(); s.TaskStatus != "completed" || s.CompletedAt == nil {
		t.Errorf("resumed task with no work after a sweep: %s, want completed", s.TaskStatus)
	}
	// A completed task paused is no longer completed, and is again once resumed.
	if p, err := svc.PauseTask(ctx, org, task.ID); err != nil || p.Status != store.TaskPaused {
		t.Errorf("pause a completed task: %+v, %v", p, err)
	}
	if s := status(); s.CompletedAt != nil {
		t.Errorf("a paused task keeps completed_at %s", s.CompletedAt)
	}
	if _, err := svc.ResumeTask(ctx, org, task.ID); err != nil {
		t.Fatal(err)
	}
	settle()
	if s := status(); s.TaskStatus != "completed" {
		t.Errorf("resumed again: %s, want completed", s.TaskStatus)
	}

	var events []string
	rows, err := pool.Query(ctx, `SELECT event_type FROM event_log WHERE task_id = $1 AND event_type IN ('task_paused', 'task_resumed', 'budget_changed') ORDER BY id`, task.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var e string
		if err := rows.Scan(&e); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
	}
	if want := []string{"task_paused", "budget_changed", "task_resumed", "task_paused", "task_resumed"}; !slices.Equal(events, want) {
		t.Errorf("task events %v, want %v", events, want)
	}

	if _, err := svc.StopTask(ctx, org, task.ID, ""); err != nil {
		t.Fatal(err)
	}
	for name, call := range map[string]func() (service.Lifecycle, error){
		"pause":  func() (service.Lifecycle, error) { return svc.PauseTask(ctx, org, task.ID) },
		"resume": func() (service.Lifecycle, error) { return svc.ResumeTask(ctx, org, task.ID) },
		"budget": func() (service.Lifecycle, error) { return svc.SetBudget(ctx, org, task.ID, "standard") },
	} {
		if _, err := call(); !errors.Is(err, errs.ErrTaskStopped) {
			t.Errorf("%s of a stopped task: %v, want ErrTaskStopped", name, err)
		}
	}
}
