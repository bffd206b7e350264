package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/version"
)

// --version prints the build's version without touching a database.
func TestVersionFlag(t *testing.T) {
	old := version.Version
	t.Cleanup(func() { version.Version = old })
	version.Version = "v1.2.3-test"
	t.Setenv("DATABASE_URL", "")
	t.Setenv("EVF_DATABASE_URL", "")

	root := newRoot()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs([]string{"--version"})
	if err := root.Execute(); err != nil {
		t.Fatalf("enqueue --version: %v (stderr %q)", err, errOut.String())
	}
	if got, want := out.String(), "enqueue version v1.2.3-test\n"; got != want {
		t.Errorf("enqueue --version printed %q, want %q", got, want)
	}
}

// The database is --database-url, else EVF_DATABASE_URL, else DATABASE_URL:
// each case points the sources that must not be used at a closed port, so
// the command succeeds only when it picked the right one.
func TestDatabaseURLSources(t *testing.T) {
	b := setup(t)
	b.url = "" // the sources under test choose the database
	good := b.f.URL
	const closed = "postgres://evf@127.0.0.1:1/nowhere?connect_timeout=5"
	for _, tc := range []struct {
		name          string
		flag, evf, db string
		want          int
	}{
		{"flag wins over both variables", good, closed, closed, 0},
		{"flag wins even when the variables are right", closed, good, good, 1},
		{"EVF_DATABASE_URL wins over DATABASE_URL", "", good, closed, 0},
		{"EVF_DATABASE_URL is used before DATABASE_URL", "", closed, good, 1},
		{"DATABASE_URL alone", "", "", good, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("EVF_DATABASE_URL", tc.evf)
			t.Setenv("DATABASE_URL", tc.db)
			args := []string{"task", "create", "--hypothesis", "Sea ice is thinning."}
			if tc.flag != "" {
				args = append(args, "--database-url", tc.flag)
			}
			if r := b.run(t, args...); r.code() != tc.want {
				t.Errorf("exit %d (%v), want %d", r.code(), r.err, tc.want)
			}
		})
	}

	t.Run("flag before the command", func(t *testing.T) {
		t.Setenv("EVF_DATABASE_URL", "")
		t.Setenv("DATABASE_URL", "")
		b.mustRun(t, "--database-url", good, "status", "--task", fmt.Sprint(b.createTaskWith(t, good)))
	})

	t.Run("none set is a usage error naming all three", func(t *testing.T) {
		t.Setenv("EVF_DATABASE_URL", "")
		t.Setenv("DATABASE_URL", "")
		r := b.run(t, "task", "create", "--hypothesis", "x")
		if r.code() != 2 {
			t.Fatalf("exit %d (%v), want 2", r.code(), r.err)
		}
		for _, want := range []string{"--database-url", "EVF_DATABASE_URL", " DATABASE_URL"} {
			if !strings.Contains(r.err.Error(), want) {
				t.Errorf("error %q does not name %s", r.err, strings.TrimSpace(want))
			}
		}
	})
}

// createTaskWith creates a task through --database-url url.
func (b *bundle) createTaskWith(t *testing.T, url string) int64 {
	t.Helper()
	var out struct {
		TaskID int64 `json:"id"`
	}
	b.mustRunJSON(t, &out, "--database-url", url, "task", "create", "--hypothesis", hypothesis)
	if out.TaskID <= 0 {
		t.Fatalf("task create returned task id %d", out.TaskID)
	}
	return out.TaskID
}
