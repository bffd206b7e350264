package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestOtherOrganizationSeesNothing: every command that reads or changes a
// task, its claims or its edges, run with another --org, fails (exit 1)
// as for a task, claim or edge that does not exist, shows nothing of it,
// and changes nothing; the owner's organization ("default") still reads it.
func TestOtherOrganizationSeesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task, _ := b.runTask(t)
	var claim, edge int64
	if err := b.f.Pool.QueryRow(b.ctx, `SELECT c.id, e.id FROM claims c JOIN edges e ON e.target_id = c.id AND e.target_type = 'claim'
		WHERE c.task_id = $1 AND e.relation IN ('supports', 'refutes', 'neutral') LIMIT 1`, task).Scan(&claim, &edge); err != nil {
		t.Fatal(err)
	}
	var job int64
	if err := b.f.Pool.QueryRow(b.ctx, `SELECT min(id) FROM river_job WHERE args ->> 'task_id' = $1::bigint::text`, task).Scan(&job); err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprint(task)
	secret := strings.Fields(hypothesis)[0]
	for _, args := range [][]string{
		{"status", "--task", id}, {"graph", "--task", id}, {"report", "--task", id}, {"materials", "--task", id},
		{"claim", "add", "--task", id, "--text", "Another claim."}, {"target", "add", "--task", id, "--url", "https://x.example.org/"},
		{"job", "--kind", "rerank", "--args", `{"task_id": ` + id + `}`}, {"feedback", "export", "--task", id},
		{"feedback", "claim-reject", "--claim", fmt.Sprint(claim), "--reason", "r", "--by", "x"},
		{"feedback", "edge-correct", "--edge", fmt.Sprint(edge), "--relation", "refutes", "--reason", "r", "--by", "x"},
		{"task", "show", "--task", id}, {"job", "list", "--task", id},
		{"job", "retry", "--job", fmt.Sprint(job)}, {"job", "cancel", "--job", fmt.Sprint(job)},
		{"task", "stop", "--task", id},
	} {
		r := b.run(t, append(args, "--org", "intruder")...)
		if r.code() != 1 || r.err == nil || !strings.Contains(r.err.Error(), "does not exist") && !strings.Contains(r.err.Error(), "no NLI edge") {
			t.Errorf("enqueue %s --org intruder: exit %d (%v), want 1, not found", strings.Join(args, " "), r.code(), r.err)
		}
		if strings.Contains(r.stdout, secret) {
			t.Errorf("enqueue %s --org intruder printed the task:\n%s", strings.Join(args, " "), r.stdout)
		}
	}
	if out := b.mustRun(t, "task", "list", "--org", "intruder"); strings.Contains(out, secret) {
		t.Errorf("enqueue task list --org intruder listed the task:\n%s", out)
	}
	if n := b.count(t, `SELECT count(*) FROM claim_feedback`) + b.count(t, `SELECT count(*) FROM edge_feedback`) +
		b.count(t, `SELECT count(*) FROM tasks WHERE id = $1 AND status = 'stopped'`, task) +
		b.count(t, `SELECT count(*) FROM river_job WHERE id = $1 AND state <> 'completed'`, job); n != 0 {
		t.Errorf("another organization's commands changed %d rows", n)
	}
	if out := b.mustRun(t, "report", "--task", id); !strings.Contains(out, hypothesis) {
		t.Errorf("the owner's report lacks the hypothesis:\n%s", out)
	}
}

// TestEvidenceListCommand: the task's evidence walked with --limit and
// --cursor, every span the page version's text; another organization's
// task is not found; two filters are a usage error.
func TestEvidenceListCommand(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task, _ := b.runTask(t)
	id := fmt.Sprint(task)
	type page struct {
		Evidence []struct {
			PageVersionID int64  `json:"page_version_id"`
			StartChar     int    `json:"start_char"`
			EndChar       int    `json:"end_char"`
			Text          string `json:"text"`
			Kind          string `json:"kind"`
		} `json:"items"`
		Next string `json:"next_cursor"`
	}
	total, cursor := 0, ""
	for range 1000 {
		var p page
		args := []string{"evidence", "list", "--task", id, "--limit", "7"}
		if cursor != "" {
			args = append(args, "--cursor", cursor)
		}
		b.mustRunJSON(t, &p, args...)
		for _, s := range p.Evidence {
			var text string
			if err := b.f.Pool.QueryRow(b.ctx, `SELECT substring(content FROM $2 + 1 FOR $3 - $2) FROM page_versions WHERE id = $1`,
				s.PageVersionID, s.StartChar, s.EndChar).Scan(&text); err != nil || text != s.Text {
				t.Errorf("span %+v: version text %q (%v)", s, text, err)
			}
		}
		total += len(p.Evidence)
		if cursor = p.Next; cursor == "" {
			break
		}
	}
	edges := b.count(t, `SELECT count(*) FROM edges e JOIN claims c ON c.id = e.target_id WHERE c.task_id = $1 AND e.target_type = 'claim'
		AND e.source_type = 'fragment' AND e.relation IN ('supports', 'refutes', 'neutral')`, task)
	origins := b.count(t, `SELECT count(*) FROM claims WHERE task_id = $1 AND origin_fragment_id IS NOT NULL`, task)
	if total != edges+origins || total <= 7 {
		t.Errorf("%d spans listed, want %d edges + %d origins (more than one page)", total, edges, origins)
	}
	if r := b.run(t, "evidence", "list", "--task", id, "--org", "intruder"); r.code() != 1 {
		t.Errorf("another organization: exit %d (%v), want 1", r.code(), r.err)
	}
	if r := b.run(t, "evidence", "list", "--task", id, "--claim", "1"); r.code() != 2 {
		t.Errorf("two filters: exit %d (%v), want 2", r.code(), r.err)
	}
}
