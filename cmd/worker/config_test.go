package main

import (
	"bytes"
	"os"
	"runtime/debug"
	"strings"
	"testing"
)

// TestConfigPrintsThePageMemoryBound: `worker config` ends with the page
// memory budget the environment gives under the process's memory limit,
// and the bound it keeps the heap to, without a database. With the
// chart's ingest group (4 target jobs, GOMEMLIMIT 224 MiB): 44 MiB, a
// live heap of at most 112 MiB. Not parallel: it sets the process's
// memory limit.
func TestConfigPrintsThePageMemoryBound(t *testing.T) {
	old := debug.SetMemoryLimit(224 << 20)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	t.Setenv("DATABASE_URL", "")
	t.Setenv("EVF_DATABASE_URL", "")
	t.Setenv("EVF_QUEUES", "target,embed")
	t.Setenv("EVF_TARGET_WORKERS", "4")
	t.Setenv("EVF_PAGE_MEMORY_BUDGET_MB", "")
	os.Unsetenv("EVF_PAGE_MEMORY_BUDGET_MB") // restored by t.Setenv's cleanup

	root := rootCmd()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs([]string{"config"})
	if err := root.Execute(); err != nil {
		t.Fatalf("worker config: %v (stderr %q)", err, errOut.String())
	}
	got := out.String()
	for _, want := range []string{"EVF_PAGE_MEMORY_BUDGET_MB", "page memory budget 44.0 MiB: memory limit 224.0 MiB (GOMEMLIMIT)",
		"live heap at most the reserve 68.0 MiB + the budget 44.0 MiB = 112.0 MiB", "within the heap's limit of 224.0 MiB"} {
		if !strings.Contains(got, want) {
			t.Errorf("worker config does not say %q:\n%s", want, got[max(0, len(got)-800):])
		}
	}
}
