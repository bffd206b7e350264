package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/corpus"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// The glacier archive (testfleet.GlacierPages).
const (
	urlWiki    = testfleet.GlacierWiki
	urlScience = testfleet.GlacierScience
	urlBlog    = testfleet.GlacierBlog
	hypothesis = testfleet.GlacierHypothesis
)

func cliPages() []corpus.Page { return testfleet.GlacierPages() }

// bundle is a running worker on a fresh database; every command of the CLI
// under test gets --database-url pointing at it (the flag wins over
// EVF_DATABASE_URL and DATABASE_URL), so no test changes the environment and
// the tests can run in parallel.
type bundle struct {
	ctx context.Context
	f   *testfleet.Fleet
	dir string // scratch directory for input files
	url string // given as --database-url to every command; "" gives none
}

func setup(t *testing.T) *bundle {
	t.Helper()
	f := testfleet.Start(t, testfleet.Options{Pages: cliPages()})
	return &bundle{ctx: context.Background(), f: f, dir: t.TempDir(), url: f.URL}
}

// result is one in-process run of the CLI.
type result struct {
	stdout, stderr string
	err            error
}

// code is the exit code main would use.
func (r result) code() int { return exitCode(r.err) }

// run executes the enqueue root command with args, as main does, preceded
// by --database-url b.url when b.url is set.
func (b *bundle) run(t *testing.T, args ...string) result {
	t.Helper()
	if b.url != "" {
		args = append([]string{"--database-url", b.url}, args...)
	}
	root := newRoot()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := root.ExecuteContext(b.ctx)
	return result{stdout: out.String(), stderr: errOut.String(), err: err}
}

// mustRun runs the CLI and fails the test unless it exits 0.
func (b *bundle) mustRun(t *testing.T, args ...string) string {
	t.Helper()
	r := b.run(t, args...)
	if r.err != nil {
		t.Fatalf("enqueue %s: exit %d: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code(), r.err, r.stdout, r.stderr)
	}
	return r.stdout
}

// mustRunJSON runs the CLI with --json and decodes its output into v.
func (b *bundle) mustRunJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	out := b.mustRun(t, append(args, "--json")...)
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("enqueue %s --json: output is not JSON: %v\n%s", strings.Join(args, " "), err, out)
	}
	if dec.More() {
		t.Fatalf("enqueue %s --json: more than one JSON value:\n%s", strings.Join(args, " "), out)
	}
}

