package main

import (
	"fmt"
	"testing"
)

// TestTaskCompletesAndReopens: status --wait ends on the recorded
// completion (task_status completed, with its time); a new target reopens
// the task at once, and it completes again when that work is done.
func TestTaskCompletesAndReopens(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task := b.createTask(t)
	id := fmt.Sprint(task)
	type state struct {
		TaskStatus  string  `json:"task_status"`
		CompletedAt *string `json:"completed_at"`
		Pending     int     `json:"pending"`
	}
	wait := func() state {
		var s state
		b.mustRunJSON(t, &s, "status", "--task", id, "--wait", "--interval", "50ms", "--timeout", "60s")
		return s
	}
	b.mustRun(t, "target", "add", "--task", id, "--url", urlWiki)
	if s := wait(); s.TaskStatus != "completed" || s.CompletedAt == nil || s.Pending != 0 {
		t.Fatalf("after the wait: %+v, want completed with its time and nothing pending", s)
	}
	b.mustRun(t, "target", "add", "--task", id, "--url", urlScience)
	var s state
	b.mustRunJSON(t, &s, "status", "--task", id)
	if s.TaskStatus != "active" || s.CompletedAt != nil {
		t.Errorf("after a new target: %+v, want active again", s)
	}
	if s := wait(); s.TaskStatus != "completed" {
		t.Errorf("after the second wait: %+v, want completed", s)
	}
}
