package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// citeJSON mirrors the documented JSON of `enqueue cite check`.
type citeJSON struct {
	TaskID     int64    `json:"task_id"`
	File       string   `json:"file"`
	OK         bool     `json:"ok"`
	Groups     int      `json:"citation_groups"`
	Cited      []string `json:"cited"`
	InvalidIDs []string `json:"invalid_ids"`
	Invalid    []struct {
		ID     string `json:"id"`
		Offset int    `json:"offset"`
		Line   int    `json:"line"`
		Column int    `json:"column"`
	} `json:"invalid"`
	InvalidCount int `json:"invalid_count"`
	Malformed    []struct {
		Text string `json:"text"`
	} `json:"malformed"`
	Uncited  []string `json:"uncited"`
	Coverage struct {
		Cited    int     `json:"cited"`
		Total    int     `json:"total"`
		Fraction float64 `json:"fraction"`
		Text     string  `json:"text"`
	} `json:"coverage"`
	Factual     int `json:"factual_sentences"`
	Unsupported []struct {
		Text string `json:"text"`
		Mark string `json:"mark"`
		Line int    `json:"line"`
	} `json:"unsupported"`
	UnsupportedCount int `json:"unsupported_count"`
}

// runInput runs the CLI as run does, with input as its standard input.
func (b *bundle) runInput(t *testing.T, input string, args ...string) result {
	t.Helper()
	root := newRoot()
	var out, errOut bytes.Buffer
	root.SetIn(strings.NewReader(input))
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(append([]string{"--database-url", b.url}, args...))
	err := root.ExecuteContext(b.ctx)
	return result{stdout: out.String(), stderr: errOut.String(), err: err}
}

// decodeCite decodes cite check --json output.
func decodeCite(t *testing.T, r result) citeJSON {
	t.Helper()
	var out citeJSON
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("cite check --json: %v\n%s", err, r.stdout)
	}
	return out
}