func (b *bundle) writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(b.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func (b *bundle) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := b.f.Pool.QueryRow(b.ctx, query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func (b *bundle) createTask(t *testing.T) int64 {
	t.Helper()
	var out struct {
		TaskID     int64  `json:"id"`
		Hypothesis string `json:"hypothesis"`
	}
	b.mustRunJSON(t, &out, "task", "create", "--hypothesis", hypothesis)
	if out.TaskID <= 0 {
		t.Fatalf("task create returned task id %d", out.TaskID)
	}
	return out.TaskID
}

// statusJSON mirrors the documented JSON of `enqueue status`.
type statusJSON struct {
	TaskID   int64                     `json:"task_id"`
	Jobs     map[string]map[string]int `json:"jobs"`
	Pending  *int                      `json:"pending"`
	Finished int                       `json:"finished"`
	Verdicts map[string]int            `json:"claims_by_verdict"`
	Targets  map[string]int            `json:"targets_by_status"`
	Problems []struct {
		ID      int64  `json:"id"`
		Kind    string `json:"kind"`
		State   string `json:"state"`
		Error   string `json:"error"`
		Failure string `json:"failure"`
	} `json:"job_problems"`
}

// runTask creates a task with one more claim and the three pages as targets,
// and waits with `status --wait` until the fleet is done with it.
func (b *bundle) runTask(t *testing.T) (int64, statusJSON) {
	t.Helper()
	task := b.createTask(t)
	b.mustRun(t, "claim", "add", "--task", fmt.Sprint(task), "--text", "Mountain glaciers contribute to sea level rise.")
	b.mustRun(t, "target", "add", "--task", fmt.Sprint(task), "--url", urlWiki, "--url", urlScience, "--url", urlBlog)
	var st statusJSON
	b.mustRunJSON(t, &st, "status", "--task", fmt.Sprint(task), "--wait", "--interval", "50ms", "--timeout", "90s")
	return task, st
}

func TestTaskCreate(t *testing.T) {
	t.Parallel()
	b := setup(t)

	t.Run("json returns the task and makes the hypothesis E1", func(t *testing.T) {
		var out map[string]any
		b.mustRunJSON(t, &out, "task", "create", "--hypothesis", "  "+hypothesis+" ", "--org", "acme")
		id, ok := out["id"].(float64)
		if !ok || id <= 0 {
			t.Fatalf("task create --json = %v, want a positive id", out)
		}
		if out["hypothesis"] != hypothesis || out["organization_id"] != "acme" {
			t.Errorf("task create --json = %v, want the trimmed hypothesis and org acme", out)
		}
		var text, kind string
		var no int
		err := b.f.Pool.QueryRow(b.ctx, `SELECT text, kind, evidence_no FROM claims WHERE task_id = $1`, int64(id)).Scan(&text, &kind, &no)
		if err != nil {
			t.Fatalf("hypothesis claim of task %v: %v", id, err)
		}
		if text != hypothesis || kind != "hypothesis" || no != 1 {
			t.Errorf("task's claim = %q %s E%d, want the hypothesis as E1", text, kind, no)
		}
	})

	t.Run("plain output is the id alone", func(t *testing.T) {
		out := b.mustRun(t, "task", "create", "--hypothesis", "Another hypothesis about ice.")
		var id int64
		if _, err := fmt.Sscanf(out, "%d\n", &id); err != nil || id <= 0 || strings.TrimSpace(out) != fmt.Sprint(id) {
			t.Errorf("task create printed %q, want a task id line", out)
		}
	})

	t.Run("an idempotency key makes a retry print the first task", func(t *testing.T) {
		args := []string{"task", "create", "--hypothesis", "Sea ice is thinning.", "--idempotency-key", "nightly-42"}
		first, again := b.mustRun(t, args...), b.mustRun(t, args...)
		if first != again || strings.TrimSpace(first) == "" {
			t.Errorf("the same create twice printed %q then %q, want the same task", first, again)
		}
		if r := b.run(t, "task", "create", "--hypothesis", "Another.", "--idempotency-key", "nightly-42"); r.code() != 2 {
			t.Errorf("the key with another hypothesis: exit %d (%v), want 2", r.code(), r.err)
		}
	})

	for _, tc := range []struct {
		name string
		args []string
		want int // -1: any failure
	}{
		{"missing hypothesis", []string{"task", "create"}, 2},
		{"blank hypothesis", []string{"task", "create", "--hypothesis", "   "}, 2},
		{"unexpected argument", []string{"task", "create", "--hypothesis", "x", "extra"}, -1},
		{"unknown flag", []string{"task", "create", "--hypothesis", "x", "--bogus"}, -1},
		{"hypothesis over the limit", []string{"task", "create", "--hypothesis", strings.Repeat("warming ", 230000)}, 2},
		{"organization over the limit", []string{"task", "create", "--hypothesis", "x", "--org", strings.Repeat("o", 201)}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := b.count(t, `SELECT count(*) FROM tasks`)
			r := b.run(t, tc.args...)
			if tc.want < 0 && r.code() == 0 || tc.want >= 0 && r.code() != tc.want {
				t.Errorf("exit %d (%v), want %d", r.code(), r.err, tc.want)
			}
			if after := b.count(t, `SELECT count(*) FROM tasks`); after != before {
				t.Errorf("%d tasks created by a refused command", after-before)
			}
		})
	}
}

// TestTaskCreateWithoutDatabaseURL changes the environment: it stays serial.
func TestTaskCreateWithoutDatabaseURL(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("EVF_DATABASE_URL", "")
	b := &bundle{ctx: context.Background()} // no fleet, no --database-url
	r := b.run(t, "task", "create", "--hypothesis", "x")
	if r.code() != 2 || !strings.Contains(r.err.Error(), "DATABASE_URL") {
		t.Errorf("exit %d (%v), want 2 naming DATABASE_URL", r.code(), r.err)
	}
}

func TestClaimAdd(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task := b.createTask(t)
	taskArg := fmt.Sprint(task)

	type addedJSON struct {
		TaskID int64 `json:"task_id"`
		Claims []struct {
			ID         int64  `json:"id"`
			EvidenceNo int    `json:"evidence_no"`
			Text       string `json:"text"`
			New        bool   `json:"new"`
		} `json:"claims"`
	}

	t.Run("text", func(t *testing.T) {
		var out addedJSON
		b.mustRunJSON(t, &out, "claim", "add", "--task", taskArg, "--text", "Glaciers in the Alps lost half their volume.")
		if out.TaskID != task || len(out.Claims) != 1 || out.Claims[0].EvidenceNo != 2 || !out.Claims[0].New || out.Claims[0].ID <= 0 {
			t.Errorf("claim add --text = %+v, want one new claim E2", out)
		}
	})

	t.Run("file with text and claim keys", func(t *testing.T) {
		file := b.writeFile(t, "claims.jsonl", strings.Join([]string{
			`{"text": "Sea level rose by 20 cm since 1900."}`,
			``,
			`{"claim": "Global warming is driven by greenhouse gases.", "claim_label": "SUPPORTS"}`,
			`{"id": 3, "claim": "Glaciers in the Alps lost half their volume."}`,
		}, "\n")+"\n")
		var out addedJSON
		b.mustRunJSON(t, &out, "claim", "add", "--task", taskArg, "--file", file)
		if len(out.Claims) != 3 {
			t.Fatalf("claim add --file = %+v, want 3 claims", out)
		}
		want := []struct {
			no    int
			text  string
			isNew bool
		}{
			{3, "Sea level rose by 20 cm since 1900.", true},
			{4, "Global warming is driven by greenhouse gases.", true},
			{2, "Glaciers in the Alps lost half their volume.", false}, // added by --text above
		}
		for i, w := range want {
			c := out.Claims[i]
			if c.EvidenceNo != w.no || c.Text != w.text || c.New != w.isNew {
				t.Errorf("claim %d = E%d %q new=%v, want E%d %q new=%v", i, c.EvidenceNo, c.Text, c.New, w.no, w.text, w.isNew)
			}
		}
		if n := b.count(t, `SELECT count(*) FROM claims WHERE task_id = $1`, task); n != 4 {
			t.Errorf("task has %d claims, want 4 (hypothesis + 3)", n)
		}
	})

	t.Run("plain output", func(t *testing.T) {
		out := b.mustRun(t, "claim", "add", "--task", taskArg, "--text", "Sea level rose by 20 cm since 1900.")
		if out != "E3\texists\tSea level rose by 20 cm since 1900.\n" {
			t.Errorf("claim add printed %q", out)
		}
	})

	for _, tc := range []struct {
		name    string
		args    []string
		want    int
		message string
	}{
		{"no task", []string{"claim", "add", "--text", "x"}, 2, "--task"},
		{"neither text nor file", []string{"claim", "add", "--task", taskArg}, 2, "exactly one"},
		{"both text and file", []string{"claim", "add", "--task", taskArg, "--text", "x", "--file", "f"}, 2, "exactly one"},
		{"missing file", []string{"claim", "add", "--task", taskArg, "--file", filepath.Join(b.dir, "nope.jsonl")}, 2, "nope.jsonl"},
		{"line without text", []string{"claim", "add", "--task", taskArg, "--file", b.writeFile(t, "bad.jsonl", "{\"text\":\"ok claim text.\"}\n{\"label\":\"x\"}\n")}, 2, "bad.jsonl:2"},
		{"malformed line", []string{"claim", "add", "--task", taskArg, "--file", b.writeFile(t, "broken.jsonl", "{\"text\":\n")}, 2, "broken.jsonl:1"},
		{"task does not exist", []string{"claim", "add", "--task", "999999", "--text", "x"}, 1, "does not exist"},
		// Text no claim can be: refused at the door, naming the limit (it
		// used to be added, exit 0, and fail every verify_nli of the task).
		{"1.8 MB claim in a file", []string{"claim", "add", "--task", taskArg, "--file", b.writeFile(t, "huge.jsonl",
			"{\"text\":\"ok claim text.\"}\n{\"text\":\""+strings.Repeat("warming ", 230000)+"\"}\n")},
			2, "huge.jsonl:2: line longer than 65536 bytes"},
		{"claim over the limit in a file", []string{"claim", "add", "--task", taskArg, "--file", b.writeFile(t, "long-claim.jsonl",
			"{\"text\":\""+strings.Repeat("é", jobs.MaxTextRunes+1)+"\"}\n")}, 2, "long-claim.jsonl:1: claim is 2001 characters long"},
		{"claim over the limit", []string{"claim", "add", "--task", taskArg, "--text", strings.Repeat("a", jobs.MaxTextRunes+1)},
			2, "claim 1 is 2001 characters long, more than the 2000 allowed"},
		{"claim with a NUL", []string{"claim", "add", "--task", taskArg, "--text", "sea\x00level"}, 2, "control character U+0000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := b.count(t, `SELECT count(*) FROM claims`)
			r := b.run(t, tc.args...)
			if r.code() != tc.want || !strings.Contains(r.err.Error(), tc.message) {
				t.Errorf("exit %d (%v), want %d with an error containing %q", r.code(), r.err, tc.want, tc.message)
			}
			if after := b.count(t, `SELECT count(*) FROM claims`); after != before {
				t.Errorf("%d claims added by a refused command", after-before)
			}
		})
	}

	t.Run("repeated text adds each", func(t *testing.T) {
		var out addedJSON
		b.mustRunJSON(t, &out, "claim", "add", "--task", taskArg, "--text", "Greenland lost ice every year since 1998.", "--text", "Arctic sea ice is thinning.")
		if len(out.Claims) != 2 || out.Claims[0].Text == out.Claims[1].Text {
			t.Errorf("claim add --text a --text b = %+v, want both claims", out)
		}
	})
}

