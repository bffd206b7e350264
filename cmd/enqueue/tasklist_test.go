package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// taskListJSON mirrors the documented JSON of `enqueue task list`.
type taskListJSON struct {
	Tasks []struct {
		ID         int64     `json:"id"`
		Status     string    `json:"status"`
		Hypothesis string    `json:"hypothesis"`
		CreatedAt  time.Time `json:"created_at"`
		Claims     int       `json:"claims"`
		Targets    int       `json:"targets"`
		Pages      int       `json:"pages"`
	} `json:"items"`
	Next string `json:"next_cursor"`
}

// TestTaskListAndShow: task list gives the organization's tasks newest
// first with their counts, a page at a time; task show gives one task with
// its claims, targets, pages and jobs; another organization sees none of
// them; bad pages and missing tasks are refused.
func TestTaskListAndShow(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task, _ := b.runTask(t)
	id := fmt.Sprint(task)
	newer := []int64{b.createTask(t), b.createTask(t), b.createTask(t)}

	var all []int64
	cursor, pages := "", 0
	for range 10 {
		var p taskListJSON
		args := []string{"task", "list", "--limit", "2"}
		if cursor != "" {
			args = append(args, "--cursor", cursor)
		}
		b.mustRunJSON(t, &p, args...)
		pages++
		for _, tk := range p.Tasks {
			all = append(all, tk.ID)
			if tk.ID == task {
				claims, targets := b.count(t, `SELECT count(*) FROM claims WHERE task_id = $1`, task), b.count(t, `SELECT count(*) FROM targets WHERE task_id = $1`, task)
				if tk.Claims != claims || tk.Targets != targets || tk.Targets != 3 || tk.Pages != 3 || tk.Hypothesis != hypothesis || tk.CreatedAt.IsZero() {
					t.Errorf("listed %+v, want %d claims, %d targets, 3 pages", tk, claims, targets)
				}
			}
		}
		if cursor = p.Next; cursor == "" {
			break
		}
	}
	if want := []int64{newer[2], newer[1], newer[0], task}; fmt.Sprint(all) != fmt.Sprint(want) || pages != 2 {
		t.Errorf("listed %v in %d pages, want %v in 2 (newest first)", all, pages, want)
	}
	out := b.mustRun(t, "task", "list")
	if !strings.Contains(out, "hypothesis") || !strings.Contains(out, id+" ") || !strings.Contains(out, "Glaciers are retreating") {
		t.Errorf("task list:\n%s", out)
	}
	if out := b.mustRun(t, "task", "list", "--org", "intruder"); strings.Contains(out, "Glaciers") || !strings.Contains(out, "no tasks") {
		t.Errorf("task list --org intruder:\n%s", out)
	}

	out = b.mustRun(t, "task", "show", "--task", id)
	for _, want := range []string{"task " + id + ": " + hypothesis, "organization: default", "status: ", "pages: 3", "targets: 3 (extracted=3)", "jobs: 0 pending (completed="} {
		if !strings.Contains(out, want) {
			t.Errorf("task show lacks %q:\n%s", want, out)
		}
	}
	var show struct {
		ID       int64          `json:"id"`
		Org      string         `json:"organization_id"`
		Claims   int            `json:"claims"`
		Verdicts map[string]int `json:"claims_by_verdict"`
		Pages    int            `json:"pages"`
		Jobs     map[string]int `json:"jobs_by_state"`
		Pending  int            `json:"jobs_pending"`
	}
	b.mustRunJSON(t, &show, "task", "show", "--task", id)
	jobs := b.count(t, `SELECT count(*) FROM river_job WHERE args ->> 'task_id' = $1`, id)
	if show.ID != task || show.Org != "default" || show.Pages != 3 || show.Pending != 0 || show.Jobs["completed"] != jobs || show.Claims < 2 {
		t.Errorf("task show --json = %+v, want %d completed jobs", show, jobs)
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"task", "show", "--task", id, "--org", "intruder"}, 1},
		{[]string{"task", "show", "--task", fmt.Sprint(newer[2] + 100)}, 1},
		{[]string{"task", "show"}, 2},
		{[]string{"task", "list", "--limit", "501"}, 2},
		{[]string{"task", "list", "--cursor", "next"}, 2},
	} {
		if r := b.run(t, tc.args...); r.code() != tc.code || strings.Contains(r.stdout, "Glaciers") {
			t.Errorf("enqueue %s: exit %d (%v), want %d", strings.Join(tc.args, " "), r.code(), r.err, tc.code)
		}
	}
}
