package models_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStandardLibraryOnly keeps the capability interfaces and the error
// vocabulary free of the project's other packages and of third-party code:
// every client and every worker imports them.
func TestStandardLibraryOnly(t *testing.T) {
	t.Parallel()
	for _, pkg := range []string{".", "./modelerr"} {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) != 1 {
			t.Errorf("%s depends on non-standard packages: %q", pkg, deps)
		}
	}
}
