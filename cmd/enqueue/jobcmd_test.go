package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// jobListJSON mirrors the documented JSON of `enqueue job list`.
type jobListJSON struct {
	TaskID int64 `json:"task_id"`
	Jobs   []struct {
		ID          int64  `json:"id"`
		Kind        string `json:"kind"`
		State       string `json:"state"`
		Queue       string `json:"queue"`
		Attempt     int    `json:"attempt"`
		LastError   string `json:"last_error"`
		ScheduledAt string `json:"scheduled_at"`
	} `json:"items"`
	Next string `json:"next_cursor"`
}

// jobActionJSON mirrors the documented JSON of `enqueue job retry|cancel`.
type jobActionJSON struct {
	TaskID int64  `json:"task_id"`
	Was    string `json:"was"`
	Job    struct {
		ID    int64  `json:"id"`
		State string `json:"state"`
	} `json:"job"`
}

// TestJobListRetryCancel: a task's jobs listed newest first, by state and
// a page at a time; a job parked on a queue no worker serves (inserted with
// --allow-unserved) cancelled and retried through River; another
// organization's job, a missing one, a job for a missing task and bad flags
// refused.
func TestJobListRetryCancel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task := b.createTask(t)
	id := fmt.Sprint(task)
	testfleet.WaitIdle(t, b.f.Pool, 30*time.Second) // the hypothesis's verify_nli is done

	r := b.run(t, "job", "--kind", "rerank", "--args", `{"task_id": `+id+`}`, "--queue", "parked")
	if r.code() != 1 || r.err == nil || !strings.Contains(r.err.Error(), `queue "parked" is not served: no worker has served it`) ||
		!strings.Contains(r.err.Error(), "--allow-unserved") {
		t.Fatalf("a job for an unserved queue: exit %d (%v), want 1 naming the queue and --allow-unserved", r.code(), r.err)
	}
	if n := b.count(t, `SELECT count(*) FROM river_job WHERE queue = 'parked'`); n != 0 {
		t.Fatalf("%d jobs inserted on the unserved queue", n)
	}
	var ins struct {
		JobID int64  `json:"job_id"`
		Queue string `json:"queue"`
	}
	b.mustRunJSON(t, &ins, "job", "--kind", "rerank", "--args", `{"task_id": `+id+`}`, "--queue", "parked", "--allow-unserved")
	job := fmt.Sprint(ins.JobID)
	if ins.Queue != "parked" {
		t.Fatalf("inserted %+v, want queue parked", ins)
	}

	var list jobListJSON
	b.mustRunJSON(t, &list, "job", "list", "--task", id)
	total := b.count(t, `SELECT count(*) FROM river_job WHERE args ->> 'task_id' = $1`, id)
	if len(list.Jobs) != total || total < 2 || list.Jobs[0].ID != ins.JobID || list.Jobs[0].State != "available" || list.Next != "" {
		t.Fatalf("job list = %+v, want %d jobs, the parked one first", list, total)
	}
	b.mustRunJSON(t, &list, "job", "list", "--task", id, "--limit", "1")
	if len(list.Jobs) != 1 || list.Next != job {
		t.Errorf("job list --limit 1 = %+v, want the parked job and a cursor", list)
	}
	b.mustRunJSON(t, &list, "job", "list", "--task", id, "--state", "completed")
	if len(list.Jobs) != total-1 || list.Jobs[0].Kind != "verify_nli" {
		t.Errorf("job list --state completed = %+v, want the %d completed jobs", list, total-1)
	}
	if out := b.mustRun(t, "job", "list", "--task", id); !regexp.MustCompile(`(?m)^` + job + `\s+rerank\s+available\s+0/\d+\s+\d{4}-`).MatchString(out) {
		t.Errorf("job list:\n%s", out)
	}

	steps := []struct{ verb, was, now, says string }{
		{"cancel", "available", "cancelled", "available → cancelled"},
		{"cancel", "cancelled", "cancelled", "already cancelled; left as it is"},
		{"retry", "cancelled", "available", "cancelled → available"},
	}
	for _, s := range steps {
		var got jobActionJSON
		b.mustRunJSON(t, &got, "job", s.verb, "--job", job)
		if got.Was != s.was || got.Job.State != s.now || got.Job.ID != ins.JobID || got.TaskID != task {
			t.Errorf("job %s: %+v, want %s → %s", s.verb, got, s.was, s.now)
		}
	}
	if out := b.mustRun(t, "job", "cancel", "--job", job); !strings.Contains(out, "job "+job+" (rerank, task "+id+"): available → cancelled") {
		t.Errorf("job cancel printed %q", out)
	}

	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"job", "retry", "--job", job, "--org", "intruder"}, 1, "job " + job + ": job does not exist"},
		{[]string{"job", "cancel", "--job", job, "--org", "intruder"}, 1, "job " + job + ": job does not exist"},
		{[]string{"job", "list", "--task", id, "--org", "intruder"}, 1, "does not exist"},
		{[]string{"job", "retry", "--job", "999999"}, 1, "job 999999: job does not exist"},
		{[]string{"job", "--kind", "rerank", "--args", `{"task_id": 999999}`}, 1, "task 999999 does not exist"},
		{[]string{"job", "--kind", "rerank", "--args", `{"task_id": 999999}`, "--allow-unserved"}, 1, "task 999999 does not exist"},
		{[]string{"job", "retry"}, 2, "--job"},
		{[]string{"job", "list"}, 2, "--task"},
		{[]string{"job", "list", "--task", id, "--state", "done"}, 2, `state "done"`},
		{[]string{"job", "list", "--task", id, "--limit", "501"}, 2, "limit 501"},
	} {
		r := b.run(t, tc.args...)
		if r.code() != tc.code || r.err == nil || !strings.Contains(r.err.Error(), tc.msg) {
			t.Errorf("enqueue %s: exit %d (%v), want %d, %s", strings.Join(tc.args, " "), r.code(), r.err, tc.code, tc.msg)
		}
	}
	if state := b.count(t, `SELECT count(*) FROM river_job WHERE id = $1 AND state = 'cancelled'`, ins.JobID); state != 1 {
		t.Error("another organization's retry changed the job")
	}
}

