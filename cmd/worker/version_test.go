package main

import (
	"bytes"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/version"
)

// --version prints the build's version and does not start a worker (no
// DATABASE_URL is needed).
func TestVersionFlag(t *testing.T) {
	old := version.Version
	t.Cleanup(func() { version.Version = old })
	version.Version = "v1.2.3-test"
	t.Setenv("DATABASE_URL", "")
	t.Setenv("EVF_DATABASE_URL", "")

	root := rootCmd()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs([]string{"--version"})
	if err := root.Execute(); err != nil {
		t.Fatalf("worker --version: %v (stderr %q)", err, errOut.String())
	}
	if got, want := out.String(), "worker version v1.2.3-test\n"; got != want {
		t.Errorf("worker --version printed %q, want %q", got, want)
	}
}
