package jobs_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestContractImportsNothingHeavy keeps the public contract light: a service
// that imports jobs to insert a job must not pull in the crawler, the HTML
// parsers, Prometheus or a database driver.
func TestContractImportsNothingHeavy(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps gave %d packages: %q", len(deps), out)
	}
	banned := []string{"colly", "go-readability", "goquery", "prometheus", "jackc/pgx", "evidencefleet/store",
		"evidencefleet/internal/crawl", "evidencefleet/internal/extract", "evidencefleet/internal/models"}
	for _, d := range deps {
		for _, b := range banned {
			if strings.Contains(d, b) {
				t.Errorf("jobs depends on %s (%s)", d, b)
			}
		}
	}
}
