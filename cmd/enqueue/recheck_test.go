package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestTaskRecheck: `task recheck` starts a round of the task's cited
// pages now and sets its schedule; the round (here from the replay
// archive, whose pages have not changed) finds every citation unchanged,
// and `status` and `report` say so, the report beside each quote.
func TestTaskRecheck(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task, _ := b.runTask(t)
	id := fmt.Sprint(task)
	if out := b.mustRun(t, "task", "recheck", "--task", id, "--every", "72h", "--now"); !regexp.MustCompile(`^task \d+ recheck started \(job \d+\); schedule: every 72h0m0s`).MatchString(out) {
		t.Errorf("task recheck: %q", out)
	}
	status := b.mustRun(t, "status", "--task", id, "--wait", "--interval", "50ms", "--timeout", "90s")
	m := regexp.MustCompile(`rechecks: (\d+) of (\d+) citations checked, 0 edited, 0 moved, 0 gone, 0 unreachable`).FindStringSubmatch(status)
	if m == nil || m[1] != m[2] || m[1] == "0" {
		t.Fatalf("status after the round lacks every citation checked and unchanged:\n%s", status)
	}
	report := b.mustRun(t, "report", "--task", id, "--all")
	if !strings.Contains(report, "rechecks of the cited pages: "+m[1]+" of "+m[2]) || !regexp.MustCompile(`\n      rechecked \d{4}-\d\d-\d\d: unchanged\n`).MatchString(report) {
		t.Errorf("the report lacks the rechecks:\n%s", report)
	}
	var every string
	if err := b.f.Pool.QueryRow(b.ctx, `SELECT recheck_every::text FROM tasks WHERE id = $1`, task).Scan(&every); err != nil || every != "72:00:00" {
		t.Errorf("the task's recheck_every is %q (%v), want 72:00:00", every, err)
	}
	if out := b.mustRun(t, "task", "recheck", "--task", id, "--never"); !strings.HasPrefix(out, "task "+id+" recheck not started now; schedule: never on schedule") {
		t.Errorf("task recheck --never: %q", out)
	}
	if err := b.f.Pool.QueryRow(b.ctx, `SELECT recheck_every::text FROM tasks WHERE id = $1`, task).Scan(&every); err != nil || every != "00:00:00" {
		t.Errorf("after --never the task's recheck_every is %q (%v), want 00:00:00", every, err)
	}
	if r := b.run(t, "task", "recheck", "--task", id, "--never", "--every", "2h"); r.err == nil || !strings.Contains(r.err.Error(), "at most one of") {
		t.Errorf("--never with --every: %v, want a usage error", r.err)
	}
}
