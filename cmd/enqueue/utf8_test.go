package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestInvalidTextRefusedNamingTheField: an argument, a file line or
// standard input holding text that is not valid UTF-8, or a lone surrogate
// escape in JSON, is a usage error (exit 2) naming where it was, where
// encoding/json alone would store U+FFFD; the same input in valid text is
// taken.
func TestInvalidTextRefusedNamingTheField(t *testing.T) {
	t.Parallel()
	b := setup(t)
	task := fmt.Sprint(b.createTask(t))
	file := func(name, content string) string { return b.writeFile(t, name, content) }
	cases := []struct {
		name      string
		stdin     string // given to cite check: bad, then good
		goodStdin string
		bad, good []string
		want      string
	}{
		{name: "a hypothesis",
			bad:  []string{"task", "create", "--hypothesis", "Sea ice \xff retreats."},
			good: []string{"task", "create", "--hypothesis", "Sea ice \u00ff retreats."},
			want: "--hypothesis: invalid UTF-8"},
		{name: "the second of two claims",
			bad:  []string{"claim", "add", "--task", task, "--text", "Seas rise.", "--text", "Sea ice \xed\xa0\x80 retreats."},
			good: []string{"claim", "add", "--task", task, "--text", "Seas rise.", "--text", "Sea ice \U0001F9CA retreats."},
			want: "--text #2: invalid UTF-8"},
		{name: "a claims file with a lone surrogate",
			bad:  []string{"claim", "add", "--task", task, "--file", file("lone.jsonl", "{\"text\": \"Glaciers melt.\"}\n{\"text\": \"Sea ice \\ud800 retreats.\"}\n")},
			good: []string{"claim", "add", "--task", task, "--file", file("pair.jsonl", "{\"text\": \"Glaciers melt.\"}\n{\"text\": \"Sea ice \\ud83e\\uddca retreats.\"}\n")},
			want: "lone.jsonl:2: text: lone surrogate"},
		{name: "a claims file with invalid UTF-8",
			bad:  []string{"claim", "add", "--task", task, "--file", file("latin1.jsonl", "{\"claim\": \"Sea ice \xe9 retreats.\"}\n")},
			good: []string{"claim", "add", "--task", task, "--file", file("utf8.jsonl", "{\"claim\": \"Sea ice \u00e9 retreats.\"}\n")},
			want: "latin1.jsonl:1: claim: invalid UTF-8"},
		{name: "a query",
			bad:  []string{"target", "add", "--task", task, "--query", "sea ice \xff"},
			good: []string{"target", "add", "--task", task, "--query", "sea ice \u00ff"},
			want: "--query: invalid UTF-8"},
		{name: "a targets file",
			bad:  []string{"target", "add", "--task", task, "--file", file("latin1.txt", "# pages\nhttps://example.org/gl\xe9cier\n")},
			good: []string{"target", "add", "--task", task, "--file", file("utf8.txt", "# pages\nhttps://example.org/gl\u00e9cier\n")},
			want: "latin1.txt:2: invalid UTF-8"},
		{name: "a text whose citations are checked", stdin: "Glaciers retreat [E1].\nSea ice \xff retreats.\n", goodStdin: "Glaciers retreat [E1].\nSea ice \u00ff retreats.\n",
			bad:  []string{"cite", "check", "--task", task, "--file", "-"},
			good: []string{"cite", "check", "--task", task, "--file", "-"},
			want: "standard input:2: invalid UTF-8"},
		{name: "a rerank query in job args",
			bad:  []string{"job", "--kind", "rerank", "--args", `{"task_id": ` + task + `, "query": "sea ice \udc00"}`},
			good: []string{"job", "--kind", "rerank", "--args", `{"task_id": ` + task + `, "query": "sea ice \ud83e\uddca"}`},
			want: `field "query": lone surrogate`},
	}
	for _, c := range cases {
		r := b.runInput(t, c.stdin, c.bad...)
		if r.code() != 2 || r.err == nil || !strings.Contains(r.err.Error(), c.want) {
			t.Errorf("%s: exit %d, %v; want exit 2 naming %q", c.name, r.code(), r.err, c.want)
		}
		if c.good == nil {
			continue
		}
		if r := b.runInput(t, c.goodStdin, c.good...); r.err != nil {
			t.Errorf("%s, in valid text: exit %d, %v", c.name, r.code(), r.err)
		}
	}
	if n := b.count(t, `SELECT count(*) FROM claims WHERE text LIKE '%' || U&'\FFFD' || '%'`); n != 0 {
		t.Errorf("%d claims hold U+FFFD, want none", n)
	}
}
