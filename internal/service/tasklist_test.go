package service_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/intake"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// TestListTasks: the organization's tasks newest first, walked with a
// cursor, each with its claims, targets and pages counted; another
// organization's tasks never appear; a bad limit or cursor is a bad
// request.
func TestListTasks(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	ctx := context.Background()
	var mine []int64
	for i := range 7 {
		mine = append(mine, b.createTask(t, "alpha", fmt.Sprintf("Hypothesis %d.", i)))
		b.createTask(t, "beta", fmt.Sprintf("The stranger's hypothesis %d.", i))
	}
	first := mine[0]
	if _, err := b.svc.AddClaims(ctx, "alpha", first, []string{"Ice is thinning.", "Seas are rising."}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.AddTargets(ctx, "alpha", first, []jobs.Target{{Kind: jobs.TargetURL, Value: "https://a.example.org/"}}); err != nil {
		t.Fatal(err)
	}
	b.exec(t, `WITH p AS (INSERT INTO pages (url, domain) VALUES ('https://a.example.org/', 'a.example.org') RETURNING id)
		INSERT INTO task_pages (task_id, page_id, reason) SELECT $1, id, 'url_target' FROM p`, first)

	var listed []service.TaskSummary
	cursor, pages := "", 0
	for range 10 {
		page, err := b.svc.ListTasks(ctx, "alpha", 3, cursor)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		listed = append(listed, page.Tasks...)
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if len(listed) != len(mine) || pages != 3 {
		t.Fatalf("listed %d tasks in %d pages, want %d in 3", len(listed), pages, len(mine))
	}
	for i, task := range listed {
		if want := mine[len(mine)-1-i]; task.ID != want {
			t.Errorf("task %d listed as %d, want %d (newest first)", i, task.ID, want)
		}
	}
	if got := listed[len(listed)-1]; got.Claims != 3 || got.Targets != 1 || got.Pages != 1 || got.Status != "active" || got.Hypothesis != "Hypothesis 0." {
		t.Errorf("the first task %+v, want 3 claims, 1 target, 1 page", got)
	}
	if page, err := b.svc.ListTasks(ctx, "gamma", 0, ""); err != nil || len(page.Tasks) != 0 || page.Next != "" {
		t.Errorf("an organization without tasks: %+v, %v", page, err)
	}
	for _, bad := range []struct {
		limit  int
		cursor string
	}{{501, ""}, {-1, ""}, {0, "abc"}, {0, "0"}} {
		if _, err := b.svc.ListTasks(ctx, "alpha", bad.limit, bad.cursor); !errors.Is(err, service.ErrBadRequest) {
			t.Errorf("ListTasks(limit %d, cursor %q): %v, want a bad request", bad.limit, bad.cursor, err)
		}
	}
}

// TestShowTask: one task with its claims by verdict, targets by status,
// pages and jobs by state.
func TestShowTask(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	ctx := context.Background()
	task := b.createTask(t, "alpha", "Glaciers are retreating.")
	if _, err := b.svc.AddClaims(ctx, "alpha", task, []string{"Ice is thinning."}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.svc.AddTargets(ctx, "alpha", task, []jobs.Target{{Kind: jobs.TargetURL, Value: "https://a.example.org/"},
		{Kind: jobs.TargetURL, Value: "https://b.example.org/"}}); err != nil {
		t.Fatal(err)
	}
	b.exec(t, `UPDATE targets SET status = 'failed', error = 'gone' WHERE value = 'https://b.example.org/'`)
	b.exec(t, `UPDATE river_job SET state = 'completed', finalized_at = now() WHERE kind = 'target_queue'`)
	d, err := b.svc.ShowTask(ctx, "alpha", task)
	if err != nil {
		t.Fatal(err)
	}
	pending := b.count(t, `SELECT count(*) FROM river_job WHERE args ->> 'task_id' = $1::bigint::text AND state <> 'completed'`, task)
	if d.ID != task || d.OrganizationID != "alpha" || d.Hypothesis != "Glaciers are retreating." || d.Status != "active" || d.CreatedAt.IsZero() {
		t.Errorf("task %+v", d)
	}
	if d.Claims != 2 || d.Targets != 2 || d.TargetsBy["failed"] != 1 || d.TargetsBy["seen"] != 1 || d.Pages != 0 {
		t.Errorf("counts %+v, want 2 claims, 2 targets (1 failed, 1 seen), no page", d)
	}
	if d.Jobs["completed"] != 2 || d.Pending != pending || d.Jobs["available"] != pending {
		t.Errorf("jobs %v (%d pending), want 2 completed and %d available", d.Jobs, d.Pending, pending)
	}
}

// TestConcurrentCreatesWithOneIdempotencyKey: creates racing with one key
// make one task, and every one of them answers with it.
func TestConcurrentCreatesWithOneIdempotencyKey(t *testing.T) {
	t.Parallel()
	svc, pool := newService(t)
	ctx := context.Background()
	const n = 8
	ids := make([]int64, n)
	created := make([]bool, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			task, made, err := svc.CreateTaskOnce(ctx, "acme", intake.TaskSpec{Hypothesis: "Sea ice is thinning.", IdempotencyKey: "k1"})
			if err != nil {
				t.Error(err)
			}
			ids[i], created[i] = task.TaskID, made
		})
	}
	wg.Wait()
	made := 0
	for i := range n {
		if ids[i] != ids[0] || ids[i] == 0 {
			t.Errorf("create %d answered task %d, create 0 task %d", i, ids[i], ids[0])
		}
		if created[i] {
			made++
		}
	}
	var tasks int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM tasks`).Scan(&tasks); err != nil || tasks != 1 || made != 1 {
		t.Errorf("%d tasks (%v), %d said made, want 1 and 1", tasks, err, made)
	}
}
