package remoteerr_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStandardLibraryOnly keeps the error vocabulary free of the project's
// other packages and of third-party code: every remote client and every
// worker imports it.
func TestStandardLibraryOnly(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	if deps := strings.Fields(string(out)); len(deps) != 1 {
		t.Errorf("remoteerr depends on non-standard packages: %q", deps)
	}
}