type targetAddJSON struct {
	TaskID   int64         `json:"task_id"`
	Targets  []jobs.Target `json:"targets"`
	JobIDs   []int64       `json:"job_ids"`
	Inserted int           `json:"inserted"`
	Skipped  int           `json:"skipped_duplicates"`
}

func TestTargetAdd(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task := b.createTask(t)
	taskArg := fmt.Sprint(task)
	urlsFile := b.writeFile(t, "urls.txt", "# the third page\n\n  "+urlBlog+"  \n")

	steps := []struct {
		name                   string
		args                   []string
		wantInserted, wantSkip int
	}{
		{"two urls", []string{"--url", urlWiki, "--url", urlScience}, 2, 0},
		{"the same urls again", []string{"--url", urlWiki, "--url", urlScience}, 0, 2},
		{"the same urls spelled differently", []string{"--url", "HTTPS://EN.WIKIPEDIA.ORG/wiki/Retreat_of_glaciers#top",
			"--url", "https://www.glacier-science.example.org:443/studies/melt?utm_source=x"}, 0, 2},
		{"file", []string{"--file", urlsFile}, 1, 0},
		{"the same file again", []string{"--file", urlsFile}, 0, 1},
	}
	var jobIDs []int64
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			var out targetAddJSON
			b.mustRunJSON(t, &out, append([]string{"target", "add", "--task", taskArg}, s.args...)...)
			if out.TaskID != task || out.Inserted != s.wantInserted || out.Skipped != s.wantSkip || len(out.JobIDs) != s.wantInserted {
				t.Errorf("target add = %+v, want %d inserted and %d skipped", out, s.wantInserted, s.wantSkip)
			}
			jobIDs = append(jobIDs, out.JobIDs...)
		})
	}

	// Exactly one job and one target per URL, the jobs returned are those.
	rows, err := b.f.Pool.Query(b.ctx, `SELECT id, args -> 'target' ->> 'value' FROM river_job
		WHERE kind = 'target_queue' AND args ->> 'task_id' = $1 ORDER BY id`, taskArg)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	var values []string
	for rows.Next() {
		var id int64
		var v string
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		ids, values = append(ids, id), append(values, v)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	slices.Sort(jobIDs)
	if !slices.Equal(ids, jobIDs) {
		t.Errorf("target_queue jobs in the database %v, reported %v", ids, jobIDs)
	}
	slices.Sort(values)
	if want := []string{urlBlog, urlWiki, urlScience}; !slices.Equal(values, want) {
		t.Errorf("target_queue job URLs %v, want %v", values, want)
	}
	if n := b.count(t, `SELECT count(*) FROM targets WHERE task_id = $1`, task); n != 3 {
		t.Errorf("%d targets registered, want 3", n)
	}

	t.Run("plain output", func(t *testing.T) {
		out := b.mustRun(t, "target", "add", "--task", taskArg, "--url", urlWiki)
		if out != "1 targets: 0 jobs inserted, 1 already queued or done\n" {
			t.Errorf("target add printed %q", out)
		}
	})
}

func TestTargetAddRefusesInvalidURLsAndInsertsNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task := b.createTask(t)
	taskArg := fmt.Sprint(task)
	cases := []struct {
		name    string
		args    []string
		want    int
		message string
	}{
		{"not a url", []string{"--url", urlWiki, "--url", "not a url"}, 2, `"not a url"`},
		{"ftp", []string{"--url", "ftp://x", "--url", urlWiki}, 2, `"ftp://x"`},
		{"credentials", []string{"--url", urlWiki, "--url", "http://user:pw@host/"}, 2, "userinfo"},
		{"javascript", []string{"--url", "javascript:alert(1)"}, 2, "javascript"},
		{"blank", []string{"--url", urlWiki, "--url", "  "}, 2, "target.value"},
		{"bad line in file", []string{"--file", b.writeFile(t, "bad-urls.txt", urlWiki+"\nftp://files.example.org/x\n")}, 2, "ftp://files.example.org/x"},
		{"missing file", []string{"--file", filepath.Join(b.dir, "nope.txt")}, 2, "nope.txt"},
		{"no urls", nil, 2, "--url"},
		{"empty file", []string{"--file", b.writeFile(t, "empty.txt", "# nothing\n")}, 2, "--url"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := b.run(t, append([]string{"target", "add", "--task", taskArg}, tc.args...)...)
			if r.code() != tc.want {
				t.Fatalf("exit %d (%v), want %d", r.code(), r.err, tc.want)
			}
			if !strings.Contains(r.err.Error(), tc.message) {
				t.Errorf("error %q does not contain %q", r.err, tc.message)
			}
		})
	}
	t.Run("task does not exist", func(t *testing.T) {
		r := b.run(t, "target", "add", "--task", "999999", "--url", urlWiki)
		if r.code() != 1 || !strings.Contains(r.err.Error(), "task 999999 does not exist") {
			t.Errorf("exit %d (%v), want 1 naming the task", r.code(), r.err)
		}
	})
	t.Run("no task", func(t *testing.T) {
		if r := b.run(t, "target", "add", "--url", urlWiki); r.code() != 2 {
			t.Errorf("exit %d (%v), want 2", r.code(), r.err)
		}
	})
	if n := b.count(t, `SELECT count(*) FROM river_job WHERE kind = 'target_queue'`); n != 0 {
		t.Errorf("%d target_queue jobs inserted by refused commands", n)
	}
	if n := b.count(t, `SELECT count(*) FROM targets`); n != 0 {
		t.Errorf("%d targets registered by refused commands", n)
	}
}