// TestJobCancelRecordsWhoAndWhy: a person cancels a target's waiting job
// with a reason; the job's errors and output name it, the target ends
// cancelled with the reason, and status shows both.
func TestJobCancelRecordsWhoAndWhy(t *testing.T) {
	t.Parallel()
	f := testfleet.Start(t, testfleet.Options{Pages: cliPages(), Queues: []string{jobs.QueueMaintenance}}) // nothing takes the target's job
	b := &bundle{ctx: context.Background(), f: f, dir: t.TempDir(), url: f.URL}
	task := b.createTask(t)
	id := fmt.Sprint(task)
	b.mustRun(t, "target", "add", "--task", id, "--url", urlBlog)
	var list jobListJSON
	b.mustRunJSON(t, &list, "job", "list", "--task", id, "--state", "available")
	var job int64
	for _, j := range list.Jobs {
		if j.Kind == "target_queue" {
			job = j.ID
		}
	}
	if job == 0 {
		t.Fatalf("no available target_queue job: %+v", list)
	}
	if out := b.mustRun(t, "job", "cancel", "--job", fmt.Sprint(job), "--reason", "the wrong site", "--by", "alice"); !strings.Contains(out, "available → cancelled") {
		t.Fatalf("job cancel printed %q", out)
	}
	b.mustRun(t, "job", "cancel", "--job", fmt.Sprint(job), "--reason", "again") // already cancelled: nothing more recorded
	var status, reason string
	if err := f.Pool.QueryRow(b.ctx, `SELECT status, COALESCE(error, '') FROM targets WHERE task_id = $1 AND value = $2`, task, urlBlog).Scan(&status, &reason); err != nil {
		t.Fatal(err)
	}
	if status != "cancelled" || reason != "cancelled by alice: the wrong site" {
		t.Errorf("the target: %s %q, want cancelled with the reason", status, reason)
	}
	var errors int
	if err := f.Pool.QueryRow(b.ctx, `SELECT cardinality(errors) FROM river_job WHERE id = $1`, job).Scan(&errors); err != nil || errors != 1 {
		t.Errorf("the job's errors: %d (%v), want the one reason", errors, err)
	}
	var st statusJSON
	b.mustRunJSON(t, &st, "status", "--task", id)
	found := false
	for _, p := range st.Problems {
		found = found || p.ID == job && p.Failure == "cancelled_by_person" && p.Error == "cancelled by alice: the wrong site"
	}
	if !found || st.Targets["cancelled"] != 1 {
		t.Errorf("status: problems %+v, targets %v; want the job with its reason and the target cancelled", st.Problems, st.Targets)
	}
	if out := b.mustRun(t, "status", "--task", id); !strings.Contains(out, "target_queue cancelled (attempt 0, cancelled_by_person): cancelled by alice: the wrong site") ||
		!strings.Contains(out, "cancelled=1") {
		t.Errorf("status does not show the cancel and its reason:\n%s", out)
	}
}
