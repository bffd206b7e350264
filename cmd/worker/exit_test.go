package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/harness/pgtest"
	"github.com/evidencefleet/evidencefleet/internal/harness/scratchdb"
)

// TestExitCodesAndDatabaseErrors runs the worker command as an operator
// would, wrongly: a wrong command line or configuration exits 2, a
// database it cannot use exits 1 saying what is wrong and what to do.
func TestExitCodesAndDatabaseErrors(t *testing.T) {
	t.Parallel()
	base := pgtest.BaseURL(t)
	empty, drop, err := scratchdb.Create(context.Background(), base, "evf_unmigrated_")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = drop() })
	missing, err := scratchdb.WithDatabase(base, "evf_no_such_database")
	if err == nil { // pgx's default: TLS tried first, then without
		missing, err = scratchdb.WithParam(missing, "sslmode", "prefer")
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		args     []string
		database string // "" for none
		code     int
		says     string
		never    string
	}{
		{"unknown flag", []string{"--nope"}, "", 2, "unknown flag: --nope", ""},
		{"unknown command", []string{"wrok"}, "", 2, `unknown command "wrok"`, ""},
		{"an argument migrate does not take", []string{"migrate", "now"}, "", 2, `unknown command "now"`, ""},
		{"mcp without its organization", []string{"mcp"}, empty, 2, "--org is required", ""},
		{"no database", nil, "", 2, "EVF_DATABASE_URL", ""},
		{"a database that does not exist", nil, missing, 1, `database "evf_no_such_database" does not exist: create it`, "tls"},
		{"a database never migrated", nil, empty, 1, "run `worker migrate`", "relation"},
		{"the API on a database never migrated", []string{"api"}, empty, 1, "run `worker migrate`", "relation"},
		{"migrate on a database that does not exist", []string{"migrate"}, missing, 1, `database "evf_no_such_database" does not exist: create it`, "tls"},
	} {
		cmd := exec.Command(os.Args[0], c.args...)
		cmd.Env = append(withoutDatabase(os.Environ()), mainProcessEnv+"=1", "EVF_METRICS_ADDR=127.0.0.1:0", "EVF_API_ADDR=127.0.0.1:0")
		if c.database != "" {
			cmd.Env = append(cmd.Env, "DATABASE_URL="+c.database)
		}
		out, err := cmd.CombinedOutput()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		}
		if code != c.code || !strings.Contains(string(out), c.says) || c.never != "" && strings.Contains(strings.ToLower(string(out)), c.never) {
			t.Errorf("%s: exit %d, want %d, saying %q and never %q:\n%s", c.name, code, c.code, c.says, c.never, out)
		}
	}
}

// withoutDatabase is env without the database variables.
func withoutDatabase(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "DATABASE_URL=") && !strings.HasPrefix(kv, "EVF_DATABASE_URL=") {
			out = append(out, kv)
		}
	}
	return out
}