func TestJobInsertsValidatedArgs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task := b.createTask(t)
	testfleet.WaitIdle(t, b.f.Pool, 30*time.Second) // the task's own verify_nli is done

	type jobJSON struct {
		JobID     int64  `json:"job_id"`
		Kind      string `json:"kind"`
		Queue     string `json:"queue"`
		Priority  int    `json:"priority"`
		Duplicate bool   `json:"duplicate"`
	}
	ok := []struct {
		name          string
		args          []string
		queue         string
		priority      int
		wantStoredArg string // the args River stored, as jsonb text
	}{
		{"verify_nli with its defaults", []string{"--kind", "verify_nli", "--args", fmt.Sprintf(`{"task_id":%d}`, task)},
			"nli", 2, fmt.Sprintf(`{"task_id": %d}`, task)},
		{"verify_nli with queue and priority", []string{"--kind", "verify_nli", "--args", fmt.Sprintf(`{"task_id":%d,"claim_ids":[1]}`, task),
			"--priority", "4", "--queue", "nli"}, "nli", 4, fmt.Sprintf(`{"task_id": %d, "claim_ids": [1]}`, task)},
		{"rerank", []string{"--kind", "rerank", "--args", fmt.Sprintf(`{"task_id":%d,"top_k":5}`, task)},
			"rerank", 2, fmt.Sprintf(`{"top_k": 5, "task_id": %d}`, task)},
		{"cleanup", []string{"--kind", "cleanup", "--args", fmt.Sprintf(`{"task_id":%d,"mode":"soft"}`, task)},
			"maintenance", 3, fmt.Sprintf(`{"mode": "soft", "task_id": %d}`, task)},
	}
	for _, tc := range ok {
		t.Run(tc.name, func(t *testing.T) {
			var out jobJSON
			b.mustRunJSON(t, &out, append([]string{"job"}, tc.args...)...)
			if out.JobID <= 0 || out.Queue != tc.queue || out.Priority != tc.priority || out.Duplicate {
				t.Errorf("job = %+v, want a new job on queue %s with priority %d", out, tc.queue, tc.priority)
			}
			var kind, queue, args string
			var prio int
			err := b.f.Pool.QueryRow(b.ctx, `SELECT kind, queue, priority, args::text FROM river_job WHERE id = $1`, out.JobID).
				Scan(&kind, &queue, &prio, &args)
			if err != nil {
				t.Fatalf("job %d: %v", out.JobID, err)
			}
			if kind != out.Kind || queue != tc.queue || prio != tc.priority || args != tc.wantStoredArg {
				t.Errorf("stored job %s %s prio %d args %s, want %s prio %d args %s", kind, queue, prio, args, tc.queue, tc.priority, tc.wantStoredArg)
			}
		})
	}

	refused := []struct {
		name    string
		args    []string
		message string
	}{
		{"embed unknown field", []string{"--kind", "embed", "--args", `{"bogus":1}`}, `field "bogus"`},
		{"embed neither field", []string{"--kind", "embed", "--args", `{"task_id":1}`}, `field "fragment_ids"`},
		{"verify_nli string task_id", []string{"--kind", "verify_nli", "--args", `{"task_id":"1"}`}, `field "task_id"`},
		{"verify_nli missing task_id", []string{"--kind", "verify_nli", "--args", `{}`}, `field "task_id"`},
		{"target_queue bad url", []string{"--kind", "target_queue", "--args", `{"task_id":1,"target":{"kind":"url","value":"ftp://x"}}`}, `field "target.value"`},
		{"cleanup unknown mode", []string{"--kind", "cleanup", "--args", `{"task_id":1,"mode":"all"}`}, `field "mode"`},
		{"args not an object", []string{"--kind", "verify_nli", "--args", `[1]`}, "expected a JSON object"},
		{"trailing data", []string{"--kind", "verify_nli", "--args", `{"task_id":1} {}`}, "trailing data"},
		{"unknown kind", []string{"--kind", "scrape", "--args", `{"task_id":1}`}, `unknown job kind "scrape"`},
		{"no args", []string{"--kind", "embed"}, "--args"},
		{"no kind", []string{"--args", `{"task_id":1}`}, "--kind"},
		{"priority out of range", []string{"--kind", "verify_nli", "--args", `{"task_id":1}`, "--priority", "9"}, "--priority"},
	}
	// The worker stops first: jobs it inserts itself (a verify_nli's
	// shards, the leader's periodic sweep) would be counted below.
	if err := b.f.Client.Stop(b.ctx); err != nil {
		t.Fatal(err)
	}
	before := b.count(t, `SELECT count(*) FROM river_job`)
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			r := b.run(t, append([]string{"job"}, tc.args...)...)
			if r.code() != 2 {
				t.Fatalf("exit %d (%v), want 2", r.code(), r.err)
			}
			if !strings.Contains(r.err.Error(), tc.message) {
				t.Errorf("error %q does not contain %q", r.err, tc.message)
			}
			if r.stdout != "" {
				t.Errorf("refused job printed %q", r.stdout)
			}
		})
	}
	if after := b.count(t, `SELECT count(*) FROM river_job`); after != before {
		t.Errorf("%d jobs inserted by refused commands", after-before)
	}
}

func TestStatusWaitReturnsWhenNothingIsPending(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task, st := b.runTask(t)

	if st.TaskID != task || st.Pending == nil || *st.Pending != 0 {
		t.Fatalf("status --wait returned task %d with pending %v, want task %d and 0 pending", st.TaskID, st.Pending, task)
	}
	if n := b.count(t, `SELECT count(*) FROM river_job WHERE args ->> 'task_id' = $1
		AND state IN ('available','pending','running','retryable','scheduled')`, fmt.Sprint(task)); n != 0 {
		t.Errorf("status --wait returned while %d jobs of the task are pending", n)
	}
	if got := st.Jobs["target_queue"]["completed"]; got != 3 {
		t.Errorf("jobs.target_queue.completed = %d, want 3 (jobs: %v)", got, st.Jobs)
	}
	for _, kind := range []string{"embed", "verify_nli"} {
		if st.Jobs[kind]["completed"] == 0 {
			t.Errorf("no completed %s job in %v", kind, st.Jobs)
		}
	}
	// Counts agree with the database.
	total := 0
	for kind, states := range st.Jobs {
		for state, n := range states {
			total += n
			if db := b.count(t, `SELECT count(*) FROM river_job WHERE args ->> 'task_id' = $1 AND kind = $2 AND state = $3`,
				fmt.Sprint(task), kind, state); db != n {
				t.Errorf("jobs.%s.%s = %d, database has %d", kind, state, n, db)
			}
		}
	}
	if total != st.Finished {
		t.Errorf("finished = %d, jobs add up to %d", st.Finished, total)
	}
	verdicts := 0
	for v, n := range st.Verdicts {
		verdicts += n
		if db := b.count(t, `SELECT count(*) FROM claims WHERE task_id = $1 AND verdict = $2`, task, v); db != n {
			t.Errorf("claims_by_verdict.%s = %d, database has %d", v, n, db)
		}
	}
	if claims := b.count(t, `SELECT count(*) FROM claims WHERE task_id = $1`, task); verdicts != claims || claims < 3 {
		t.Errorf("claims_by_verdict adds up to %d, task has %d claims (want hypotheses and extracted claims)", verdicts, claims)
	}
	if st.Targets["extracted"] != 3 || len(st.Problems) != 0 {
		t.Errorf("targets %v, problems %+v; want 3 extracted and no problems", st.Targets, st.Problems)
	}

	t.Run("plain output", func(t *testing.T) {
		r := b.run(t, "status", "--task", fmt.Sprint(task), "--wait", "--interval", "20ms")
		if r.err != nil {
			t.Fatalf("status --wait: %v", r.err)
		}
		for _, want := range []string{fmt.Sprintf("task %d completed at ", task), ": 0 jobs pending", "target_queue", "completed=3", "claims by verdict:", "targets: extracted=3"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("status output lacks %q:\n%s", want, r.stdout)
			}
		}
	})

	t.Run("unknown task", func(t *testing.T) {
		r := b.run(t, "status", "--task", "999999", "--json")
		if r.code() != 1 || !strings.Contains(r.err.Error(), "task 999999 does not exist") {
			t.Errorf("exit %d (%v), want 1 naming the task", r.code(), r.err)
		}
	})
}

