package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/jobs"
)

// targetRows returns the task's registered targets and its target_queue
// jobs' targets, each as "kind value" sorted, and the jobs' ids: those the
// caller added, not the results of its query targets (the test worker
// searches its replay archive).
func (b *bundle) targetRows(t *testing.T, task int64) (targets, jobTargets []string, jobIDs []int64) {
	t.Helper()
	rows, err := b.f.Pool.Query(b.ctx, `SELECT kind || ' ' || value FROM targets WHERE task_id = $1 AND via <> 'query'`, task)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		targets = append(targets, s)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	rows, err = b.f.Pool.Query(b.ctx, `SELECT id, (args -> 'target' ->> 'kind') || ' ' || (args -> 'target' ->> 'value')
		FROM river_job WHERE kind = 'target_queue' AND (args ->> 'task_id')::bigint = $1 AND COALESCE((args ->> 'depth')::int, 0) = 0`, task)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var s string
		if err := rows.Scan(&id, &s); err != nil {
			t.Fatal(err)
		}
		jobIDs, jobTargets = append(jobIDs, id), append(jobTargets, s)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	slices.Sort(targets)
	slices.Sort(jobTargets)
	slices.Sort(jobIDs)
	return targets, jobTargets, jobIDs
}

// --doi and --query register targets of their kinds, normalised as the
// worker normalises them, with one target_queue job each, mixed with --url
// in one call; --json reports the normalised targets and the jobs.
func TestTargetAddDOIAndQuery(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task := b.createTask(t)
	taskArg := fmt.Sprint(task)

	var out targetAddJSON
	b.mustRunJSON(t, &out, "target", "add", "--task", taskArg,
		"--doi", "https://doi.org/10.1093/MIND/LIX.236.433",
		"--query", "  glacier   retreat  Alps ",
		"--url", urlWiki,
		"--doi", "doi:10.5555/Example.1",
		"--query", "sea level rise")
	wantTargets := []jobs.Target{
		{Kind: jobs.TargetURL, Value: urlWiki},
		{Kind: jobs.TargetDOI, Value: "10.1093/mind/lix.236.433"},
		{Kind: jobs.TargetDOI, Value: "10.5555/example.1"},
		{Kind: jobs.TargetQuery, Value: "glacier retreat Alps"},
		{Kind: jobs.TargetQuery, Value: "sea level rise"},
	}
	if out.TaskID != task || out.Inserted != 5 || out.Skipped != 0 || len(out.JobIDs) != 5 {
		t.Errorf("target add --json = %+v, want 5 inserted", out)
	}
	if !slices.Equal(out.Targets, wantTargets) {
		t.Errorf("target add --json targets = %v, want %v", out.Targets, wantTargets)
	}

	want := make([]string, len(wantTargets))
	for i, tg := range wantTargets {
		want[i] = tg.Kind + " " + tg.Value
	}
	slices.Sort(want)
	targets, jobTargets, jobIDs := b.targetRows(t, task)
	if !slices.Equal(targets, want) {
		t.Errorf("targets registered %q, want %q", targets, want)
	}
	if !slices.Equal(jobTargets, want) {
		t.Errorf("target_queue jobs for %q, want one per target %q", jobTargets, want)
	}
	slices.Sort(out.JobIDs)
	if !slices.Equal(jobIDs, out.JobIDs) {
		t.Errorf("target_queue jobs in the database %v, reported %v", jobIDs, out.JobIDs)
	}

	t.Run("the same targets spelled differently add none", func(t *testing.T) {
		var again targetAddJSON
		b.mustRunJSON(t, &again, "target", "add", "--task", taskArg,
			"--doi", "10.1093/mind/lix.236.433", "--doi", "https://dx.doi.org/10.5555/EXAMPLE.1",
			"--query", "glacier retreat Alps")
		// The worker may have finished (and so let go of) a job already:
		// the targets, unique per task, are what must not grow.
		if again.Inserted+again.Skipped != 3 {
			t.Errorf("target add = %+v, want 3 targets reported", again)
		}
		if got, _, _ := b.targetRows(t, task); !slices.Equal(got, want) {
			t.Errorf("targets after adding them again %q, want %q", got, want)
		}
	})

	t.Run("file lines that are DOIs become doi targets", func(t *testing.T) {
		other := b.createTask(t)
		file := b.writeFile(t, "mixed.txt", "# papers and a page\n10.5555/Plain.2\ndoi:10.5555/prefixed.3\n"+
			"https://doi.org/10.5555/Linked.4\n"+urlScience+"\n")
		var res targetAddJSON
		b.mustRunJSON(t, &res, "target", "add", "--task", fmt.Sprint(other), "--file", file)
		wantFile := []string{"doi 10.5555/linked.4", "doi 10.5555/plain.2", "doi 10.5555/prefixed.3", "url " + urlScience}
		if res.Inserted != 4 {
			t.Errorf("target add --file = %+v, want 4 inserted", res)
		}
		if got, _, _ := b.targetRows(t, other); !slices.Equal(got, wantFile) {
			t.Errorf("targets from the file %q, want %q", got, wantFile)
		}
	})

	t.Run("plain output", func(t *testing.T) {
		got := b.mustRun(t, "target", "add", "--task", taskArg, "--doi", "10.5555/plain.out", "--query", "ice sheet")
		if got != "2 targets: 2 jobs inserted, 0 already queued or done\n" {
			t.Errorf("target add printed %q", got)
		}
	})
}

