package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgbouncer"
)

// TestThroughPgBouncer drives a task through PgBouncer in transaction mode,
// as an operator's shell in a cluster behind one would: the CLI's
// statements are unnamed (store.PoolConfig), so none is lost between the
// pooler's server connections. The task is created, given a target, worked
// (the workers straight to Postgres) and read back.
func TestThroughPgBouncer(t *testing.T) {
	pgbouncer.Need(t)
	t.Parallel()
	b := setup(t)
	bouncer, err := pgbouncer.Start(b.ctx, b.url, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bouncer.Close)
	if b.url, err = bouncer.Pooled(b.url); err != nil {
		t.Fatal(err)
	}
	task := b.createTask(t)
	id := fmt.Sprint(task)
	b.mustRun(t, "target", "add", "--task", id, "--url", urlWiki)
	var s struct {
		TaskStatus string `json:"task_status"`
		Pending    int    `json:"pending"`
	}
	b.mustRunJSON(t, &s, "status", "--task", id, "--wait", "--interval", "50ms", "--timeout", "60s")
	if s.TaskStatus != "completed" || s.Pending != 0 {
		t.Fatalf("through PgBouncer: %+v, want the task completed", s)
	}
	if out := b.mustRun(t, "task", "show", "--task", id); !strings.Contains(out, "status: completed") {
		t.Errorf("task show through PgBouncer:\n%s", out)
	}
}
