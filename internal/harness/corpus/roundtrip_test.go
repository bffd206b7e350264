package corpus_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evidencefleet/evidencefleet/internal/harness/graphsnap"
	"github.com/evidencefleet/evidencefleet/internal/harness/testfleet"
	"github.com/evidencefleet/evidencefleet/internal/harness/warccheck"
	"github.com/evidencefleet/evidencefleet/internal/service"
	"github.com/evidencefleet/evidencefleet/jobs"
)

// TestWARCRoundTrip: the pages a fleet fetched, exported as the task's
// WARC (service.ExportWARC), are read by an independent reader (warcio.js:
// every record parsed, every digest checked, the CDXJ index matching), then
// replayed from that WARC alone by a fleet on a fresh database, which builds
// the same evidence graph (graphsnap digest equal).
func TestWARCRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	targets := []jobs.Target{{Kind: jobs.TargetURL, Value: testfleet.GlacierWiki}, {Kind: jobs.TargetURL, Value: testfleet.GlacierScience},
		{Kind: jobs.TargetURL, Value: testfleet.GlacierBlog}}
	build := func(f *testfleet.Fleet) (int64, graphsnap.Graph) {
		task := f.CreateTask(t, testfleet.GlacierHypothesis, "Glaciers in Norway advanced during the 1990s.")
		f.AddTargetsOf(t, task, targets...)
		testfleet.WaitIdle(t, f.Pool, 3*time.Minute)
		g, err := graphsnap.Read(ctx, f.Pool)
		if err != nil {
			t.Fatal(err)
		}
		return task, g
	}
	first := testfleet.Start(t, testfleet.Options{Pages: testfleet.GlacierPages()})
	task, want := build(first)

	dir := t.TempDir()
	warcPath, cdxjPath := filepath.Join(dir, "task.warc.gz"), filepath.Join(dir, "task.cdxj")
	warc, err := os.Create(warcPath)
	if err != nil {
		t.Fatal(err)
	}
	cdxj, err := os.Create(cdxjPath)
	if err != nil {
		t.Fatal(err)
	}
	res, err := service.New(first.Store, first.Client).ExportWARC(ctx, "test-org", task, warc, cdxj, "task.warc.gz")
	if err != nil {
		t.Fatal(err)
	}
	if err := warc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cdxj.Close(); err != nil {
		t.Fatal(err)
	}
	if res.Records != 3 || res.Uncaptured != 0 {
		t.Errorf("exported %+v, want the 3 page versions, all captured", res)
	}
	report := warccheck.Validate(t, warcPath, cdxjPath)
	if len(report.Errors) > 0 || report.ByType["response"] != 3 || report.ByType["request"] != 3 {
		t.Errorf("warcio read the export as %v with errors %v, want 3 responses, each with its request, and no error", report.ByType, report.Errors)
	}

	second := testfleet.Start(t, testfleet.Options{ReplayDir: dir})
	_, got := build(second)
	if diff := graphsnap.Diff(want, got, 10); diff != "" {
		t.Errorf("the graph replayed from the task's WARC differs:\n%s", diff)
	}
	if want.Digest() != got.Digest() {
		t.Errorf("graph digests %s and %s", want.Digest(), got.Digest())
	}
}