// A bad --doi or --query is a usage error naming the flag and the value, and
// nothing of the call is inserted, not even its good targets.
func TestTargetAddRefusesBadDOIAndQuery(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task := b.createTask(t)
	taskArg := fmt.Sprint(task)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"not a doi", []string{"--url", urlWiki, "--doi", "not-a-doi", "--query", "sea ice"},
			[]string{`--doi "not-a-doi"`, "invalid DOI"}},
		{"doi without a suffix", []string{"--doi", "10.1234/"}, []string{`--doi "10.1234/"`, "invalid DOI"}},
		{"url given as doi", []string{"--doi", urlWiki}, []string{`--doi "` + urlWiki + `"`, "invalid DOI"}},
		{"blank query", []string{"--doi", "10.5555/ok.1", "--query", "   "}, []string{`--query "   "`, `"target.value"`, "required"}},
		{"bad url beside good doi", []string{"--doi", "10.5555/ok.1", "--url", "ftp://x"}, []string{`--url "ftp://x"`}},
		{"bad doi line in file", []string{"--file", b.writeFile(t, "bad-dois.txt", "10.5555/ok.1\n\ndoi:nonsense\n")},
			[]string{"bad-dois.txt:3", `"doi:nonsense"`, "invalid DOI"}},
		{"none given", nil, []string{"--url", "--doi", "--query", "--file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := b.run(t, append([]string{"target", "add", "--task", taskArg}, tc.args...)...)
			if r.code() != 2 {
				t.Fatalf("exit %d (%v), want 2", r.code(), r.err)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.err.Error(), w) {
					t.Errorf("error %q does not contain %s", r.err, w)
				}
			}
		})
	}
	t.Run("json changes nothing", func(t *testing.T) {
		r := b.run(t, "target", "add", "--task", taskArg, "--doi", "nope", "--json")
		if r.code() != 2 || r.stdout != "" {
			t.Errorf("exit %d (%v), stdout %q; want 2 and no output", r.code(), r.err, r.stdout)
		}
	})
	if n := b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'target_queue'`); n != 0 {
		t.Errorf("%d target_queue jobs inserted by refused commands", n)
	}
	if n := b.count(t, `SELECT count(*) FROM targets`); n != 0 {
		t.Errorf("%d targets registered by refused commands", n)
	}
}

// TestWritersShareTheActiveTaskRule: claim add and target add refuse a task
// that does not exist or is stopped alike (store's one "task is active"
// rule), exit 1, name the task, and insert nothing.
func TestWritersShareTheActiveTaskRule(t *testing.T) {
	t.Parallel()
	b := setup(t)
	stopped := b.createTask(t)
	b.mustRun(t, "task", "stop", "--task", fmt.Sprint(stopped))
	for _, tc := range []struct {
		task int64
		want string
	}{{stopped, fmt.Sprintf("task %d is stopped", stopped)}, {stopped + 1000, fmt.Sprintf("task %d does not exist", stopped+1000)}} {
		for _, args := range [][]string{
			{"claim", "add", "--task", fmt.Sprint(tc.task), "--text", "Glaciers advance."},
			{"target", "add", "--task", fmt.Sprint(tc.task), "--url", urlBlog},
		} {
			r := b.run(t, args...)
			if r.code() != 1 || r.err == nil || !strings.Contains(r.err.Error(), tc.want) {
				t.Errorf("enqueue %s: exit %d, err %v; want exit 1 naming %q", strings.Join(args, " "), r.code(), r.err, tc.want)
			}
		}
	}
	if n := b.count(t, `SELECT count(*) FROM targets WHERE task_id = $1`, stopped); n != 0 {
		t.Errorf("%d targets registered on the stopped task", n)
	}
	if n := b.count(t, `SELECT count(*) FROM claims WHERE task_id = $1 AND text = 'Glaciers advance.'`, stopped); n != 0 {
		t.Errorf("%d claims added to the stopped task", n)
	}
}
