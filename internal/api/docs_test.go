package api_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/internal/harness/browser"
)

// TestDocsPageRendersOffline renders /v1/docs in headless Chromium that
// can resolve no host but the test server's: the page's script and styles
// come from the binary, and it lists the document's operations. Without
// Debian's chromium the test is skipped, unless EVF_REQUIRE_CHROMIUM is
// set (CI installs it).
func TestDocsPageRendersOffline(t *testing.T) {
	t.Parallel()
	chromium := browser.Path(t)
	b := setup(t, apiserver.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+t.TempDir(),
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--virtual-time-budget=15000", "--dump-dom", b.srv.URL+"/v1/docs")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	dom := string(out)
	for _, want := range []string{"Create a task; its hypothesis becomes claim E1", "/v1/tasks/{task_id}/evidence", "Every problem code the API answers with"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered docs page lacks %q (%d bytes of DOM)", want, len(dom))
		}
	}
	if t.Failed() {
		t.Logf("DOM: %.2000s", dom)
	}
}