func TestStatusWaitExitCodes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task := b.createTask(t)
	taskArg := fmt.Sprint(task)
	testfleet.WaitIdle(t, b.f.Pool, 30*time.Second)

	t.Run("0 when every job finished", func(t *testing.T) {
		if r := b.run(t, "status", "--task", taskArg, "--wait", "--json", "--interval", "20ms"); r.err != nil {
			t.Fatalf("exit %d (%v), want 0", r.code(), r.err)
		}
	})

	cancelled := func(t *testing.T, kind, args, queue, failure, msg string) int64 {
		t.Helper()
		var id int64
		err := b.f.Pool.QueryRow(b.ctx, `
			INSERT INTO river_job (kind, args, queue, priority, max_attempts, attempt, attempted_at, state, finalized_at, errors, metadata)
			VALUES ($1, $2::jsonb, $3, 1, 8, 4, now(), 'cancelled', now(),
			        ARRAY[jsonb_build_object('at', now(), 'attempt', 4, 'error', $4::text, 'trace', '')],
			        jsonb_build_object('output', jsonb_build_object('failure', $5::text)))
			RETURNING id`, kind, args, queue, msg, failure).Scan(&id)
		if err != nil {
			t.Fatalf("insert cancelled job: %v", err)
		}
		t.Cleanup(func() { _, _ = b.f.Pool.Exec(b.ctx, `DELETE FROM river_job WHERE id = $1`, id) })
		return id
	}

	t.Run("0 when a job ended because its target failed", func(t *testing.T) {
		cancelled(t, "target_queue", fmt.Sprintf(`{"task_id":%d,"target":{"kind":"url","value":"https://gone.example.org/"}}`, task),
			"target", "target_failed", "permanent fetch error: 404")
		if r := b.run(t, "status", "--task", taskArg, "--wait", "--json", "--interval", "20ms"); r.err != nil {
			t.Fatalf("exit %d (%v), want 0: a failed target is the web's, reported as a failed target", r.code(), r.err)
		}
	})

	t.Run("3 when a claim was refused for killing its worker", func(t *testing.T) {
		id := cancelled(t, "verify_nli", fmt.Sprintf(`{"task_id":%d,"claim_from":7,"claim_to":7}`, task),
			"nli", "claim_kills_worker", "claim 7 refused: its worker process died 3 times while verifying it")
		r := b.run(t, "status", "--task", taskArg, "--wait", "--interval", "20ms")
		if r.code() != 3 {
			t.Fatalf("exit %d (%v), want 3", r.code(), r.err)
		}
		if msg := r.err.Error(); !strings.Contains(msg, fmt.Sprintf("job %d verify_nli cancelled: claim 7 refused", id)) {
			t.Errorf("error %q does not name what was not done", msg)
		}
		if !strings.Contains(r.stdout, "claim_kills_worker") {
			t.Errorf("status does not show the failure:\n%s", r.stdout)
		}
	})

	t.Run("3 when a job of the task was discarded", func(t *testing.T) {
		// A job that ran out of attempts, as River leaves it.
		var id int64
		err := b.f.Pool.QueryRow(b.ctx, `
			INSERT INTO river_job (kind, args, queue, priority, max_attempts, attempt, attempted_at, state, finalized_at, errors)
			VALUES ('target_queue', $1::jsonb, 'target', 1, 8, 8, now(), 'discarded', now(),
			        ARRAY[jsonb_build_object('at', now(), 'attempt', 8, 'error', 'fetch https://down.example.org/: transient fetch error: timeout', 'trace', '')])
			RETURNING id`,
			fmt.Sprintf(`{"task_id":%d,"target":{"kind":"url","value":"https://down.example.org/"}}`, task)).Scan(&id)
		if err != nil {
			t.Fatalf("insert discarded job: %v", err)
		}
		r := b.run(t, "status", "--task", taskArg, "--wait", "--json", "--interval", "20ms")
		if r.code() != 3 {
			t.Fatalf("exit %d (%v), want 3", r.code(), r.err)
		}
		if !strings.Contains(r.err.Error(), "discarded") {
			t.Errorf("error %q does not say a job was discarded", r.err)
		}
		var st statusJSON
		if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
			t.Fatalf("status printed no JSON before exiting 3: %v\n%s", err, r.stdout)
		}
		if st.Jobs["target_queue"]["discarded"] != 1 {
			t.Errorf("jobs %v, want target_queue discarded=1", st.Jobs)
		}
		found := false
		for _, p := range st.Problems {
			if p.ID == id && p.State == "discarded" && strings.Contains(p.Error, "transient fetch error: timeout") {
				found = true
			}
		}
		if !found {
			t.Errorf("job_problems %+v lack discarded job %d with its error", st.Problems, id)
		}
		// Without --wait, status only reports.
		if r := b.run(t, "status", "--task", taskArg, "--json"); r.err != nil {
			t.Errorf("status without --wait: exit %d (%v), want 0", r.code(), r.err)
		}
	})

	t.Run("4 when waiting times out", func(t *testing.T) {
		// A job of the task scheduled an hour ahead stays unfinished.
		if _, err := b.f.Pool.Exec(b.ctx, `INSERT INTO river_job (kind, args, queue, priority, max_attempts, state, scheduled_at)
			VALUES ('rerank', $1::jsonb, 'rerank', 2, 10, 'scheduled', now() + interval '1 hour')`, fmt.Sprintf(`{"task_id":%d}`, task)); err != nil {
			t.Fatal(err)
		}
		r := b.run(t, "status", "--task", taskArg, "--wait", "--json", "--interval", "20ms", "--timeout", "300ms")
		if r.code() != 4 {
			t.Fatalf("exit %d (%v), want 4", r.code(), r.err)
		}
	})

	t.Run("2 without a task", func(t *testing.T) {
		if r := b.run(t, "status", "--wait"); r.code() != 2 {
			t.Errorf("exit %d (%v), want 2", r.code(), r.err)
		}
	})
}

// graphJSON mirrors the documented JSON of `enqueue graph`.
type graphJSON struct {
	TaskID     int64  `json:"task_id"`
	Hypothesis string `json:"hypothesis"`
	Claims     []struct {
		ID          int64     `json:"id"`
		EvidenceNo  string    `json:"evidence_no"`
		Text        string    `json:"text"`
		Kind        string    `json:"kind"`
		Confidence  *float64  `json:"confidence"`
		Uncertainty *float64  `json:"uncertainty"`
		Controversy *float64  `json:"controversy"`
		Verdict     string    `json:"verdict"`
		Verified    string    `json:"verification_status"`
		Origin      *spanJSON `json:"origin"`
	} `json:"claims"`
	Edges []struct {
		ID                   int64    `json:"id"`
		Relation             string   `json:"relation"`
		ClaimID              int64    `json:"claim_id"`
		EvidenceNo           string   `json:"evidence_no"`
		FragmentID           int64    `json:"fragment_id"`
		NLILabel             *string  `json:"nli_label"`
		NLIConfidence        *float64 `json:"nli_edge_confidence"`
		NLIModel             *string  `json:"nli_model"`
		SourceDomainCategory *string  `json:"source_domain_category"`
		SourceTrustLevel     *string  `json:"source_trust_level"`
		TargetTrustLevel     *string  `json:"target_trust_level"`
		Domain               string   `json:"domain"`
		Source               spanJSON `json:"source"`
	} `json:"edges"`
	Pages []struct {
		ID            int64  `json:"id"`
		URL           string `json:"url"`
		Domain        string `json:"domain"`
		PageVersionID *int64 `json:"page_version_id"`
	} `json:"pages"`
	EvidenceSource []struct {
		ClaimID    int64    `json:"claim_id"`
		EvidenceNo string   `json:"evidence_no"`
		PageID     int64    `json:"page_id"`
		URL        string   `json:"url"`
		Relations  []string `json:"relations"`
	} `json:"evidence_source"`
}

