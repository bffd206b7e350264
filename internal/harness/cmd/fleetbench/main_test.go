package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/bench"
	"github.com/evidencefleet/evidencefleet/internal/version"
)

// TestMarkdownFromASavedReport: -markdown-from prints a report saved by
// -json as the README's table, naming the commit it was measured at.
func TestMarkdownFromASavedReport(t *testing.T) {
	t.Parallel()
	rep := bench.Report{Measured: version.Provenance{Commit: "abc1234", At: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)},
		CPUs: 2, Go: "go1.26.8", Postgres: "15.18 (Debian)", Seconds: 61, Options: bench.Quick,
		Rows: []bench.Row{{Section: "enqueue (target_queue)", Metric: "batch insert", Value: 26207.4, Unit: "jobs/s",
			Baseline: "InsertManyFast 96297 jobs/s: ×0.27"}}}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := run([]string{"-markdown-from", file}, &out, &errOut); err != nil {
		t.Fatalf("run: %v (%s)", err, errOut.String())
	}
	for _, want := range []string{"commit `abc1234`, 2026-12-02 12:00 UTC", "PostgreSQL 15.18,",
		"| enqueue (target_queue) | batch insert | 26207 jobs/s | InsertManyFast 96297 jobs/s: ×0.27 |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
}
