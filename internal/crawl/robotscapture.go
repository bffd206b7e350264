package crawl

import (
	"context"
	"sync"

	"github.com/evidencefleet/evidencefleet/internal/ident"
	"github.com/evidencefleet/evidencefleet/internal/warc"
)

// RobotsCaptures collects the robots.txt responses a job's fetches read
// from the web (not those the Fetcher's cache answered, nor a replay
// archive's), so that they can be kept beside the pages they governed and
// written to WARC like them. Safe for concurrent use.
type RobotsCaptures struct {
	mu   sync.Mutex
	list []warc.Capture
}

type robotsCapturesKey struct{}

// WithRobotsCaptures returns ctx with a fresh collector of the robots.txt
// responses fetched under it, and the collector.
func WithRobotsCaptures(ctx context.Context) (context.Context, *RobotsCaptures) {
	rc := &RobotsCaptures{}
	return context.WithValue(ctx, robotsCapturesKey{}, rc), rc
}

// Captures are the robots.txt responses collected so far, in order.
func (rc *RobotsCaptures) Captures() []warc.Capture {
	if rc == nil {
		return nil
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]warc.Capture(nil), rc.list...)
}

// noteRobots adds a robots.txt response to ctx's collector, when it has
// one. A response cut at robotsMaxBytes is not kept: a capture holds what
// was sent, whole.
func noteRobots(ctx context.Context, target string, ex *exchangeResult) {
	rc, _ := ctx.Value(robotsCapturesKey{}).(*RobotsCaptures)
	if rc == nil || ex.status == 0 || len(ex.body) >= robotsMaxBytes {
		return
	}
	u := ex.finalURL
	if u == "" {
		u = target
	}
	if n, err := ident.NormalizeURL(u); err == nil {
		u = n
	}
	c := warc.Capture{URL: u, Date: ex.at, Status: ex.status, Header: warc.RecordedHeader(ex.header),
		Body: append([]byte{}, ex.body...), Request: warc.RecordedRequest(ex.request)}
	rc.mu.Lock()
	rc.list = append(rc.list, c)
	rc.mu.Unlock()
}