type spanJSON struct {
	PageID        int64  `json:"page_id"`
	PageVersionID int64  `json:"page_version_id"`
	StartChar     *int   `json:"start_char"`
	EndChar       *int   `json:"end_char"`
	URL           string `json:"url"`
	Text          string `json:"text"`
}

func TestGraphJSON(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task, _ := b.runTask(t)

	var g graphJSON
	b.mustRunJSON(t, &g, "graph", "--task", fmt.Sprint(task))
	// --format json without --json is the same document.
	var g2 graphJSON
	out := b.mustRun(t, "graph", "--task", fmt.Sprint(task), "--format", "json")
	if err := json.Unmarshal([]byte(out), &g2); err != nil {
		t.Fatalf("graph --format json: %v", err)
	}
	if len(g2.Claims) != len(g.Claims) || len(g2.Edges) != len(g.Edges) {
		t.Errorf("graph --format json differs from graph --json")
	}

	if g.TaskID != task || g.Hypothesis != hypothesis {
		t.Errorf("graph task %d hypothesis %q", g.TaskID, g.Hypothesis)
	}

	// Claims: E1 is the hypothesis, E-numbers are E1…En without gaps.
	if len(g.Claims) < 3 {
		t.Fatalf("graph has %d claims, want the hypotheses and extracted claims", len(g.Claims))
	}
	if c := g.Claims[0]; c.EvidenceNo != "E1" || c.Text != hypothesis || c.Kind != "hypothesis" {
		t.Errorf("first claim %s %s %q, want E1 hypothesis", c.EvidenceNo, c.Kind, c.Text)
	}
	claimNo := map[int64]string{}
	claimKind := map[int64]string{}
	extracted := 0
	for i, c := range g.Claims {
		if want := fmt.Sprintf("E%d", i+1); c.EvidenceNo != want {
			t.Errorf("claim %d has evidence_no %q, want %q", c.ID, c.EvidenceNo, want)
		}
		claimNo[c.ID] = c.EvidenceNo
		claimKind[c.ID] = c.Kind
		if c.Confidence == nil || c.Uncertainty == nil || c.Controversy == nil || c.Verdict == "" {
			t.Errorf("claim %s lacks confidence/uncertainty/controversy/verdict", c.EvidenceNo)
		}
		switch c.Kind {
		case "hypothesis":
			if c.Origin != nil {
				t.Errorf("hypothesis %s has an origin", c.EvidenceNo)
			}
		case "extracted":
			extracted++
			if c.Origin == nil || c.Origin.StartChar == nil || c.Origin.EndChar == nil {
				t.Errorf("extracted claim %s has no origin span", c.EvidenceNo)
				continue
			}
			// The claim is the verbatim quote of its origin span.
			if got := b.versionSubstring(t, c.Origin.PageVersionID, *c.Origin.StartChar, *c.Origin.EndChar); got != c.Text {
				t.Errorf("claim %s: origin span [%d,%d) of version %d is %q, claim text %q",
					c.EvidenceNo, *c.Origin.StartChar, *c.Origin.EndChar, c.Origin.PageVersionID, got, c.Text)
			}
		default:
			t.Errorf("claim %s has kind %q", c.EvidenceNo, c.Kind)
		}
	}
	if extracted == 0 {
		t.Errorf("no extracted claims in the graph")
	}

	// Edges: a relation, the claim's E-number, an exact span whose text is
	// the version's text at those character offsets; NLI edges carry their
	// confidence, model and trust levels.
	relations := map[string]int{}
	pageVersions := map[int64]bool{}
	for _, e := range g.Edges {
		relations[e.Relation]++
		if no, ok := claimNo[e.ClaimID]; !ok || no != e.EvidenceNo {
			t.Errorf("edge %d: claim %d evidence_no %q, claim list says %q", e.ID, e.ClaimID, e.EvidenceNo, no)
		}
		s := e.Source
		if s.PageVersionID <= 0 || s.StartChar == nil || s.EndChar == nil || *s.StartChar < 0 || *s.EndChar <= *s.StartChar || s.Text == "" {
			t.Errorf("edge %d: bad source span %+v", e.ID, s)
			continue
		}
		pageVersions[s.PageVersionID] = true
		if got := b.versionSubstring(t, s.PageVersionID, *s.StartChar, *s.EndChar); got != s.Text {
			t.Errorf("edge %d: substring of version %d [%d,%d) is\n  %q\nsource text is\n  %q",
				e.ID, s.PageVersionID, *s.StartChar, *s.EndChar, got, s.Text)
		}
		switch e.Relation {
		case "origin":
			if e.NLIConfidence != nil {
				t.Errorf("origin edge %d has an NLI confidence", e.ID)
			}
		case "supports", "refutes", "neutral":
			if e.NLIConfidence == nil || *e.NLIConfidence < 0 || *e.NLIConfidence > 1 {
				t.Errorf("NLI edge %d: nli_edge_confidence %v, want a value in [0,1]", e.ID, e.NLIConfidence)
			}
			if e.NLILabel == nil || e.NLIModel == nil || *e.NLIModel == "" {
				t.Errorf("NLI edge %d lacks nli_label or nli_model", e.ID)
			}
			if e.SourceTrustLevel == nil || *e.SourceTrustLevel == "" || e.SourceDomainCategory == nil || *e.SourceDomainCategory == "" {
				t.Errorf("NLI edge %d lacks source_trust_level or source_domain_category", e.ID)
			}
			// The target's trust level is its origin domain's: hypotheses have none.
			if hasOrigin := claimKind[e.ClaimID] == "extracted"; hasOrigin != (e.TargetTrustLevel != nil) {
				t.Errorf("NLI edge %d to %s claim %s: target_trust_level %v", e.ID, claimKind[e.ClaimID], e.EvidenceNo, e.TargetTrustLevel)
			}
		default:
			t.Errorf("edge %d has relation %q", e.ID, e.Relation)
		}
	}
	if relations["origin"] != extracted {
		t.Errorf("%d origin edges for %d extracted claims", relations["origin"], extracted)
	}
	if relations["supports"]+relations["refutes"]+relations["neutral"] == 0 {
		t.Errorf("no NLI edges: %v", relations)
	}
	if n := b.count(t, `SELECT count(*) FROM edges e JOIN claims c ON c.id = e.target_id AND e.target_type = 'claim' WHERE c.task_id = $1`, task); n != len(g.Edges) {
		t.Errorf("graph has %d edges, database %d", len(g.Edges), n)
	}

	// Pages: the three targets, each with the version the task saw.
	var urls []string
	pageIDs := map[int64]string{}
	for _, p := range g.Pages {
		urls = append(urls, p.URL)
		pageIDs[p.ID] = p.URL
		if p.PageVersionID == nil || p.Domain == "" {
			t.Errorf("page %s lacks page_version_id or domain", p.URL)
		}
	}
	slices.Sort(urls)
	if want := []string{urlBlog, urlWiki, urlScience}; !slices.Equal(urls, want) {
		t.Errorf("pages %v, want %v", urls, want)
	}

	// evidence_source is derived from the edges: one entry per claim and page.
	type key struct{ claim, page int64 }
	fromEdges := map[key]map[string]bool{}
	for _, e := range g.Edges {
		k := key{e.ClaimID, e.Source.PageID}
		if fromEdges[k] == nil {
			fromEdges[k] = map[string]bool{}
		}
		fromEdges[k][e.Relation] = true
	}
	if len(g.EvidenceSource) != len(fromEdges) {
		t.Errorf("%d evidence_source entries, edges give %d claim/page pairs", len(g.EvidenceSource), len(fromEdges))
	}
	for _, s := range g.EvidenceSource {
		rels := fromEdges[key{s.ClaimID, s.PageID}]
		if len(rels) == 0 || len(rels) != len(s.Relations) || !slices.IsSorted(s.Relations) || claimNo[s.ClaimID] != s.EvidenceNo || pageIDs[s.PageID] != s.URL {
			t.Errorf("evidence_source %+v does not match the edges (%v)", s, rels)
		}
		for _, r := range s.Relations {
			if !rels[r] {
				t.Errorf("evidence_source %+v lists %q, not among its edges", s, r)
			}
		}
	}

	t.Run("unknown task", func(t *testing.T) {
		r := b.run(t, "graph", "--task", "999999", "--json")
		if r.code() != 1 || !strings.Contains(r.err.Error(), "does not exist") {
			t.Errorf("exit %d (%v), want 1", r.code(), r.err)
		}
	})
	t.Run("bad format", func(t *testing.T) {
		if r := b.run(t, "graph", "--task", fmt.Sprint(task), "--format", "xml"); r.code() != 2 {
			t.Errorf("exit %d (%v), want 2", r.code(), r.err)
		}
	})
}

