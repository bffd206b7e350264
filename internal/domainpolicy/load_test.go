package domainpolicy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidencefleet/evidencefleet/internal/domainpolicy"
)

// TestLoadPolicy: no EVF_DOMAIN_POLICY is the built-in policy; a file
// extends it; a bad file stops the start with an error naming the variable,
// the file and the line.
func TestLoadPolicy(t *testing.T) {
	t.Parallel()
	p, err := domainpolicy.Load("")
	if err != nil || p.Decide("arxiv.org").Level != domainpolicy.Academic {
		t.Fatalf("built-in policy: %v, arxiv.org %s", err, p.Decide("arxiv.org").Level)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("rules:\n  - {site: example.org, level: TRUSTED}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := domainpolicy.Load(good); err != nil || p.Decide("example.org").Level != domainpolicy.Trusted || p.Decide("arxiv.org").Level != domainpolicy.Academic {
		t.Errorf("extending file: %v", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("rules:\n  - {site: example.org, level: TRUSTED}\n  - {site: www.example.net, level: LOW}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := domainpolicy.Load(bad); err == nil || !strings.Contains(err.Error(), "EVF_DOMAIN_POLICY: domain policy "+bad+" line 3") {
		t.Errorf("bad file: %v, want the variable, file and line 3", err)
	}
	if _, err := domainpolicy.Load(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "EVF_DOMAIN_POLICY") {
		t.Errorf("missing file: %v", err)
	}
}
