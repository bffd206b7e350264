package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/scratchdb"
)

// TestUnknownCommandsAreUsageErrors: a misspelt command, at any level,
// exits 2 naming the word and suggesting the commands it may have meant;
// so does a misspelt flag. Nothing connects to a database.
func TestUnknownCommandsAreUsageErrors(t *testing.T) {
	t.Parallel()
	b := &bundle{ctx: context.Background()}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"stauts"}, `unknown command "stauts"; did you mean "status"?`},
		{[]string{"stauts", "--task", "1"}, `unknown command "stauts"; did you mean "status"?`},
		{[]string{"task", "lsit"}, `unknown command "lsit" for "enqueue task"; did you mean "list"?`},
		{[]string{"task", "shwo", "--task", "1"}, `unknown command "shwo" for "enqueue task"; did you mean "show"?`},
		{[]string{"cite", "chekc", "--task", "1"}, `unknown command "chekc" for "enqueue cite"; did you mean "check"?`},
		{[]string{"job", "lsit", "--task", "1"}, `unknown command "lsit" for "enqueue job"; did you mean "list"?`},
		{[]string{"job", "retyr"}, `unknown command "retyr" for "enqueue job"; did you mean "retry"?`},
		{[]string{"evidence", "lst"}, `unknown command "lst" for "enqueue evidence"; did you mean "list"?`},
		{[]string{"frobnicate"}, `unknown command "frobnicate"; "enqueue --help" lists the commands`},
		{[]string{"status", "--tsak", "1"}, `unknown flag: --tsak; did you mean "--task"?`},
		{[]string{"task", "create", "extra"}, `unknown command "extra" for "enqueue task create"`},
	} {
		r := b.run(t, tc.args...)
		if r.code() != 2 || r.err == nil || r.err.Error() != tc.want {
			t.Errorf("enqueue %s: exit %d, %v; want 2, %s", strings.Join(tc.args, " "), r.code(), r.err, tc.want)
		}
		if r.stdout != "" {
			t.Errorf("enqueue %s printed %q", strings.Join(tc.args, " "), r.stdout)
		}
	}
}

// TestEveryParentCommand: every command with sub-commands prints its help
// (exit 0) when given none, and refuses a word that names none (exit 2).
func TestEveryParentCommand(t *testing.T) {
	t.Parallel()
	b := &bundle{ctx: context.Background()}
	type parent struct {
		path     []string
		helpOnly bool // runs nothing of its own (job and evidence do)
	}
	var parents []parent
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.HasAvailableSubCommands() {
			parents = append(parents, parent{path, c.Annotations[helpOnly] != ""})
		}
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				walk(sub, append(append([]string{}, path...), sub.Name()))
			}
		}
	}
	walk(newRoot(), nil)
	if len(parents) < 9 {
		t.Fatalf("found %d parent commands: %v", len(parents), parents)
	}
	for _, pa := range parents {
		p := pa.path
		name := strings.TrimSpace("enqueue " + strings.Join(p, " "))
		r := b.run(t, p...)
		if r.code() != 0 || !strings.Contains(r.stdout, "Available Commands:") || !strings.Contains(r.stdout, name+" [command]") {
			t.Errorf("%s: exit %d (%v), want its help:\n%s", name, r.code(), r.err, r.stdout)
		}
		if own := strings.Contains(r.stdout, name+" [flags]"); own == pa.helpOnly {
			t.Errorf("%s: its help shows a usage line of its own: %v, want %v:\n%s", name, own, !pa.helpOnly, r.stdout)
		}
		r = b.run(t, append(p, "nosuchcommand")...)
		if r.code() != 2 || r.err == nil || !strings.Contains(r.err.Error(), `unknown command "nosuchcommand"`) {
			t.Errorf("%s nosuchcommand: exit %d (%v), want 2, unknown command", name, r.code(), r.err)
		}
	}
}

// TestUnmigratedDatabase: every command on a database without the fleet's
// tables says to run `worker migrate` (exit 1) instead of Postgres's
// "relation does not exist"; on a database whose schema lacks a newer
// table it says the schema is older.
func TestUnmigratedDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	empty, drop, err := scratchdb.Create(ctx, pgtest.BaseURL(t), "evf_unmigrated_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = drop() })
	b := &bundle{ctx: ctx, url: empty, dir: t.TempDir()}
	urls := b.writeFile(t, "urls.txt", "https://a.example.org/\n")
	const want = "the database has no evidencefleet schema: run `worker migrate`"
	for _, args := range [][]string{
		{"task", "list"}, {"task", "show", "--task", "1"}, {"task", "create", "--hypothesis", "Seas rise."},
		{"task", "stop", "--task", "1"}, {"claim", "add", "--task", "1", "--text", "Ice melts."},
		{"target", "add", "--task", "1", "--file", urls}, {"status", "--task", "1"}, {"report", "--task", "1"},
		{"graph", "--task", "1"}, {"materials", "--task", "1"}, {"evidence", "list", "--task", "1"},
		{"job", "--kind", "rerank", "--args", `{"task_id": 1}`}, {"job", "--kind", "cleanup", "--args", `{"mode": "orphans"}`},
		{"job", "list", "--task", "1"}, {"job", "retry", "--job", "1"}, {"job", "cancel", "--job", "1"},
		{"domain", "list"}, {"feedback", "export"}, {"org", "token", "list", "--org", "acme"}, {"operator", "token", "create"},
	} {
		r := b.run(t, args...)
		if r.code() != 1 || r.err == nil || r.err.Error() != want {
			t.Errorf("enqueue %s on an empty database: exit %d, %v; want 1, %s", strings.Join(args, " "), r.code(), r.err, want)
		}
	}

	older := &bundle{ctx: ctx, url: pgtest.URL(t)}
	c, err := pgx.Connect(ctx, older.url)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Exec(ctx, "DROP TABLE task_pages")
	c.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := older.run(t, "task", "list")
	if r.code() != 1 || r.err == nil ||
		r.err.Error() != "the database's evidencefleet schema is older than this enqueue (relation \"task_pages\" does not exist): run `worker migrate`" {
		t.Errorf("task list without task_pages: exit %d, %v", r.code(), r.err)
	}
}