// versionSubstring is the SQL definition of a span's text.
func (b *bundle) versionSubstring(t *testing.T, versionID int64, start, end int) string {
	t.Helper()
	var s string
	err := b.f.Pool.QueryRow(b.ctx, `SELECT substring(content FROM $2::int + 1 FOR $3::int - $2::int) FROM page_versions WHERE id = $1`,
		versionID, start, end).Scan(&s)
	if err != nil {
		t.Fatalf("version %d: %v", versionID, err)
	}
	return s
}

func TestGraphDOT(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task, _ := b.runTask(t)
	var g graphJSON
	b.mustRunJSON(t, &g, "graph", "--task", fmt.Sprint(task))

	out := b.mustRun(t, "graph", "--task", fmt.Sprint(task), "--format", "dot")
	if !strings.HasPrefix(out, fmt.Sprintf("digraph task_%d {\n", task)) || !strings.HasSuffix(out, "}\n") {
		t.Errorf("DOT output does not start with digraph or end with }:\n%s", out)
	}
	if err := checkDOTSyntax(out); err != nil {
		t.Errorf("DOT output: %v\n%s", err, out)
	}
	for _, c := range g.Claims {
		if !strings.Contains(out, fmt.Sprintf("\n  c%d [shape=box, label=\"%s ", c.ID, c.EvidenceNo)) {
			t.Errorf("no node for claim %s (id %d)", c.EvidenceNo, c.ID)
		}
	}
	for _, p := range g.Pages {
		if !strings.Contains(out, fmt.Sprintf("\n  p%d [shape=ellipse", p.ID)) {
			t.Errorf("no node for page %s", p.URL)
		}
	}
	for _, e := range g.Edges {
		if !strings.Contains(out, fmt.Sprintf("\n  p%d -> c%d [label=\"%s", e.Source.PageID, e.ClaimID, e.Relation)) {
			t.Errorf("no arrow p%d -> c%d for edge %d (%s)", e.Source.PageID, e.ClaimID, e.ID, e.Relation)
		}
	}
	// --json wins over --format dot.
	var again graphJSON
	b.mustRunJSON(t, &again, "graph", "--task", fmt.Sprint(task), "--format", "dot")
}

func TestCheckDOTSyntaxCatchesBrokenOutput(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{
		"digraph x {\n  a -> b;\n",                  // unclosed brace
		"digraph x {\n  a [label=\"open];\n}\n",     // unterminated string
		"digraph x {\n  a [label=\"x\"];\n}\n}\n",   // extra brace
		"graph x {\n  a -- b;\n}\n",                 // not a digraph
		"digraph x {\n  a [label=\"q\\\"];\n}\n",    // escaped quote leaves the string open
		"digraph x {\n  a -> b [label=\"x\"\n}\n",   // unclosed bracket
		"digraph x {\n  a [label=\"x\"]; } b;\n}\n", // statement after the graph closed
	} {
		if err := checkDOTSyntax(bad); err == nil {
			t.Errorf("checkDOTSyntax accepted %q", bad)
		}
	}
	if err := checkDOTSyntax("digraph x {\n  a [label=\"{braces} \\\"q\\\" \\\\\"];\n  a -> b;\n}\n"); err != nil {
		t.Errorf("checkDOTSyntax refused valid DOT: %v", err)
	}
}

// checkDOTSyntax checks a digraph's braces and brackets balance outside
// quoted strings, strings are terminated and nothing follows the graph.
func checkDOTSyntax(s string) error {
	if !strings.HasPrefix(s, "digraph ") {
		return errors.New("does not start with digraph")
	}
	depth, brackets := 0, 0
	inString, closed := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			case '\n':
				return fmt.Errorf("newline inside a string at byte %d", i)
			}
			continue
		}
		if closed && !strings.ContainsRune(" \t\r\n", rune(c)) {
			return fmt.Errorf("text after the closing brace at byte %d", i)
		}
		switch c {
		case '"':
			inString = true
		case '{':
			depth++
		case '}':
			depth--
			if depth < 0 {
				return fmt.Errorf("unbalanced } at byte %d", i)
			}
			if depth == 0 {
				closed = true
			}
		case '[':
			brackets++
		case ']':
			brackets--
			if brackets < 0 {
				return fmt.Errorf("unbalanced ] at byte %d", i)
			}
		}
	}
	switch {
	case inString:
		return errors.New("unterminated string")
	case depth != 0 || !closed:
		return fmt.Errorf("%d braces left open", depth)
	case brackets != 0:
		return fmt.Errorf("%d brackets left open", brackets)
	}
	return nil
}

