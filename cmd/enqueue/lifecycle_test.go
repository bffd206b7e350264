package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestTaskPauseResumeBudget: a paused task takes a target but does not
// fetch it, shows paused in status and task show, takes a new budget class;
// resumed, it fetches its target and completes; its budget is then refused
// with the reason, and a budget without --budget is a usage error.
func TestTaskPauseResumeBudget(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task := b.createTask(t)
	id := fmt.Sprint(task)
	if out := b.mustRun(t, "task", "pause", "--task", id); !strings.HasPrefix(out, "task "+id+" paused since ") || !strings.Contains(out, "budget standard") {
		t.Errorf("task pause printed %q", out)
	}
	url := cliPages()[0].URL
	b.mustRun(t, "target", "add", "--task", id, "--url", url)
	var s struct {
		TaskStatus string `json:"task_status"`
		Pending    int    `json:"pending"`
	}
	b.mustRunJSON(t, &s, "status", "--task", id)
	if s.TaskStatus != "paused" || s.Pending == 0 {
		t.Errorf("status of the paused task with a target: %s, %d pending; want paused with work pending", s.TaskStatus, s.Pending)
	}
	if out := b.mustRun(t, "task", "show", "--task", id); !strings.Contains(out, "status: paused since ") || !strings.Contains(out, "budget: standard") {
		t.Errorf("task show of the paused task:\n%s", out)
	}
	if r := b.run(t, "task", "budget", "--task", id); r.code() != 2 || !strings.Contains(fmt.Sprint(r.err), "--budget is required") {
		t.Errorf("task budget without --budget: exit %d, %v; want 2", r.code(), r.err)
	}
	if r := b.run(t, "task", "budget", "--task", id, "--budget", "lavish"); r.code() != 2 {
		t.Errorf("task budget lavish: exit %d, %v; want 2", r.code(), r.err)
	}
	if out := b.mustRun(t, "task", "budget", "--task", id, "--budget", "deep"); !strings.Contains(out, "budget deep") {
		t.Errorf("task budget deep printed %q", out)
	}
	if n := b.count(t, `SELECT count(*) FROM targets WHERE task_id = $1 AND status <> 'seen'`, task); n != 0 {
		t.Errorf("%d targets of the paused task were taken up", n)
	}
	if out := b.mustRun(t, "task", "resume", "--task", id); !strings.HasPrefix(out, "task "+id+" active, budget deep") {
		t.Errorf("task resume printed %q", out)
	}
	b.mustRunJSON(t, &s, "status", "--task", id, "--wait", "--timeout", "2m")
	if s.TaskStatus != "completed" {
		t.Errorf("resumed task after status --wait: %s, want completed", s.TaskStatus)
	}
	if n := b.count(t, `SELECT count(*) FROM targets WHERE task_id = $1 AND status = 'extracted'`, task); n != 1 {
		t.Errorf("%d targets extracted after the resume, want 1", n)
	}
	r := b.run(t, "task", "budget", "--task", id, "--budget", "minimal")
	if r.code() != 1 || !strings.Contains(fmt.Sprint(r.err), "only while it is paused") {
		t.Errorf("task budget of a completed task: exit %d, %v; want 1 saying it must be paused", r.code(), r.err)
	}
}
