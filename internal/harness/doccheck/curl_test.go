package doccheck_test

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/apiserver"
	"github.com/evidencefleet/evidencefleet/internal/apitoken"
	"github.com/evidencefleet/evidencefleet/internal/harness/repodata"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
)

// curlBlockStart opens the documentation's curl walk-through of the API.
const curlBlockStart = `API=http://127.0.0.1:8080; AUTH="Authorization: Bearer $TOKEN"`

// curlBlock is the sh code block of README.md or docs/*.md that opens with
// curlBlockStart, and the file it is in.
func curlBlock(t *testing.T) (string, string) {
	t.Helper()
	root, err := repodata.Root()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	block := regexp.MustCompile("(?s)```sh\n(" + regexp.QuoteMeta(curlBlockStart) + ".*?)```")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := block.FindSubmatch(data); m != nil {
			rel, _ := filepath.Rel(root, f)
			return string(m[1]), rel
		}
	}
	t.Fatalf("no sh block opening with %q in README.md or docs/", curlBlockStart)
	return "", ""
}

// tools are what the block runs; CI installs them (EVF_REQUIRE_DOC_TOOLS),
// elsewhere the test is skipped without them.
func tools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("EVF_REQUIRE_DOC_TOOLS") != "" {
				t.Fatalf("%s is not installed", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
}

// TestCurlExamplesRunAsWritten runs the documentation's curl walk-through
// as written (only its API address is the test server's) against a real
// worker and API: a task is created, its targets added, its event stream
// read until the task completes, its export and a citation check printed.
func TestCurlExamplesRunAsWritten(t *testing.T) {
	t.Parallel()
	tools(t)
	block, file := curlBlock(t)
	f := testfleet.Start(t, testfleet.Options{Pages: testfleet.GlacierPages()})
	srv, err := apiserver.New(f.Pool, apiserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	secret, _, err := apitoken.Issue(ctx, f.Store, apitoken.Organization, "acme", "docs")
	if err != nil {
		t.Fatal(err)
	}
	script := strings.Replace(block, "API=http://127.0.0.1:8080", "API="+ts.URL, 1)
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Env = append(os.Environ(), "TOKEN="+secret)
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil {
		t.Fatalf("the curl block of %s failed: %v\n%s", file, err, text)
	}
	for _, want := range []string{
		`"inserted":2`,     // the targets were added
		"event: completed", // the event stream ran until the task completed
		`"id": "E1"`,       // the export, through jq: the hypothesis is E1
		`"cited":["E1"]`,   // the citation check
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the output of %s's curl block lacks %s:\n%s", file, want, text)
		}
	}
}