func TestReportPrintsEachClaimsVerdict(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task, _ := b.runTask(t)
	var g graphJSON
	b.mustRunJSON(t, &g, "graph", "--task", fmt.Sprint(task))

	all := b.mustRun(t, "report", "--task", fmt.Sprint(task), "--all")
	if !strings.Contains(all, "Hypothesis: "+hypothesis+"\n") {
		t.Errorf("report lacks the hypothesis:\n%s", all)
	}
	if !strings.Contains(all, fmt.Sprintf("%d claims, %d edges, %d pages\n", len(g.Claims), len(g.Edges), len(g.Pages))) {
		t.Errorf("report lacks the totals:\n%s", all)
	}
	for _, c := range g.Claims {
		head := fmt.Sprintf("\n%s [%s] %s\n", c.EvidenceNo, c.Kind, c.Text)
		i := strings.Index(all, head)
		if i < 0 {
			t.Errorf("report --all lacks claim %s:\n%s", c.EvidenceNo, all)
			continue
		}
		lines := strings.SplitN(all[i+len(head):], "\n", 3)
		line := lines[0] + "\n" + lines[1]
		for _, want := range []string{
			"verdict " + c.Verdict + " ",
			fmt.Sprintf("confidence %.3f", *c.Confidence),
			fmt.Sprintf("uncertainty %.3f", *c.Uncertainty),
			fmt.Sprintf("controversy %.3f", *c.Controversy),
			"\n    verification " + c.Verified + " (adoption ",
			"confident sites: ",
		} {
			if !strings.Contains(line, want) {
				t.Errorf("claim %s: report line %q lacks %q", c.EvidenceNo, line, want)
			}
		}
	}

	// Without --all, extracted claims without supports/refutes are left out
	// and counted; hypotheses always show.
	short := b.mustRun(t, "report", "--task", fmt.Sprint(task))
	hidden := 0
	for _, c := range g.Claims {
		shown := strings.Contains(short, fmt.Sprintf("\n%s [%s] ", c.EvidenceNo, c.Kind))
		if c.Kind == "hypothesis" && !shown {
			t.Errorf("report without --all lacks hypothesis %s", c.EvidenceNo)
		}
		if !shown {
			hidden++
		}
	}
	if hidden > 0 && !strings.Contains(short, fmt.Sprintf("(%d extracted claims without cross-source supports/refutes not shown", hidden)) {
		t.Errorf("report hides %d claims without saying so:\n%s", hidden, short)
	}

	// report --json is the graph document.
	var rj graphJSON
	b.mustRunJSON(t, &rj, "report", "--task", fmt.Sprint(task))
	if rj.TaskID != task || len(rj.Claims) != len(g.Claims) {
		t.Errorf("report --json: task %d with %d claims, want the graph", rj.TaskID, len(rj.Claims))
	}
}

// TestCommandsCloseTheirConnections runs commands that succeed and commands
// that fail after connecting, and checks none leaves a connection open (the
// CLI is also run in-process, by these tests and by tools).
func TestCommandsCloseTheirConnections(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task := b.createTask(t)
	const app = "enqueue-conn-test"
	sep := "?"
	if strings.Contains(b.f.URL, "?") {
		sep = "&"
	}
	b.url = b.f.URL + sep + "application_name=" + app
	// open counts the CLI's connections once backends had a moment to leave
	// pg_stat_activity after the client hung up.
	open := func() int {
		var n int
		for deadline := time.Now().Add(1500 * time.Millisecond); ; {
			n = b.count(t, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, app)
			if n == 0 || time.Now().After(deadline) {
				return n
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	run := func(t *testing.T, code int, args ...string) {
		t.Helper()
		if r := b.run(t, args...); r.code() != code {
			t.Fatalf("enqueue %s: exit %d (%v), want %d", strings.Join(args, " "), r.code(), r.err, code)
		}
	}

	t.Run("after success", func(t *testing.T) {
		run(t, 0, "status", "--task", fmt.Sprint(task))
		run(t, 0, "graph", "--task", fmt.Sprint(task))
		run(t, 0, "report", "--task", fmt.Sprint(task))
		if n := open(); n != 0 {
			t.Errorf("%d connections left open", n)
		}
	})

	t.Run("after failure", func(t *testing.T) {
		run(t, 1, "status", "--task", "999999")
		run(t, 1, "graph", "--task", "999999")
		run(t, 1, "report", "--task", "999999")
		run(t, 1, "target", "add", "--task", "999999", "--url", urlWiki)
		if n := open(); n != 0 {
			t.Errorf("%d connections left open by 4 failing commands", n)
		}
	})
}

func TestTaskStop(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task, _ := b.runTask(t)
	if n := b.count(t, `SELECT count(*) FROM claims WHERE task_id = $1`, task); n == 0 {
		t.Fatal("the task has no claims to clean")
	}
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"no task", []string{"task", "stop"}, 2, "--task"},
		{"unknown mode", []string{"task", "stop", "--task", fmt.Sprint(task), "--cleanup", "all"}, 2, `"all"`},
		{"missing task", []string{"task", "stop", "--task", "999999"}, 1, "does not exist"},
	}
	for _, tt := range tests {
		r := b.run(t, tt.args...)
		if r.code() != tt.code || r.err == nil || !strings.Contains(r.err.Error(), tt.err) {
			t.Errorf("%s: exit %d, %v; want exit %d naming %s", tt.name, r.code(), r.err, tt.code, tt.err)
		}
	}
	if status := b.count(t, `SELECT count(*) FROM tasks WHERE id = $1 AND status <> 'stopped'`, task); status != 1 {
		t.Fatal("a refused stop changed the task")
	}

	var out struct {
		TaskID  int64  `json:"task_id"`
		Status  string `json:"status"`
		Cleanup string `json:"cleanup"`
		JobID   int64  `json:"cleanup_job_id"`
	}
	b.mustRunJSON(t, &out, "task", "stop", "--task", fmt.Sprint(task), "--cleanup", "soft")
	if out.TaskID != task || out.Status != "stopped" || out.Cleanup != "soft" || out.JobID <= 0 {
		t.Fatalf("stop output %+v", out)
	}
	testfleet.WaitIdle(t, b.f.Pool, 60*time.Second)
	if n := b.count(t, `SELECT count(*) FROM claims WHERE task_id = $1`, task); n != 0 {
		t.Errorf("%d claims left after the soft cleanup", n)
	}
	if n := b.count(t, `SELECT count(*) FROM river_job WHERE id = $1 AND state = 'completed'`, out.JobID); n != 1 {
		t.Errorf("cleanup job %d did not complete:\n%s", out.JobID, testfleet.JobDump(t, b.f.Pool))
	}
	if n := b.count(t, `SELECT count(*) FROM pages`); n == 0 {
		t.Error("a soft cleanup deleted pages")
	}
}
