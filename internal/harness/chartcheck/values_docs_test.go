package chartcheck_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestValuesTableUpToDate: the chart's README.md is what `make helm-docs`
// (helm-docs at the Makefile's pinned version, from README.md.gotmpl and the
// `# --` comments of values.yaml) writes now. helm-docs is built through the
// Go module proxy; without it the test is skipped, unless EVF_REQUIRE_HELM
// is set (as in CI).
func TestValuesTableUpToDate(t *testing.T) {
	t.Parallel()
	skip := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("EVF_REQUIRE_HELM") != "" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	makeBin, err := exec.LookPath("make")
	if err != nil {
		skip("make not found: %v", err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		skip("go not found: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "evidencefleet")
	if err := os.CopyFS(dir, os.DirFS(chartDir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "README.md")); err != nil {
		t.Fatalf("the chart has no README.md (make helm-docs writes it): %v", err)
	}
	cmd := exec.Command(makeBin, "-s", "--no-print-directory", "-C", "../../..", "helm-docs", "GO="+goBin, "HELM_DOCS_CHART="+dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		skip("make helm-docs: %v\n%s", err, out.String())
	}
	got, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatalf("make helm-docs wrote no README.md: %v\n%s", err, out.String())
	}
	want, err := os.ReadFile(filepath.Join(chartDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("deploy/helm/evidencefleet/README.md is stale: run `make helm-docs` and commit it\n%s", firstDiff(string(want), string(got)))
	}
	if !strings.Contains(string(want), "| Key | Type | Default | Description |") {
		t.Error("README.md has no values table")
	}
}
