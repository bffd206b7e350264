package models_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStandardLibraryOnly keeps the capability interfaces free of the
// project's other packages and of third-party code: every client and every
// worker imports them. (internal/remoteerr, the error vocabulary, has the same
// test.)
func TestStandardLibraryOnly(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	if deps := strings.Fields(string(out)); len(deps) != 1 {
		t.Errorf("models depends on non-standard packages: %q", deps)
	}
}