// TestCiteCheck checks texts against a task of 15 claims (the hypothesis
// E1 and 14 added), with seed 001's examples.
func TestCiteCheck(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task := b.createTask(t)
	taskArg := fmt.Sprint(task)
	var lines []string
	for i := 2; i <= 15; i++ {
		lines = append(lines, fmt.Sprintf(`{"text": "Glacier number %d lost %d percent of its ice."}`, i, 3*i))
	}
	b.mustRun(t, "claim", "add", "--task", taskArg, "--file", b.writeFile(t, "claims.jsonl", strings.Join(lines, "\n")))
	if n := b.count(t, `SELECT count(*) FROM claims WHERE task_id = $1`, task); n != 15 {
		t.Fatalf("task has %d claims, want E1..E15", n)
	}
	const fiveOf15 = "# Glaciers\n\nGlaciers are retreating worldwide [E1]. The Alps lost ice [E3, E5].\n" +
		"Mountain glaciers gave 21% of the rise [E7]. What comes next? Norway is an exception [E9].\n"
	const seedInvalid = "Transformers use attention [E1]. They scale well [E99]."

	t.Run("5 cited of 15", func(t *testing.T) {
		t.Parallel()
		var out citeJSON
		b.mustRunJSON(t, &out, "cite", "check", "--task", taskArg, "--file", b.writeFile(t, "five.md", fiveOf15))
		if !out.OK || out.TaskID != task || out.Groups != 4 || !slices.Equal(out.Cited, []string{"E1", "E3", "E5", "E7", "E9"}) ||
			len(out.InvalidIDs) != 0 || len(out.Uncited) != 10 || out.Uncited[0] != "E2" || out.Uncited[9] != "E15" {
			t.Errorf("cite check = %+v, want E1 E3 E5 E7 E9 cited, E2..E15 but those uncited", out)
		}
		if out.Coverage.Cited != 5 || out.Coverage.Total != 15 || out.Coverage.Text != "5 of 15" || out.Coverage.Fraction != 5.0/15 {
			t.Errorf("coverage %+v, want 5 of 15", out.Coverage)
		}
		if out.Factual != 4 || out.UnsupportedCount != 0 {
			t.Errorf("%d factual sentences, %d unsupported; want 4 (heading and question aside), 0", out.Factual, out.UnsupportedCount)
		}
	})

	t.Run("[E99] exits 3", func(t *testing.T) {
		t.Parallel()
		r := b.run(t, "cite", "check", "--task", taskArg, "--file", b.writeFile(t, "invalid.md", seedInvalid), "--json")
		if r.code() != exitInvalidCitations || !strings.Contains(r.err.Error(), "E99") {
			t.Fatalf("exit %d (%v), want %d naming E99", r.code(), r.err, exitInvalidCitations)
		}
		out := decodeCite(t, r)
		col := strings.Index(seedInvalid, "E99")
		if out.OK || !slices.Equal(out.InvalidIDs, []string{"E99"}) || out.InvalidCount != 1 || len(out.Invalid) != 1 ||
			out.Invalid[0].Offset != col || out.Invalid[0].Line != 1 || out.Invalid[0].Column != col+1 {
			t.Errorf("cite check = %+v, want E99 invalid at 1:%d", out, col+1)
		}
		if out.UnsupportedCount != 1 || out.Unsupported[0].Text != "They scale well [E99]." {
			t.Errorf("unsupported %+v, want the sentence citing E99 only", out.Unsupported)
		}
	})

	t.Run("a range is malformed and exits 3", func(t *testing.T) {
		t.Parallel()
		r := b.run(t, "cite", "check", "--task", taskArg, "--file", b.writeFile(t, "range.md", "All citations [E1-E6] valid."), "--json")
		out := decodeCite(t, r)
		if r.code() != exitInvalidCitations || out.OK || len(out.Malformed) != 1 || out.Malformed[0].Text != "[E1-E6]" {
			t.Errorf("exit %d, %+v; want %d with [E1-E6] malformed", r.code(), out, exitInvalidCitations)
		}
	})

	t.Run("the report, from standard input", func(t *testing.T) {
		t.Parallel()
		r := b.runInput(t, fiveOf15+"Sea level rose 20 cm since 1900.\n", "cite", "check", "--task", taskArg, "--file", "-")
		if r.err != nil {
			t.Fatalf("exit %d: %v", r.code(), r.err)
		}
		for _, want := range []string{
			fmt.Sprintf("Citation check — task %d\n", task),
			"coverage: 5 of 15 ids cited (33%), in 4 citation groups\n",
			"cited: E1 E3 E5 E7 E9\n",
			"ids the task does not have: none\n",
			"uncited ids: E2 E4 E6 E8 E10 E11 E12 E13 E14 E15\n",
			"factual sentences citing no id of the task: 1 of 5 (7 sentences in all)\n",
			"  line 5:1 (verb rose): Sea level rose 20 cm since 1900.\n",
			"result: every citation is an id of the task\n",
		} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("report lacks %q:\n%s", want, r.stdout)
			}
		}
	})

	t.Run("another task's ids are not this one's", func(t *testing.T) {
		t.Parallel()
		other := b.createTask(t) // E1 only
		r := b.runInput(t, fiveOf15, "cite", "check", "--task", fmt.Sprint(other), "--file", "-")
		if r.code() != exitInvalidCitations || !strings.Contains(r.stdout, "ids the task does not have: E3 E5 E7 E9, cited 4 times:") ||
			!strings.Contains(r.stdout, "coverage: 1 of 1") {
			t.Errorf("exit %d (%v), want %d with E3 E5 E7 E9 invalid:\n%s", r.code(), r.err, exitInvalidCitations, r.stdout)
		}
	})

	for _, tc := range []struct {
		name    string
		args    []string
		want    int
		message string
	}{
		{"no task", []string{"cite", "check", "--file", "-"}, 2, "--task"},
		{"no file", []string{"cite", "check", "--task", taskArg}, 2, "--file"},
		{"missing file", []string{"cite", "check", "--task", taskArg, "--file", filepath.Join(b.dir, "nope.md")}, 2, "nope.md"},
		{"text over 1 MiB", []string{"cite", "check", "--task", taskArg, "--file",
			b.writeFile(t, "huge.md", strings.Repeat("Ice melts [E1]. ", 70000))}, 2, "longer than the 1048576 bytes"},
		{"task does not exist", []string{"cite", "check", "--task", "999999", "--file", b.writeFile(t, "ok.md", "x")}, 1,
			"task 999999 does not exist"},
		{"an argument", []string{"cite", "check", "--task", taskArg, "--file", "-", "extra"}, 2, "unknown command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := b.runInput(t, "", tc.args...)
			if r.code() != tc.want || r.err == nil || !strings.Contains(r.err.Error(), tc.message) {
				t.Errorf("exit %d (%v), want %d with an error containing %q", r.code(), r.err, tc.want, tc.message)
			}
		})
	}
}
